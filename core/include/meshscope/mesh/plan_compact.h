// The plan as a browser needs it for any world (docs/plan-format.md, "The compact form"): per mesh its
// shape, strides, group-index weights and grid, instead of every group and rank; and one rank's groups with
// where they fall on nodes (the planners' inspector). Both come from the core's layout, so no client
// re-implements PyTorch's rules.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "meshscope/mesh/plan.h"

namespace meshscope {

inline constexpr std::string_view compact_plan_schema = "meshscope.plan.compact/1";

// Size independent of the world: topology, cluster, creation order, meshes (shape, strides, group weights,
// spans, grid) and warnings.
void write_plan_compact(std::ostream& out, const Plan& plan);

// Rank's node, local rank and, per mesh and dim, its coordinate, its group (index in the creation order,
// size, first member and stride between members), the nodes that group spans and whether it leaves the node.
// The rank must be inside the plan (0 <= rank < world).
[[nodiscard]] nlohmann::json rank_groups_json(const Plan& plan, std::int64_t rank);

}  // namespace meshscope
