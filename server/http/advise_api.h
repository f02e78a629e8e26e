// The advise API (docs/cost-model.md, "meshscope.advice/1"): GET /api/v1/advise?model=NAME&world=W[&...], core's
// advise as meshscope.advice/1, so the web Planner ranks layouts with the numbers `meshscope advise` prints. Bad
// parameters get 400 {"error", "hint", "field"}: the cost inputs judged by core's CostRequest (its exact message and
// the input it names), world, gpus_per_node and show here. Answered on the plan worker's thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "http_exchange.h"
#include "meshscope/cost/cluster_profile.h"

namespace meshscope::server {

inline constexpr std::string_view advise_path = "/api/v1/advise";
// The largest world the API ranks (as the plan API plans): ranking is arithmetic, but the answer grows with `show`.
inline constexpr std::int64_t max_api_advise_world = std::int64_t{1} << 20;

[[nodiscard]] inline bool is_advise_path(std::string_view path) noexcept {
    return path == advise_path;
}
// query: still percent-encoded. cluster_profile: the user's (serve --cluster-profile), whose constants the answer
// uses where its hardware is the query's, and whose hardware and network are the defaults; null: the presets. The
// answer's "cluster_profile" says which constants it used and where each comes from (cluster_constants_json).
[[nodiscard]] HttpReply answer_advise(std::string_view query,
                                      const std::shared_ptr<const cost::LoadedClusterProfile>& cluster_profile = {});

}  // namespace meshscope::server
