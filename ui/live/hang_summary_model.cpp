#include "hang_summary_model.h"

namespace meshscope::ui {

namespace {
QList<int> ranks_of(const std::vector<std::int64_t>& ranks) {
    QList<int> list;
    list.reserve(static_cast<qsizetype>(ranks.size()));
    for (const std::int64_t r : ranks) list << static_cast<int>(r);
    return list;
}
}  // namespace

int HangSummaryModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : count();
}

QVariant HangSummaryModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const HangPlace& place = summary_->places[static_cast<std::size_t>(index.row())];
    switch (role) {
        case Qt::DisplayRole:
        case TextRole: return QString::fromStdString(place.text);
        case StandingRole: return QString::fromStdString(std::string(to_string(place.standing)));
        case DimRole: return QString::fromStdString(place.dim);
        case SeqRole: return static_cast<int>(place.seq);
        case OpRole: return QString::fromStdString(place.op);
        case RanksRole: return static_cast<int>(place.ranks);
        case SomeRanksRole: return QVariant::fromValue(ranks_of(place.some));
        default: return {};
    }
}

QHash<int, QByteArray> HangSummaryModel::roleNames() const {
    return {{StandingRole, "standing"},   {DimRole, "dim"},  {SeqRole, "seq"}, {OpRole, "op"}, {RanksRole, "ranks"},
            {SomeRanksRole, "someRanks"}, {TextRole, "text"}};
}

QString HangSummaryModel::text() const {
    return summary_ ? QString::fromStdString(summary_->text) : QString();
}

QList<int> HangSummaryModel::rootCause() const {
    return summary_ ? ranks_of(summary_->root_cause) : QList<int>();
}

void HangSummaryModel::setSummary(const std::optional<HangSummary>& summary) {
    if (summary == summary_) return;
    beginResetModel();
    summary_ = summary;
    endResetModel();
    emit summaryChanged();
}

}  // namespace meshscope::ui
