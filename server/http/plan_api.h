// The plan API (docs/collector.md, "Plan API"): GET /api/v1/plan, /api/v1/plan/export and /api/v1/plan/rank,
// answered from the core (plan_answer, the exports, the compact form, a rank's groups) so the web planner
// re-implements no layout. Bad parameters get 400 {"error", "hint", "field", "suggestions"} with the core's
// exact message and the CLI's hint. Pure functions of the request: no collector state, no HTTP engine.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "http_exchange.h"
#include "meshscope/mesh/plan.h"

namespace meshscope::server {

// The largest world the API plans: building a plan walks every group, so it is bounded like a declared
// plan (max_read_plan_world, 2^20); `meshscope plan` has no such limit.
inline constexpr std::int64_t max_api_plan_world = std::int64_t{1} << 20;
// The largest world answered with every group and rank (form=full, export format=json): the answer is built
// in memory, about 160 bytes a rank; the planner's own limit.
inline constexpr std::int64_t max_full_plan_world = 65536;
// form=compact is the default above this many ranks.
inline constexpr std::int64_t compact_plan_above = 4096;

// The last plan built, for the next request of the same layout: a page asks for the plan, then for one rank
// after another of it, and each would otherwise walk every group again. One thread uses it (the plan worker).
struct PlanCache {
    std::shared_ptr<const Plan> plan;  // plan_answer reuses it for a request of the same layout
};

[[nodiscard]] bool is_plan_path(std::string_view path) noexcept;
// path: one of the three plan routes; query: still percent-encoded.
[[nodiscard]] HttpReply answer_plan(std::string_view path, std::string_view query, PlanCache* cache = nullptr);

}  // namespace meshscope::server
