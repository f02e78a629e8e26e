#include "ranked_layouts_model.h"

#include "cost_comm_model.h"
#include "cost_memory_model.h"

namespace meshscope::ui {

namespace {
// A text of a ranked layout's cost; "" for an excluded one.
template <typename Text>
QVariant cost_text(const RankedLayoutRow& r, Text text) {
    return r.cost ? text(*r.cost) : QString();
}

using R = RankedLayoutRow;
using C = cost::LayoutCost;
constexpr RowRole<R> roles[] = {
    {RankedLayoutsModel::RankRole, "rank", [](const R& r) -> QVariant { return r.rank; }},
    {RankedLayoutsModel::DpRole, "dp", [](const R& r) { return QVariant::fromValue<qint64>(r.topology.dp); }},
    {RankedLayoutsModel::CpRole, "cp", [](const R& r) { return QVariant::fromValue<qint64>(r.topology.cp); }},
    {RankedLayoutsModel::EpRole, "ep", [](const R& r) { return QVariant::fromValue<qint64>(r.topology.ep); }},
    {RankedLayoutsModel::EfsdpRole, "efsdp", [](const R& r) { return QVariant::fromValue<qint64>(r.topology.efsdp); }},
    {RankedLayoutsModel::FitsRole, "fits", [](const R& r) -> QVariant { return r.cost.has_value(); }},
    {RankedLayoutsModel::SecondsRole, "seconds",
     [](const R& r) -> QVariant { return r.cost ? r.cost->step.seconds : 0.0; }},
    {RankedLayoutsModel::TimeTextRole, "timeText",
     [](const R& r) { return cost_text(r, [](const C& c) { return ms_text(c.step.seconds); }); }},
    {RankedLayoutsModel::IntraNodeTextRole, "intraNodeText",
     [](const R& r) { return cost_text(r, [](const C& c) { return ms_text(c.intra_node_seconds); }); }},
    {RankedLayoutsModel::InterNodeTextRole, "interNodeText",
     [](const R& r) { return cost_text(r, [](const C& c) { return ms_text(c.inter_node_seconds); }); }},
    {RankedLayoutsModel::MemoryTextRole, "memoryText",
     [](const R& r) { return cost_text(r, [](const C& c) { return gib_text(c.memory.total()); }); }},
    {RankedLayoutsModel::HeadroomTextRole, "headroomText",
     [](const R& r) { return cost_text(r, [](const C& c) { return gib_text(c.memory.headroom()); }); }},
    {RankedLayoutsModel::ReasonRole, "reason",
     [](const R& r) -> QVariant { return r.cost ? QString() : QString::fromStdString(r.reason); }},
    {RankedLayoutsModel::CurrentRole, "current", [](const R& r) -> QVariant { return r.current; }},
    {RankedLayoutsModel::ExposedTextRole, "exposedText",
     [](const R& r) { return cost_text(r, [](const C& c) { return ms_text(c.step.exposed_seconds); }); }},
    {RankedLayoutsModel::TokensTextRole, "tokensText",
     [](const R& r) {
         return cost_text(r, [](const C& c) { return QString::number(c.step.tokens_per_second_per_gpu, 'f', 0); });
     }},
    {RankedLayoutsModel::MfuTextRole, "mfuText",
     [](const R& r) {
         return cost_text(r, [](const C& c) { return QStringLiteral("%1%").arg(c.step.mfu * 100.0, 0, 'f', 1); });
     }},
};
static_assert(roles_in_order(roles));
}  // namespace

RankedLayoutsModel::RankedLayoutsModel(QObject* parent) : RowListModel(roles, TimeTextRole, parent) {}

std::optional<Topology> RankedLayoutsModel::layout(int row) const {
    if (row < 0 || row >= count()) return std::nullopt;
    return rows()[static_cast<std::size_t>(row)].topology;
}

int RankedLayoutsModel::row_of(const Topology& layout) const {
    for (int row = 0; row < count(); ++row) {
        const Topology t = *this->layout(row);
        if (t.dp == layout.dp && t.cp == layout.cp && t.ep == layout.ep) return row;
    }
    return -1;
}

void RankedLayoutsModel::reset(cost::Advice advice) {
    std::vector<RankedLayoutRow> rows;
    rows.reserve(advice.considered());
    for (cost::LayoutCost& c : advice.ranked) {
        const Topology topology = c.topology;
        rows.push_back({static_cast<int>(rows.size()) + 1, topology, std::move(c), {}, false});
    }
    for (cost::ExcludedLayout& e : advice.excluded)
        rows.push_back({0, e.topology, std::nullopt, std::move(e.reason), false});
    const int before_row = current_row_;
    setRows(std::move(rows), [&] {
        ranked_count_ = static_cast<int>(advice.ranked.size());
        current_row_ = current_ ? row_of(*current_) : -1;
        if (current_row_ >= 0) rowAt(current_row_).current = true;
    });
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
    if (before >= 0) rowAt(before).current = false;
    if (row >= 0) rowAt(row).current = true;
    if (before >= 0) emit dataChanged(index(before), index(before), {CurrentRole});
    if (row >= 0) emit dataChanged(index(row), index(row), {CurrentRole});
    emit currentChanged();
}

}  // namespace meshscope::ui
