// The plan's JSON form, schema "meshscope.plan/1" (docs/plan-format.md). A stable contract: the CLI, the
// planner's export, the live protocol's declared plan and the tests all read and write it here.
#pragma once

#include <cstdint>
#include <iosfwd>

#include <nlohmann/json_fwd.hpp>

#include "meshscope/mesh/plan.h"

namespace meshscope {

struct PlanJsonOptions {
    bool groups = true;  // list every group of every dim
    bool ranks = true;   // list every rank with node, local rank and coordinates
};

// Streams the plan; memory stays bounded however large the world (groups and ranks are written as
// they are produced).
void write_plan_json(std::ostream& out, const Plan& plan, const PlanJsonOptions& options = {});
[[nodiscard]] nlohmann::json to_json(const Plan& plan, const PlanJsonOptions& options = {});

// The largest world plan_from_json rebuilds, the live protocol's largest (EventLimits::max_world_size): reading
// is linear in the world, and larger documents are refused instead of stalling the reader.
inline constexpr std::int64_t max_read_plan_world = std::int64_t{1} << 20;

// Reads a plan back: checks the schema, rebuilds it from topology, cluster and creation order, and when
// the document lists groups, checks them against the rebuilt plan (ValueError naming the first mismatch).
[[nodiscard]] Expected<Plan> plan_from_json(const nlohmann::json& document);

}  // namespace meshscope
