// The JSON of POST /api/v1/batches (docs/live-at-scale.md, "Batches (relays)"), as the relay writes it
// upstream and reads it from a relay below it, and how one body's result becomes that rank's HTTP answer.
// Plain C++ (nlohmann/json): no Beast, no Qt, so it compiles fast and is tested on its own.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "meshscope/error.h"
#include "meshscope/seen_ranks.h"

namespace meshscope::relay {

// One body's result, as in {"results": [...]}: {"status": 200, "accepted": n}, {"status": 400, "error": ...}
// or {"status": 503, "error": ..., "retry_after": s}.
using BodyResult = nlohmann::json;

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

// A result made here (not by the collector): {"status": s, "error": message} plus "retry_after" when given.
[[nodiscard]] BodyResult make_result(int status, const std::string& message, std::optional<int> retry_after = {});

// The HTTP answer a rank gets for one result: its status, the JSON body without "status" and
// "retry_after" ({"accepted": n} or {"error": ...}) and the Retry-After seconds for a 503.
struct RankAnswer {
    int status = 0;
    std::string body;
    std::optional<int> retry_after;
};
[[nodiscard]] RankAnswer rank_answer(const BodyResult& result);

// {"error": message}, as every error body of the collector.
[[nodiscard]] std::string error_json(std::string_view message);

}  // namespace meshscope::relay
