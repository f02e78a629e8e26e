#include "ranked_layouts_model.h"

#include "cost_comm_model.h"
#include "cost_memory_model.h"

namespace meshscope::ui {

int RankedLayoutsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : count();
}

std::optional<Topology> RankedLayoutsModel::layout(int row) const {
    if (row < 0 || row >= count()) return std::nullopt;
    if (row < rankedCount()) return advice_.ranked[static_cast<std::size_t>(row)].topology;
    return advice_.excluded[static_cast<std::size_t>(row - rankedCount())].topology;
}

QVariant RankedLayoutsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const int row = index.row();
    const bool fits = row < rankedCount();
    const cost::LayoutCost* c = fits ? &advice_.ranked[static_cast<std::size_t>(row)] : nullptr;
    const Topology t = *layout(row);
    switch (role) {
        case RankRole: return fits ? row + 1 : 0;
        case DpRole: return QVariant::fromValue<qint64>(t.dp);
        case CpRole: return QVariant::fromValue<qint64>(t.cp);
        case EpRole: return QVariant::fromValue<qint64>(t.ep);
        case EfsdpRole: return QVariant::fromValue<qint64>(t.efsdp);
        case FitsRole: return fits;
        case SecondsRole: return c ? c->step.seconds : 0.0;
        case Qt::DisplayRole:
        case TimeTextRole: return c ? ms_text(c->step.seconds) : QString();
        case ExposedTextRole: return c ? ms_text(c->step.exposed_seconds) : QString();
        case TokensTextRole: return c ? QString::number(c->step.tokens_per_second_per_gpu, 'f', 0) : QString();
        case MfuTextRole: return c ? QStringLiteral("%1%").arg(c->step.mfu * 100.0, 0, 'f', 1) : QString();
        case IntraNodeTextRole: return c ? ms_text(c->intra_node_seconds) : QString();
        case InterNodeTextRole: return c ? ms_text(c->inter_node_seconds) : QString();
        case MemoryTextRole: return c ? gib_text(c->memory.total()) : QString();
        case HeadroomTextRole: return c ? gib_text(c->memory.headroom()) : QString();
        case ReasonRole:
            return fits
                       ? QString()
                       : QString::fromStdString(advice_.excluded[static_cast<std::size_t>(row - rankedCount())].reason);
        case CurrentRole: return row == current_row_;
        default: return {};
    }
}

QHash<int, QByteArray> RankedLayoutsModel::roleNames() const {
    return {{RankRole, "rank"},
            {DpRole, "dp"},
            {CpRole, "cp"},
            {EpRole, "ep"},
            {EfsdpRole, "efsdp"},
            {FitsRole, "fits"},
            {SecondsRole, "seconds"},
            {TimeTextRole, "timeText"},
            {IntraNodeTextRole, "intraNodeText"},
            {InterNodeTextRole, "interNodeText"},
            {MemoryTextRole, "memoryText"},
            {HeadroomTextRole, "headroomText"},
            {ReasonRole, "reason"},
            {CurrentRole, "current"},
            {ExposedTextRole, "exposedText"},
            {TokensTextRole, "tokensText"},
            {MfuTextRole, "mfuText"}};
}

int RankedLayoutsModel::row_of(const Topology& layout) const {
    for (int row = 0; row < count(); ++row) {
        const Topology t = *this->layout(row);
        if (t.dp == layout.dp && t.cp == layout.cp && t.ep == layout.ep) return row;
    }
    return -1;
}

void RankedLayoutsModel::reset(cost::Advice advice) {
    const int before = count();
    const int before_row = current_row_;
    beginResetModel();
    advice_ = std::move(advice);
    current_row_ = current_ ? row_of(*current_) : -1;
    endResetModel();
    if (before != count()) emit countChanged();
    if (before_row != current_row_) emit currentChanged();
}

void RankedLayoutsModel::set(cost::Advice advice) {
    reset(std::move(advice));
}

void RankedLayoutsModel::clear() {
    reset({});
}

void RankedLayoutsModel::set_current(const std::optional<Topology>& layout) {
    current_ = layout;
    const int row = layout ? row_of(*layout) : -1;
    if (row == current_row_) return;
    const int before = current_row_;
    current_row_ = row;
    if (before >= 0) emit dataChanged(index(before), index(before), {CurrentRole});
    if (row >= 0) emit dataChanged(index(row), index(row), {CurrentRole});
    emit currentChanged();
}

}  // namespace meshscope::ui
