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

#include "meshscope/mesh/error.h"

namespace meshscope {

// Job -> ranks, each list sorted and without repeats.
using SeenRanks = std::map<std::string, std::vector<std::int64_t>, std::less<>>;

// A batch names two such sets: "seen" (alive, events not passed on) and "held" (of those, the ranks whose
// lifecycle events wait in their reporters). ValueError "\"<field>\" must be {\"<job>\": [<rank>, ...]}" for
// anything but non-negative integer ranks by non-empty job; the lists come back sorted and without repeats.
[[nodiscard]] Expected<SeenRanks> seen_ranks_from_json(const nlohmann::json& value, std::string_view field = "seen");
[[nodiscard]] nlohmann::json to_json(const SeenRanks& seen);
// Adds `more` to `into`, keeping each list sorted and without repeats.
void merge_seen(SeenRanks& into, const SeenRanks& more);
// How many (job, rank) pairs.
[[nodiscard]] std::size_t seen_count(const SeenRanks& seen) noexcept;

}  // namespace meshscope
