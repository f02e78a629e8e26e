#include "inspector_model.h"

#include "dim_style.h"

namespace meshscope::ui {

namespace {
using R = InspectorRow;
constexpr RowRole<R> roles[] = {
    {InspectorModel::MeshRole, "mesh", [](const R& r) -> QVariant { return r.mesh; }},
    {InspectorModel::DimRole, "dim", [](const R& r) -> QVariant { return r.dim; }},
    {InspectorModel::CoordinateRole, "coordinate",
     [](const R& r) { return QVariant::fromValue<qint64>(r.coordinate); }},
    {InspectorModel::GroupIndexRole, "groupIndex",
     [](const R& r) { return QVariant::fromValue<qint64>(r.group_index); }},
    {InspectorModel::GroupSizeRole, "groupSize",
     [](const R& r) { return QVariant::fromValue<qint64>(static_cast<std::int64_t>(r.members.size())); }},
    {InspectorModel::MembersRole, "members",
     [](const R& r) -> QVariant { return InspectorModel::members_text(r.members); }},
    {InspectorModel::LeavesNodeRole, "leavesNode", [](const R& r) -> QVariant { return r.nodes > 1; }},
    {InspectorModel::NodeCountRole, "nodeCount", [](const R& r) { return QVariant::fromValue<qint64>(r.nodes); }},
    {InspectorModel::ColorRole, "dimColor",
     [](const R& r) -> QVariant { return dim_style(r.dim.toStdString()).color; }},
    {InspectorModel::FirstOfMeshRole, "firstOfMesh", [](const R& r) -> QVariant { return r.first_of_mesh; }},
};
static_assert(roles_in_order(roles));
}  // namespace

InspectorModel::InspectorModel(QObject* parent) : RowListModel(roles, DimRole, parent) {}

int InspectorModel::node() const {
    return plan_ && rank_ >= 0 ? static_cast<int>(plan_->placement().node_of(rank_)) : -1;
}

int InspectorModel::local_rank() const {
    return plan_ && rank_ >= 0 ? static_cast<int>(plan_->placement().local_rank_of(rank_)) : -1;
}

QString InspectorModel::coordinate_text(std::string_view mesh) const {
    if (!plan_ || rank_ < 0) return {};
    const PlanMesh* pm = plan_->mesh(mesh);
    if (pm == nullptr) return {};
    const auto names = pm->mesh.dim_names();
    const auto coordinate = pm->mesh.coordinate(rank_);
    QString out = QStringLiteral("(");
    for (std::size_t d = 0; d < names.size(); ++d)
        out += QStringLiteral("%1%2 %3")
                   .arg(d ? QStringLiteral(", ") : QString(), QString::fromStdString(names[d]))
                   .arg(coordinate[d]);
    return out + QStringLiteral(")");
}

QString InspectorModel::members_text(const std::vector<std::int64_t>& ranks) {
    constexpr std::size_t shown_in_full = 24;
    constexpr std::size_t head = 16;
    QString out;
    const auto append = [&out](std::int64_t r) {
        if (!out.isEmpty()) out += QStringLiteral(", ");
        out += QString::number(r);
    };
    if (ranks.size() <= shown_in_full) {
        for (std::int64_t r : ranks) append(r);
        return out;
    }
    for (std::size_t i = 0; i < head; ++i) append(ranks[i]);
    out += QStringLiteral(", …, %1  (%2 ranks)").arg(ranks.back()).arg(ranks.size());
    return out;
}

void InspectorModel::set(const std::shared_ptr<const Plan>& plan, std::int64_t rank) {
    if (!plan || rank < 0 || rank >= plan->topology().world()) rank = -1;
    std::vector<InspectorRow> rows;
    if (rank >= 0) {
        const Placement& placement = plan->placement();
        for (const PlanMesh& pm : plan->meshes()) {
            const auto names = pm.mesh.dim_names();
            for (std::size_t d = 0; d < pm.mesh.ndim(); ++d) {
                InspectorRow row{QString::fromStdString(pm.name),
                                 QString::fromStdString(names[d]),
                                 pm.mesh.coordinate(rank, d),
                                 pm.mesh.group_index(rank, d, plan->order()),
                                 pm.mesh.group_of(rank, d),
                                 1,
                                 false};
                // Members ascend and nodes follow ranks, so counting changes counts nodes.
                for (std::size_t i = 1; i < row.members.size(); ++i)
                    if (placement.node_of(row.members[i]) != placement.node_of(row.members[i - 1])) ++row.nodes;
                row.first_of_mesh = rows.empty() || rows.back().mesh != row.mesh;
                rows.push_back(std::move(row));
            }
        }
    }
    setRows(std::move(rows), [&] {
        plan_ = plan;
        rank_ = rank;
    });
    emit selectionChanged();
}

}  // namespace meshscope::ui
