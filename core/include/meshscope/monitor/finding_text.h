// The words of every finding: one-line message and fix per kind (docs/findings.md quotes them).
// Pure functions of what the monitor measured, so tests can check the exact text.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "meshscope/monitor/finding.h"
#include "monitor/job.h"

namespace meshscope::monitor {

// "rank 5", "ranks 3, 7", "ranks 16-23, 40", "ranks 0-3, 8, 12, ... (40 ranks)"; ranks sorted, distinct.
[[nodiscard]] std::string ranks_text(std::span<const std::int64_t> ranks);
// "2.5 s", "0.25 s", "120 s"
[[nodiscard]] std::string seconds_text(double seconds);

// FSDPTurbo's "FSDPTurbo parallel state is already initialized with (16, 1, 2), got (16, 1, 4)." ->
// {"(16, 1, 2)", "(16, 1, 4)"}.
[[nodiscard]] std::optional<std::pair<std::string, std::string>> parse_reinit_message(std::string_view message);

// ranks: the holders of `value`, which differs from aspect.reference.
[[nodiscard]] Finding topology_mismatch(const Aspect& aspect, const std::string& value,
                                        std::vector<std::int64_t> ranks);

struct GroupEvidence {
    std::int64_t rank = 0;
    std::string dim;
    Group reported;
    std::optional<Group> expected;  // from the reference topology
    std::optional<std::string>
        topology_text;  // "(dp, cp, ep) = (8, 2, 2)", "the model mesh (mp_replicate, mp_shard) = (2, 8)"
    std::optional<std::pair<std::int64_t, Group>> peer;  // a member that reports this group differently
};
[[nodiscard]] Finding group_disagreement(const GroupEvidence& evidence);

// The first rank at fault along a dim, what it created at its creation index, what most ranks created there, and
// the group's members that created it at another index (the first such index; empty when there is none).
struct CreationEvidence {
    std::string dim;
    std::vector<std::int64_t> faulty;  // every rank at fault along the dim, sorted
    std::int64_t rank = 0;             // faulty.front()
    Group group;
    std::int64_t index = 0;
    Group reference;                              // the group most ranks created at `index`
    std::vector<std::int64_t> reference_ranks;    // sorted
    std::vector<std::int64_t> members_elsewhere;  // sorted
    std::int64_t elsewhere_index = 0;
};
[[nodiscard]] Finding creation_order_mismatch(const CreationEvidence& evidence);

// The missing_rank finding names at most this many ranks (the lowest), and counts the rest: a job may claim 2^20
// ranks and report one, and the finding (its copies in the stream and the API) must not cost its world.
inline constexpr std::size_t missing_named_limit = 1024;
// `ranks`: the ones named (sorted); `missing`: how many are missing in all (-1: ranks.size()).
[[nodiscard]] Finding missing_rank(std::vector<std::int64_t> ranks, std::int64_t world_size, double missing_after,
                                   std::int64_t missing = -1);
[[nodiscard]] Finding duplicate_rank(std::int64_t rank, const std::vector<Identity>& identities);
[[nodiscard]] Finding straggler(Phase phase, std::vector<SlowRank> slow, double median, std::size_t peers);
[[nodiscard]] Finding stale_rank(std::vector<std::int64_t> ranks, double stale_after);
[[nodiscard]] Finding rank_error(std::int64_t rank, Phase phase, const std::optional<ReportedError>& error,
                                 const std::optional<std::string>& host);
[[nodiscard]] Finding reinit_mismatch(std::int64_t rank, const std::string& current, const std::string& requested);

}  // namespace meshscope::monitor
