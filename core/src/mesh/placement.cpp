#include "meshscope/mesh/placement.h"

namespace meshscope {

Expected<Placement> Placement::make(std::int64_t world, std::int64_t gpus_per_node) {
    if (gpus_per_node < 1)
        return ValueError("gpus_per_node must be positive, got " + std::to_string(gpus_per_node) + ".",
                          Input::gpus_per_node, Rule::positive);
    if (world < 1)
        return ValueError("world_size must be positive, got " + std::to_string(world) + ".", Input::world,
                          Rule::positive);
    return Placement{world, gpus_per_node};
}

bool leaves_node(std::span<const std::int64_t> ranks, const Placement& placement) noexcept {
    if (ranks.empty()) return false;
    const std::int64_t node = placement.node_of(ranks.front());
    for (std::int64_t r : ranks)
        if (placement.node_of(r) != node) return true;
    return false;
}

DimSpan analyze_dim(const DeviceMesh& mesh, std::string mesh_name, std::size_t dim, const Placement& placement) {
    DimSpan span{std::move(mesh_name), mesh.dim_names().at(dim), mesh.dim_size(dim), mesh.group_count(dim), 0, 0};
    // Members are sorted by coordinate and ranks grow with it, so node ids along a group never decrease:
    // counting changes gives the number of distinct nodes.
    mesh.for_each_group(dim, CreationOrder::torch29, [&](std::int64_t, std::span<const std::int64_t> ranks) {
        std::int64_t nodes = 1;
        for (std::size_t i = 1; i < ranks.size(); ++i)
            if (placement.node_of(ranks[i]) != placement.node_of(ranks[i - 1])) ++nodes;
        if (nodes > 1) ++span.cross_node_groups;
        if (nodes > span.max_nodes) span.max_nodes = nodes;
    });
    return span;
}

}  // namespace meshscope
