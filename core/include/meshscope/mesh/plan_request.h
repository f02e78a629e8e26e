// PlanRequest: a plan as a person asks for it (the CLI's flags, the collector's /api/v1/plan query, the QML
// planner's inputs), judged by the core, and the advice that goes with a rejection: which input is wrong, the
// hint line the CLI prints and the values that would fix it. Every front end builds a PlanRequest and calls
// plan_answer, so the CLI, the collector, the web page and the desktop planner check in one order and show the
// same texts.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "meshscope/mesh/plan.h"

namespace meshscope {

struct PlanRequest {
    std::optional<std::int64_t> dp;     // dp or world (or both, when they must agree)
    std::optional<std::int64_t> world;  // dp = world / cp
    std::optional<std::int64_t> nodes;  // without dp and world: world = nodes * gpus_per_node (the planner's)
    std::int64_t cp = 1;
    std::int64_t ep = 1;
    std::int64_t gpus_per_node = 8;
    CreationOrder order = CreationOrder::torch29;
    std::int64_t mp_replicate = 1;         // LlamaFactory's model mesh (mp_replicate, mp_shard)
    std::optional<std::int64_t> mp_shard;  // default world / mp_replicate
};

// Topology::make or ::from_world, with the checks below: cheap at any size, so a caller can bound the world
// before make_plan, whose cost grows with it. With nodes (and neither dp nor world), gpus_per_node is checked
// first (`gpus_per_node must be positive, got 0.`): without it the nodes give no world.
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

// Reads error.input() and error.rule() (set where core checks), never the message.
[[nodiscard]] PlanAdvice plan_advice(const PlanRequest& request, const Error& error);

// A refused request: the error (core's exact message, or a front end's own bound) and what it means.
struct PlanRejection {
    Error error;
    PlanAdvice advice;
};

// A front end's own limit on the plans it builds (the collector's largest world, the planner's largest drawing):
// called with the checked topology before the plan is built, whose cost grows with the world.
using PlanBound = std::function<std::optional<PlanRejection>(const Topology&)>;

// The plan, or the rejection a front end shows.
struct PlanAnswer {
    std::shared_ptr<const Plan> plan;  // null when rejected
    std::optional<PlanRejection> rejection;
};

// What every front end calls for a request: make_topology, then the placement (gpus_per_node), then bound, then
// the plan, whose cost grows with the world; the first error found is the rejection, with plan_advice.
// reuse: a plan already built (the last one shown); returned as is when it is the plan the request asks for
// (same topology, gpus_per_node and order), so asking again costs no rebuild.
[[nodiscard]] PlanAnswer plan_answer(const PlanRequest& request, const PlanBound& bound = {},
                                     std::shared_ptr<const Plan> reuse = {});

// Whole decimal integers only (an optional '+'), as every plan input is typed: nullopt, or
// "{name} expects an integer, got '{text}'." / "{name} is out of range, got '{text}'."
[[nodiscard]] std::optional<std::string> parse_plan_integer(std::string_view name, std::string_view text,
                                                            std::int64_t& out);

}  // namespace meshscope
