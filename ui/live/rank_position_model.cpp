#include "rank_position_model.h"

namespace meshscope::ui {

namespace {
QString joined(const QStringList& parts) {
    QStringList kept;
    for (const QString& part : parts)
        if (!part.isEmpty()) kept << part;
    return kept.join(QStringLiteral(" · "));
}

using R = RecordsCall;
constexpr RowRole<R> roles[] = {
    {RankPositionModel::DimRole, "dim", [](const R& c) -> QVariant { return QString::fromStdString(c.dim); }},
    {RankPositionModel::GroupRole, "group", [](const R& c) -> QVariant { return static_cast<int>(c.group); }},
    {RankPositionModel::SeqRole, "seq", [](const R& c) -> QVariant { return static_cast<int>(c.seq); }},
    {RankPositionModel::OpRole, "op", [](const R& c) -> QVariant { return QString::fromStdString(c.op); }},
    {RankPositionModel::CompletedRole, "completed", [](const R& c) -> QVariant { return c.completed; }},
    {RankPositionModel::TextRole, "text",
     [](const R& c) -> QVariant {
         return joined({c.group >= 0
                            ? RankPositionModel::tr("%1 group %2").arg(QString::fromStdString(c.dim)).arg(c.group)
                            : QString::fromStdString(c.dim),
                        RankPositionModel::tr("seq %1").arg(c.seq), QString::fromStdString(c.op)});
     }},
};
static_assert(roles_in_order(roles));
}  // namespace

RankPositionModel::RankPositionModel(QObject* parent) : RowListModel(roles, OpRole, parent) {}

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
    setRows(position ? position->last : std::vector<RecordsCall>{}, [&] {
        rank_ = new_rank;
        position_ = position;
    });
    emit positionChanged();
}

}  // namespace meshscope::ui
