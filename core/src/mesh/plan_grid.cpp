#include "meshscope/mesh/plan_grid.h"

#include <algorithm>

#include "meshscope/mesh/model_mesh.h"

namespace meshscope {

PlanGrid plan_grid(const Plan& plan, std::string_view mesh) {
    const Topology& t = plan.topology();
    PlanGrid grid;
    if (mesh == model_mesh_name) {
        // rank = block * columns + column: a block never straddles two mp_shard groups when columns divides
        // mp_shard, so take its largest divisor up to a node's GPUs.
        const std::int64_t wrap = std::max<std::int64_t>(1, plan.placement().gpus_per_node);
        for (std::int64_t d = 1; d <= std::min(wrap, t.mp_shard); ++d)
            if (t.mp_shard % d == 0) grid.columns = d;
        grid.blocks = t.world() / grid.columns;
        return grid;
    }
    grid.rows = t.cp;
    if (mesh == "expert" && t.has_expert_mesh()) {
        grid.columns = t.ep;
        grid.blocks = t.edp * t.efsdp;
        return grid;
    }
    // Wrap dp like the expert mesh when there is one; otherwise one node's worth of dp per block.
    const std::int64_t gpus = plan.placement().gpus_per_node;
    const std::int64_t wrap = t.ep > 1 ? t.ep : std::max<std::int64_t>(1, gpus / t.cp);
    grid.columns = std::clamp<std::int64_t>(wrap, 1, t.dp);
    grid.blocks = (t.dp + grid.columns - 1) / grid.columns;
    return grid;
}

}  // namespace meshscope
