#include "rank_position_model.h"

namespace meshscope::ui {

namespace {
QString joined(const QStringList& parts) {
    QStringList kept;
    for (const QString& part : parts)
        if (!part.isEmpty()) kept << part;
    return kept.join(QStringLiteral(" · "));
}
}  // namespace

int RankPositionModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : count();
}

QVariant RankPositionModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const RecordsCall& call = position_->last[static_cast<std::size_t>(index.row())];
    switch (role) {
        case DimRole: return QString::fromStdString(call.dim);
        case GroupRole: return static_cast<int>(call.group);
        case SeqRole: return static_cast<int>(call.seq);
        case Qt::DisplayRole:
        case OpRole: return QString::fromStdString(call.op);
        case CompletedRole: return call.completed;
        case TextRole:
            return joined({call.group >= 0 ? tr("%1 group %2").arg(QString::fromStdString(call.dim)).arg(call.group)
                                           : QString::fromStdString(call.dim),
                           tr("seq %1").arg(call.seq), QString::fromStdString(call.op)});
        default: return {};
    }
}

QHash<int, QByteArray> RankPositionModel::roleNames() const {
    return {{DimRole, "dim"}, {GroupRole, "group"},         {SeqRole, "seq"},
            {OpRole, "op"},   {CompletedRole, "completed"}, {TextRole, "text"}};
}

QString RankPositionModel::standing() const {
    return position_ ? QString::fromStdString(std::string(to_string(position_->standing))) : QString();
}

QString RankPositionModel::text() const {
    if (!position_) return {};
    const HangPosition& p = *position_;
    return joined({standing().replace(QLatin1Char('_'), QLatin1Char(' ')), label(),
                   p.seq > 0 ? tr("seq %1").arg(p.seq) : QString(), op(), p.root_cause ? tr("root cause") : QString()});
}

QString RankPositionModel::label() const {
    return position_ ? QString::fromStdString(position_->label) : QString();
}

QString RankPositionModel::dim() const {
    return position_ ? QString::fromStdString(position_->dim) : QString();
}

QString RankPositionModel::op() const {
    return position_ ? QString::fromStdString(position_->op) : QString();
}

void RankPositionModel::setRank(const RankRow* rank) {
    const int new_rank = rank ? rank->rank : -1;
    const std::optional<HangPosition> position = rank ? rank->position : std::nullopt;
    if (new_rank == rank_ && position == position_) return;
    beginResetModel();
    rank_ = new_rank;
    position_ = position;
    endResetModel();
    emit positionChanged();
}

}  // namespace meshscope::ui
