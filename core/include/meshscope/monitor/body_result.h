// One body's result in a batch: what the collector made of one rank's request body (POST /api/v1/batches'
// "results", docs/live-at-scale.md "Batches (relays)"). The collector answers it, a relay passes it on to the rank
// that sent the body or down to a relay below; in between it is this struct, and JSON only where it leaves or
// enters a process. Plain data, no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "meshscope/mesh/error.h"

namespace meshscope {

struct BodyResult {
    int status = 200;                // 200 stored; 400 refused; 413 too large; 503 shed, unreachable or not stored
    std::int64_t accepted = 0;       // the events stored (status 200)
    std::string error;               // what is wrong (any other status): "collector busy: heartbeat not stored"
    std::optional<int> retry_after;  // seconds before the sender tries again (the Retry-After of a 503)
    friend bool operator==(const BodyResult&, const BodyResult&) = default;
};

// {"status": 200, "accepted": n} for status 200, else {"status": s, "error": "..."} and "retry_after" when set.
[[nodiscard]] nlohmann::json to_json(const BodyResult& result);

// Reads what to_json writes, leniently, for a relay passes its upstream's results on rather than judging them:
// only "status" is required (ValueError `field "status" must be an integer`); "accepted", "error" and "retry_after"
// of another type read as absent, and a retry_after is rounded up to whole seconds (a thousandth
// forgiven), at least 1.
[[nodiscard]] Expected<BodyResult> body_result_from_json(const nlohmann::json& value);

}  // namespace meshscope
