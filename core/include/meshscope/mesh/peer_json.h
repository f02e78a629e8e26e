// The peer comparison's JSON form, schema "meshscope.peers/1" (docs/peers.md): what `meshscope peers --format
// json` prints and GET /api/v1/peers answers, and what the web page renders as it is.
#pragma once

#include <span>

#include <nlohmann/json_fwd.hpp>

#include "meshscope/mesh/peer_layout.h"

namespace meshscope {

inline constexpr std::string_view peers_schema = "meshscope.peers/1";

// {"schema", "world", "cp", "ep", "gpus_per_node", "frameworks": [{"framework", "dims": [{"name", "groups",
// "cross_node_groups"}]} or {"framework", "error": {"type", "message"}}]}, frameworks in all_frameworks order.
[[nodiscard]] nlohmann::json peers_to_json(const PeerShape& shape, std::span<const PeerOutcome> outcomes);

}  // namespace meshscope
