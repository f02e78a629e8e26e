// The peers API (docs/peers.md): GET /api/v1/peers?world=W&ep=E[&cp=C][&gpus_per_node=G], core's compare_peers
// as meshscope.peers/1, so the web page lays out no framework itself. A framework refusing the shape is part of
// the 200 answer (its own error text); bad parameters get 400 {"error", "hint", "field"}. Answered on the plan
// worker's thread (a world of 65536 lists every group of every framework).
#pragma once

#include <string_view>

#include "http_exchange.h"

namespace meshscope::server {

inline constexpr std::string_view peers_path = "/api/v1/peers";

[[nodiscard]] inline bool is_peers_path(std::string_view path) noexcept {
    return path == peers_path;
}
// query: still percent-encoded.
[[nodiscard]] HttpReply answer_peers(std::string_view query);

}  // namespace meshscope::server
