#include "meshscope/mesh/plan.h"

#include <map>

#include "meshscope/mesh/model_mesh.h"
#include "meshscope/mesh/parallel_state.h"

namespace meshscope {

namespace {
// Only the dims whose collectives run inside every layer are worth a warning; dp, edp and efsdp groups
// crossing nodes is the normal shape of a multi-node job.
const std::map<std::string, std::string, std::less<>>& consequences() {
    static const std::map<std::string, std::string, std::less<>> table{
        {"ep", "the all-to-all leaves NVLink"},
        {"cp", "context-parallel exchanges leave NVLink"},
        {"expert_cp", "expert context-parallel exchanges leave NVLink"},
    };
    return table;
}
}  // namespace

std::vector<Warning> placement_warnings(const std::vector<PlanMesh>& meshes, const Placement& placement) {
    std::vector<Warning> out;
    for (const auto& pm : meshes)
        for (const auto& span : pm.spans) {
            const auto it = consequences().find(span.dim);
            if (it == consequences().end() || span.cross_node_groups == 0) continue;
            out.push_back({span.dim + "_cross_node",
                           span.dim + " groups span " + std::to_string(span.max_nodes) + " nodes: " + it->second});
        }
    if (placement.world % placement.gpus_per_node != 0) {
        // The last node is only partly used: ranks there share its NVLink domain with whatever else runs on it.
        out.push_back({"partial_node", "world size " + std::to_string(placement.world) + " is not a multiple of " +
                                           std::to_string(placement.gpus_per_node) + " GPUs per node: node " +
                                           std::to_string(placement.nodes() - 1) + " runs only " +
                                           std::to_string(placement.world % placement.gpus_per_node) + " ranks"});
    }
    return out;
}

Expected<Plan> Plan::make(const Topology& topology, std::int64_t gpus_per_node, CreationOrder order) {
    auto placement = Placement::make(topology.world(), gpus_per_node);
    if (!placement) return placement.error();
    Plan plan;
    plan.topology_ = topology;
    plan.placement_ = *placement;
    plan.order_ = order;

    auto add = [&](std::string name, Expected<DeviceMesh> mesh) -> std::optional<Error> {
        if (!mesh) return mesh.error();
        PlanMesh pm{std::move(name), *mesh, {}};
        for (std::size_t d = 0; d < pm.mesh.ndim(); ++d)
            pm.spans.push_back(analyze_dim(pm.mesh, pm.name, d, *placement));
        plan.meshes_.push_back(std::move(pm));
        return std::nullopt;
    };
    // In the order every rank builds them: LlamaFactory's model and data meshes, then FSDPTurbo's expert mesh.
    if (auto error = add(std::string(model_mesh_name), make_model_mesh(topology))) return *error;
    if (auto error = add("data", make_data_mesh(topology))) return *error;
    if (topology.has_expert_mesh())
        if (auto error = add(std::string(ParallelState::expert_mesh_name), make_expert_mesh(topology))) return *error;
    plan.warnings_ = placement_warnings(plan.meshes_, plan.placement_);
    return plan;
}

const PlanMesh* Plan::mesh(std::string_view name) const noexcept {
    for (const auto& pm : meshes_)
        if (pm.name == name) return &pm;
    return nullptr;
}

Expected<std::int64_t> experts_per_rank(std::int64_t experts, std::int64_t ep) {
    if (experts < 1)
        return ValueError("num_experts must be positive, got " + std::to_string(experts) + ".", Input::experts,
                          Rule::positive);
    if (ep < 1)
        return ValueError("ep_size must be positive, got " + std::to_string(ep) + ".", Input::ep, Rule::positive);
    if (experts % ep != 0)
        return ValueError("num_experts must be divisible by ep_size, got " + std::to_string(experts) + " % " +
                              std::to_string(ep) + " != 0.",
                          Input::ep, Rule::divides);
    return experts / ep;
}

}  // namespace meshscope
