// RankState: what the monitor knows of one rank of a job (a value copy; see monitor.h for how to get one).
//
// State, by precedence: failed (a failed status or an error phase) > exited (an exit phase) > stale (no
// event for stale_after seconds) > ready (phase ready done) > initializing (any event) > pending (never
// seen). It is derived from everything the rank reported, not from the last event, so late and
// out-of-order events never move a rank backwards (a late "launch started" after "ready done" stays ready).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "meshscope/monitor/event.h"
#include "meshscope/monitor/finding.h"
#include "meshscope/monitor/hang_position.h"

namespace meshscope {

enum class RankStateKind { pending, initializing, ready, failed, stale, exited };
inline constexpr std::size_t rank_state_kind_count = 6;

[[nodiscard]] std::string_view to_string(RankStateKind state) noexcept;
[[nodiscard]] std::optional<RankStateKind> parse_rank_state_kind(std::string_view text) noexcept;

// When one phase started and ended on the sender's clock (ts; the collector's receive time when the
// event had no ts). Repeats keep the earliest start and the earliest end.
struct PhaseTiming {
    std::optional<double> started;
    std::optional<double> done;    // status done
    std::optional<double> failed;  // status failed
    // Whether the rank reported this phase at all.
    [[nodiscard]] bool seen() const noexcept { return started || done || failed; }
    // done - started when both are known and in order.
    [[nodiscard]] std::optional<double> duration() const noexcept {
        if (!started || !done || *done < *started) return std::nullopt;
        return *done - *started;
    }
    friend bool operator==(const PhaseTiming&, const PhaseTiming&) = default;
};

struct RankState {
    std::int64_t rank = 0;
    RankStateKind state = RankStateKind::pending;
    // Identity of the (latest) process reporting this rank.
    std::optional<std::string> host;
    std::optional<std::int64_t> pid;
    std::optional<std::int64_t> local_rank;
    std::optional<std::string> device;
    std::optional<std::string> device_uuid;
    // The latest phase and status (latest by ts; by arrival when events carry no ts).
    std::optional<Phase> phase;
    std::optional<Status> status;
    std::array<PhaseTiming, phase_count> timings{};
    std::optional<std::int64_t> world_size;
    std::optional<ReportedTopology> topology;
    std::map<std::string, ReportedMesh> meshes;               // by mesh name
    std::map<std::string, std::vector<std::int64_t>> groups;  // dim name -> members (sorted); see Monitor::ranks
    std::optional<ReportedError> error;                       // the latest reported error
    std::optional<double> first_seen;                         // collector clock (received_at)
    std::optional<double> last_seen;                          // collector clock
    std::optional<double> last_ts;                            // sender's clock, the largest ts seen
    std::int64_t events = 0;
    // Kinds of the findings that name this rank (filled by Monitor queries), sorted, distinct.
    std::vector<FindingKind> findings;
    // Where it stands in the hang its job's imported records show (meshscope import, serve --ras/--torch-debug).
    std::optional<HangPosition> position;
    friend bool operator==(const RankState&, const RankState&) = default;
};

// {"rank", "state", "host", "pid", "local_rank", "device", "device_uuid", "phase", "status", "world_size",
//  "topology": {"dp","cp","ep"[,"mp_replicate","mp_shard"]}, "meshes": [{"name","dim_names","shape"}], "groups": {dim:
//  [...]}, "error": {"type","message"}, "timings": {phase: {"started","done","failed","duration"}}, "first_seen",
//  "last_seen", "last_ts", "events", "findings": [kind...], "position": {...} (hang_position.h)}; absent values are
//  omitted (timings only lists phases seen).
[[nodiscard]] nlohmann::json to_json(const RankState& state);

// Reads what to_json(RankState) writes (monitor_json.cpp): rank_state_from_json(to_json(s)) == s. "rank" and
// "state" are required, every other field is optional ("duration" is derived, not read). Each field is checked with
// an exact message (`field "timings.launch.done" must be a number`); names this build does not know are kept as
// UnknownNames says (finding.h), or refused without one. A value that is not an object: `a rank state must be a
// JSON object`.
[[nodiscard]] Expected<RankState> rank_state_from_json(const nlohmann::json& value, UnknownNames* unknown = nullptr);

}  // namespace meshscope
