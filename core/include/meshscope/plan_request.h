// PlanRequest: a plan as a person asks for it (the CLI's flags, the collector's /api/v1/plan query), judged by
// the core, and the advice that goes with a rejection: which input is wrong, the hint line the CLI prints and
// the values that would fix it. The CLI, the collector and the web page all show these same texts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "meshscope/plan.h"

namespace meshscope {

struct PlanRequest {
    std::optional<std::int64_t> dp;     // dp or world (or both, when they must agree)
    std::optional<std::int64_t> world;  // dp = world / cp
    std::int64_t cp = 1;
    std::int64_t ep = 1;
    std::int64_t gpus_per_node = 8;
    CreationOrder order = CreationOrder::torch29;
    std::int64_t mp_replicate = 1;         // LlamaFactory's model mesh (mp_replicate, mp_shard)
    std::optional<std::int64_t> mp_shard;  // default world / mp_replicate
};

// Topology::make or ::from_world, with the checks below: cheap at any size, so a caller can bound the world
// before make_plan, whose cost grows with it.
[[nodiscard]] Expected<Topology> make_topology(const PlanRequest& request);
// make_topology, then Plan::make. With both dp and world, first LlamaFactory's own check
// `dp_size * cp_size must equal to world_size, got {d} * {c} != {W}.`; with neither, `give dp or world`.
[[nodiscard]] Expected<Plan> make_plan(const PlanRequest& request);

// What a rejection means for the person who typed the request.
struct PlanAdvice {
    std::string field;  // the input to change: "dp", "world", "cp", "ep", "mp_replicate", "gpus_per_node"
    std::string hint;   // "hint: ep must divide dp = 16; valid ep: 1, 2, 4, 8, 16"
    std::vector<std::int64_t> values;  // values of `field` that would fix it (may be empty)
};

[[nodiscard]] PlanAdvice plan_advice(const PlanRequest& request, const Error& error);

// Whole decimal integers only (an optional '+'), as every plan input is typed: nullopt, or
// "{name} expects an integer, got '{text}'." / "{name} is out of range, got '{text}'."
[[nodiscard]] std::optional<std::string> parse_plan_integer(std::string_view name, std::string_view text,
                                                            std::int64_t& out);

}  // namespace meshscope
