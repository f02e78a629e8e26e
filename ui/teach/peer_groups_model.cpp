#include "peer_groups_model.h"

namespace meshscope::ui {

namespace {
QString ranks_text(const QList<int>& ranks) {
    QStringList parts;
    for (int rank : ranks) parts << QString::number(rank);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}
}  // namespace

QString framework_title(Framework framework) {
    switch (framework) {
        case Framework::fsdpturbo: return QStringLiteral("FSDPTurbo");
        case Framework::torchtitan: return QStringLiteral("TorchTitan");
        case Framework::megatron: return QStringLiteral("Megatron-Core");
    }
    return {};
}

namespace {
using R = PeerGroupRow;
constexpr RowRole<R> roles[] = {
    {PeerGroupsModel::RanksRole, "ranks", [](const R& g) { return QVariant::fromValue(g.ranks); }},
    {PeerGroupsModel::RanksTextRole, "ranksText", [](const R& g) -> QVariant { return ranks_text(g.ranks); }},
    {PeerGroupsModel::CrossNodeRole, "crossNode", [](const R& g) -> QVariant { return g.cross_node; }},
    {PeerGroupsModel::SelectedRole, "selected", [](const R& g) -> QVariant { return g.selected; }},
};
static_assert(roles_in_order(roles));
}  // namespace

PeerGroupsModel::PeerGroupsModel(Framework framework, QObject* parent)
    : RowListModel(roles, RanksTextRole, parent), framework_(framework) {}

QString PeerGroupsModel::framework() const {
    const std::string_view name = to_string(framework_);
    return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
}

QString PeerGroupsModel::title() const {
    return framework_title(framework_);
}

int PeerGroupsModel::crossNodeCount() const {
    int n = 0;
    for (const PeerGroupRow& group : rows()) n += group.cross_node ? 1 : 0;
    return n;
}

int PeerGroupsModel::groupOf(int rank) const {
    for (std::size_t row = 0; row < rows().size(); ++row)
        if (rows()[row].ranks.contains(rank)) return static_cast<int>(row);
    return -1;
}

QString PeerGroupsModel::selectedGroupText() const {
    const int row = groupOf(selected_rank_);
    return row < 0 || selected_rank_ < 0 ? QString() : ranks_text(rows()[static_cast<std::size_t>(row)].ranks);
}

void PeerGroupsModel::set_shape(const PeerShape& shape) {
    std::vector<PeerGroupRow> groups;
    QString error;
    const Expected<PeerLayout> layout = peer_layout(framework_, shape);
    if (!layout) {
        error = QString::fromStdString(layout.error().message());
    } else if (const PeerDim* ep = layout->dim("ep")) {
        for (const auto& members : ep->groups) {
            PeerGroupRow group;
            for (std::int64_t rank : members) group.ranks << static_cast<int>(rank);
            const std::int64_t gpus = std::max<std::int64_t>(1, shape.gpus_per_node);
            for (std::int64_t rank : members) group.cross_node |= rank / gpus != members.front() / gpus;
            group.selected = selected_rank_ >= 0 && group.ranks.contains(selected_rank_);
            groups.push_back(std::move(group));
        }
    }
    setRows(std::move(groups), [&] { error_ = error; });
    emit groupsChanged();
}

void PeerGroupsModel::set_selected_rank(int rank) {
    if (rank == selected_rank_) return;
    const int before = groupOf(selected_rank_);
    selected_rank_ = rank;
    const int after = groupOf(rank);
    for (PeerGroupRow& group : mutableRows()) group.selected = rank >= 0 && group.ranks.contains(rank);
    for (int row : {before, after})
        if (row >= 0) emit dataChanged(index(row), index(row), {SelectedRole});
    emit groupsChanged();
}

}  // namespace meshscope::ui
