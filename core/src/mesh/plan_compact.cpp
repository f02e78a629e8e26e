#include "meshscope/mesh/plan_compact.h"

#include <ostream>

#include <nlohmann/json.hpp>

#include "meshscope/mesh/plan_grid.h"

namespace meshscope {

namespace {
using nlohmann::json;

// Row-major (PyTorch's arange(world).view(shape)): stride_i = prod(shape[i+1:]).
std::vector<std::int64_t> strides_of(const std::vector<std::int64_t>& shape) {
    std::vector<std::int64_t> strides(shape.size(), 1);
    for (std::size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
    return strides;
}

// Both creation orders number a dim's groups in mixed radix over the other dims, so the index is linear in
// the coordinate: index(rank) = sum_k coordinate_k * weight_k. The weights are read off the core's own
// group_index at unit coordinates, never re-derived from the order's rule.
std::vector<std::int64_t> group_weights(const DeviceMesh& mesh, std::size_t dim, CreationOrder order) {
    const auto shape = mesh.shape();
    const auto strides = strides_of(shape);
    std::vector<std::int64_t> weights(shape.size(), 0);
    for (std::size_t k = 0; k < shape.size(); ++k)
        if (k != dim && shape[k] > 1) weights[k] = mesh.group_index(strides[k], dim, order);
    return weights;
}
}  // namespace

void write_plan_compact(std::ostream& out, const Plan& plan) {
    const auto& t = plan.topology();
    const auto& p = plan.placement();
    json doc;
    doc["schema"] = std::string(compact_plan_schema);
    doc["topology"] = {{"world", t.world()},
                       {"dp", t.dp},
                       {"cp", t.cp},
                       {"ep", t.ep},
                       {"efsdp", t.efsdp},
                       {"edp", t.edp},
                       {"mp_replicate", t.mp_replicate},
                       {"mp_shard", t.mp_shard}};
    doc["cluster"] = {{"gpus_per_node", p.gpus_per_node}, {"nodes", p.nodes()}};
    doc["creation_order"] = std::string(to_string(plan.order()));
    json meshes = json::array();
    for (const PlanMesh& pm : plan.meshes()) {
        const auto names = pm.mesh.dim_names();
        json weights = json::object(), spans = json::object();
        for (std::size_t d = 0; d < names.size(); ++d) {
            weights[names[d]] = group_weights(pm.mesh, d, plan.order());
            const DimSpan& s = pm.spans[d];
            spans[s.dim] = {{"group_size", s.group_size},
                            {"groups", s.groups},
                            {"cross_node_groups", s.cross_node_groups},
                            {"max_nodes", s.max_nodes}};
        }
        const PlanGrid grid = plan_grid(plan, pm.name);
        meshes.push_back({{"name", pm.name},
                          {"dim_names", names},
                          {"shape", pm.mesh.shape()},
                          {"strides", strides_of(pm.mesh.shape())},
                          {"group_weights", std::move(weights)},
                          {"spans", std::move(spans)},
                          {"grid", {{"blocks", grid.blocks}, {"columns", grid.columns}, {"rows", grid.rows}}}});
    }
    doc["meshes"] = std::move(meshes);
    json warnings = json::array();
    for (const auto& w : plan.warnings()) warnings.push_back({{"code", w.code}, {"message", w.message}});
    doc["warnings"] = std::move(warnings);
    out << doc.dump() << "\n";
}

json rank_groups_json(const Plan& plan, std::int64_t rank) {
    const Placement& placement = plan.placement();
    json meshes = json::array();
    for (const PlanMesh& pm : plan.meshes()) {
        const auto names = pm.mesh.dim_names();
        const auto strides = strides_of(pm.mesh.shape());
        json groups = json::array();
        for (std::size_t d = 0; d < names.size(); ++d) {
            const auto members = pm.mesh.group_of(rank, d);
            // Members ascend and nodes follow ranks, so counting changes counts nodes.
            std::int64_t nodes = 1;
            for (std::size_t i = 1; i < members.size(); ++i)
                if (placement.node_of(members[i]) != placement.node_of(members[i - 1])) ++nodes;
            groups.push_back({{"dim", names[d]},
                              {"coordinate", pm.mesh.coordinate(rank, d)},
                              {"index", pm.mesh.group_index(rank, d, plan.order())},
                              {"size", static_cast<std::int64_t>(members.size())},
                              {"first", members.front()},
                              {"stride", strides[d]},
                              {"nodes", nodes},
                              {"leaves_node", leaves_node(members, placement)}});
        }
        meshes.push_back({{"name", pm.name}, {"coords", pm.mesh.coordinate(rank)}, {"groups", std::move(groups)}});
    }
    return {{"rank", rank},
            {"node", placement.node_of(rank)},
            {"local_rank", placement.local_rank_of(rank)},
            {"meshes", std::move(meshes)}};
}

}  // namespace meshscope
