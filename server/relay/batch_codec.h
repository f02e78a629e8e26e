// The JSON of POST /api/v1/batches (docs/live-at-scale.md, "Batches (relays)"), as the relay writes it
// upstream and reads it from a relay below it, and how one body's result becomes that rank's HTTP answer.
// Plain C++ (nlohmann/json): no Beast, no Qt, so it compiles fast and is tested on its own.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "meshscope/mesh/error.h"
#include "meshscope/monitor/body_result.h"
#include "meshscope/monitor/seen_ranks.h"

namespace meshscope::relay {

// One body's result (meshscope/body_result.h): data from the upstream's answer to the rank's or lower relay's.
using meshscope::BodyResult;

// {"bodies": ["<body>", ...]} for the given bodies, in order, plus "seen": {"<job>": [rank, ...]} and "held"
// (the same shape) when they name any rank: the ranks heard from whose events were not passed on, and those of
// them whose lifecycle events wait in their reporters (meshscope/seen_ranks.h).
[[nodiscard]] std::string encode_batch(const std::vector<const std::string*>& bodies, const SeenRanks& seen = {},
                                       const SeenRanks& held = {});

struct BatchRequest {
    std::vector<std::string> bodies;
    SeenRanks seen;
    SeenRanks held;
};
// The bodies (and "seen" and "held", optional) of a batch request, or ValueError "the body must be
// {\"bodies\": [\"<request body>\", ...]}" (the collector's text), or "\"seen\" must be ..." (seen_ranks.h).
[[nodiscard]] Expected<BatchRequest> decode_batch(std::string_view text);

// The results of an upstream answer to a batch of `count` bodies, or ValueError naming what is wrong
// ("upstream answer has 3 results for 4 bodies", "upstream answer is not {\"results\": [...]}").
[[nodiscard]] Expected<std::vector<BodyResult>> decode_results(std::string_view text, std::size_t count);

// {"results": [...]} for the given results.
[[nodiscard]] std::string encode_results(const std::vector<BodyResult>& results);

// A result made here (not by the collector): status s, error `message`, and retry_after when given.
[[nodiscard]] BodyResult make_result(int status, const std::string& message, std::optional<int> retry_after = {});

// The HTTP answer a rank gets for one result: its status, the JSON body ({"accepted": n} for a 200, else
// {"error": ...}) and the Retry-After seconds (at least 1; a 503 always has one, 1 when the result gave none).
struct RankAnswer {
    int status = 0;
    std::string body;
    std::optional<int> retry_after;
};
[[nodiscard]] RankAnswer rank_answer(const BodyResult& result);
// The same for a result as an entry of {"results": [...]} reads (body_result_from_json); one without an integer
// "status" is a 502 {"error": "upstream answer has a result without an integer \"status\""}.
[[nodiscard]] RankAnswer rank_answer(const nlohmann::json& result);

// {"error": message}, as every error body of the collector.
[[nodiscard]] std::string error_json(std::string_view message);

// The "error" of an upstream's {"error": ...} answer (a whole batch refused), or "" when it has none.
[[nodiscard]] std::string error_text(std::string_view body);

}  // namespace meshscope::relay
