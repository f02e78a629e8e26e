// The advise API (docs/cost-model.md, "meshscope.advice/1"): GET /api/v1/advise?model=NAME&world=W[&...], core's
// advise as meshscope.advice/1, so the web Planner ranks layouts with the numbers `meshscope advise` prints. Bad
// parameters get 400 {"error", "hint", "field"}: the cost inputs judged by core's CostRequest (its exact message and
// the input it names), world, gpus_per_node and show here. Answered on the plan worker's thread.
#pragma once

#include <cstdint>
#include <string_view>

#include "http_exchange.h"

namespace meshscope::server {

inline constexpr std::string_view advise_path = "/api/v1/advise";
// The largest world the API ranks (as the plan API plans): ranking is arithmetic, but the answer grows with `show`.
inline constexpr std::int64_t max_api_advise_world = std::int64_t{1} << 20;

[[nodiscard]] inline bool is_advise_path(std::string_view path) noexcept {
    return path == advise_path;
}
// query: still percent-encoded.
[[nodiscard]] HttpReply answer_advise(std::string_view query);

}  // namespace meshscope::server
