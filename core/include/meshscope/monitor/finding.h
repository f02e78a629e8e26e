// Finding: a problem the monitor found in a job, with its kind, the ranks it concerns, what is wrong and
// how to fix it, each in one line. docs/findings.md describes every kind.
//
// Usage:
//   for (const meshscope::Finding& f : monitor.findings("job-1"))
//       std::cout << to_string(f.kind) << " " << f.message << "\n   fix: " << f.fix << "\n";
//   nlohmann::json j = meshscope::to_json(f);  // {"id", "kind", "ranks", "message", "fix"[, "sources", "from"]}
//   meshscope::Expected<meshscope::Finding> back = meshscope::finding_from_json(j);  // == f
//
// `id` identifies a finding within its job for as long as it exists, so a change feed can say
// "finding updated" / "finding removed" (e.g. "group_disagreement/ep/5", "missing_rank", "straggler/communicator",
// "creation_order_mismatch/efsdp").
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "meshscope/mesh/error.h"

namespace meshscope {

// One vocabulary for the API, the UI, the docs and the simulator; to_string gives the exact JSON names.
enum class FindingKind {
    // read from a job's records (meshscope diagnose, docs/records.md): the root cause of a hang, the rank every stuck
    // group waits on, with the other findings of the hang folded under it; first in the order, so it comes first
    verdict,
    topology_mismatch,   // (dp, cp, ep), world size or a mesh differs from the majority or the declared plan
    group_disagreement,  // a reported group differs from a peer's report or from what the topology implies
    missing_rank,        // never seen, missing_after seconds after the job's first event
    duplicate_rank,      // one rank reported from two host/pid pairs
    straggler,           // a phase much slower than its peers' (median + k * MAD, with a floor)
    stale_rank,          // no event for stale_after seconds while not exited
    rank_error,          // status failed or phase error
    reinit_mismatch,     // FSDPTurbo's "already initialized with (...), got (...)." RuntimeError
    slow_group,          // meshscope-probe: a group's bus bandwidth far below its dim's other groups
    // meshscope-probe: a group's communicator did not form within the timeout
    communicator_not_formed,
    // members of a group created it at different positions of their mesh's group creations (PyTorch 2.8 and 2.9)
    creation_order_mismatch,
    // read from a job's records (meshscope diagnose, docs/records.md): members of a group ran different collectives,
    // sizes or dtypes at one sequence id (Flight Recorder)
    collective_mismatch,
    // a group's collective that some members never entered (Flight Recorder), or ranks behind (NCCL RAS)
    collective_stuck,
    // NCCL RAS cannot reach a rank's process: dead or unresponsive
    peer_unreachable,
};
inline constexpr std::size_t finding_kind_count = 15;
inline constexpr std::array<FindingKind, finding_kind_count> all_finding_kinds = {
    FindingKind::verdict,
    FindingKind::topology_mismatch,
    FindingKind::group_disagreement,
    FindingKind::missing_rank,
    FindingKind::duplicate_rank,
    FindingKind::straggler,
    FindingKind::stale_rank,
    FindingKind::rank_error,
    FindingKind::reinit_mismatch,
    FindingKind::slow_group,
    FindingKind::communicator_not_formed,
    FindingKind::creation_order_mismatch,
    FindingKind::collective_mismatch,
    FindingKind::collective_stuck,
    FindingKind::peer_unreachable,
};

[[nodiscard]] std::string_view to_string(FindingKind kind) noexcept;
[[nodiscard]] std::optional<FindingKind> parse_finding_kind(std::string_view text) noexcept;

struct Finding {
    std::string id;  // unique within the job while the finding exists
    FindingKind kind = FindingKind::rank_error;
    std::vector<std::int64_t> ranks;  // sorted, distinct: the ranks at fault
    std::string message;              // one line: what is wrong
    std::string fix;                  // one line: what to do about it
    // The records it was read from (meshscope import: "fr/nccl_trace_rank_6.json", "node0.41000:12",
    // "10.0.0.1:28028"); empty for what the monitor found itself.
    std::vector<std::string> sources;
    friend bool operator==(const Finding&, const Finding&) = default;
};

// With sources: also "sources" and "from" (sources_line), the line the desktop and the web show as it is.
[[nodiscard]] nlohmann::json to_json(const Finding& finding);

// Names a reader of the collector's JSON does not know. The vocabulary grows (a finding kind, a rank state, a phase
// or a status is added), and a desktop reads collectors newer than itself. Given an UnknownNames, the readers
// (finding_from_json, rank_state_from_json, change_from_json) keep the value such a name is in, leave the name's
// field as said below and write the name here, so that a front end shows it as written (the desktop lists a
// finding of an unknown kind under that kind's name). Without one, an unknown name is a ValueError like any other
// bad value: `field "kind" must be a finding kind (verdict, topology_mismatch, ..., peer_unreachable)`.
struct UnknownNames {
    std::string kind;                   // Finding::kind, left at its default: the finding's own kind
    std::string state;                  // RankState::state, Change::state, left at pending
    std::string phase;                  // RankState::phase, Change::phase: read as absent
    std::string status;                 // RankState::status: read as absent
    std::vector<std::string> findings;  // kinds of RankState::findings, left out of it, in the order written
    std::vector<std::string> timings;   // phases of RankState::timings, left out of it
    std::string type;                   // Change::kind, left at its default: only "job" is read
    [[nodiscard]] bool empty() const noexcept {
        return kind.empty() && state.empty() && phase.empty() && status.empty() && findings.empty() &&
               timings.empty() && type.empty();
    }
    friend bool operator==(const UnknownNames&, const UnknownNames&) = default;
};

// Reads what to_json(Finding) writes (monitor_json.cpp). "id" and "kind" are required; "ranks", "message", "fix"
// and "sources" are optional ("from" is sources_line(sources), not read). Each field is checked with an exact
// message: `field "ranks" must be an array of non-negative integers`. The collector's input bounds are not applied:
// this reads what a collector wrote. A value that is not an object: `a finding must be a JSON object`.
[[nodiscard]] Expected<Finding> finding_from_json(const nlohmann::json& value, UnknownNames* unknown = nullptr);

// "From: fr/nccl_trace_rank_6.json, node0.41000:12": the line every front end shows under a finding read from
// records; past max_sources_shown sources, "From: a, b, c and 5 more". Empty when there is none.
inline constexpr std::size_t max_sources_shown = 3;
[[nodiscard]] std::string sources_line(const std::vector<std::string>& sources);

}  // namespace meshscope
