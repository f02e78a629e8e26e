// Proof of life in bulk: the ranks a relay heard from whose events it did not pass on (a heartbeat shed, a
// lifecycle event refused with 503 + Retry-After under load). The relay sends them upstream with its next
// batch as "seen": {"<job>": [rank, ...]} (docs/protocol.md, "Batches"), and the collector marks each rank
// seen (Monitor::seen): shedding never makes a false stale_rank or missing_rank, however many ranks a relay
// holds back. Plain data, no I/O.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "meshscope/error.h"

namespace meshscope {

// Job -> ranks, each list sorted and without repeats.
using SeenRanks = std::map<std::string, std::vector<std::int64_t>, std::less<>>;

// The exact error text for a "seen" that is not {"<job>": [<rank>, ...]} (non-negative integer ranks).
inline constexpr std::string_view seen_ranks_shape = R"("seen" must be {"<job>": [<rank>, ...]})";

// ValueError(seen_ranks_shape) for anything else; the lists come back sorted and without repeats.
[[nodiscard]] Expected<SeenRanks> seen_ranks_from_json(const nlohmann::json& value);
[[nodiscard]] nlohmann::json to_json(const SeenRanks& seen);
// Adds `more` to `into`, keeping each list sorted and without repeats.
void merge_seen(SeenRanks& into, const SeenRanks& more);
// How many (job, rank) pairs.
[[nodiscard]] std::size_t seen_count(const SeenRanks& seen) noexcept;

}  // namespace meshscope
