// Where each rank stands in a hang, as its records tell it (docs/records-hang.md, "The hang map"): the collective it
// waits in (dim, group, seq, op), or no record of it at all, or RAS reports it dead, or its last collective
// completed (it is outside collectives: compute, the data loader, host code). `meshscope import`, `serve --ras` and
// `serve --torch-debug` put it on each rank (meshscope.records/1, "position"); the collector keeps it on the rank
// (RankState::position) and sums the job up once per import (HangSummary): what both Live pages show in place of
// start-up words, and colour the grid by.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "meshscope/mesh/error.h"

namespace meshscope {

// JSON "standing": "waiting", "outside_collectives", "no_record", "dead".
enum class HangStanding { waiting, outside_collectives, no_record, dead };
inline constexpr std::size_t hang_standing_count = 4;
[[nodiscard]] std::string_view to_string(HangStanding standing) noexcept;
[[nodiscard]] std::optional<HangStanding> parse_hang_standing(std::string_view text) noexcept;

// One collective a rank called: its group (the plan's dim and index; dim "world" for the default group, empty with
// group -1 when the group is not on the plan), its seq and op, whether every member reached it.
struct RecordsCall {
    std::string dim;
    std::int64_t group = -1;
    std::int64_t seq = 0;
    std::string op;
    bool completed = false;
    friend bool operator==(const RecordsCall&, const RecordsCall&) = default;
};

struct HangPosition {
    HangStanding standing = HangStanding::no_record;
    // waiting: where; outside_collectives: the last collective it completed (when a record says which)
    std::string dim;
    std::int64_t group = -1;
    std::int64_t seq = 0;
    std::string op;
    std::string label;        // "ep group 3 [12, 13, 14, 15]"
    bool root_cause = false;  // a verdict names it
    // Its latest collective on each group it called (Flight Recorder), at most max_last, latest first.
    std::vector<RecordsCall> last;
    static constexpr std::size_t max_last = 16;
    friend bool operator==(const HangPosition&, const HangPosition&) = default;
};

// {"standing", "dim", "group", "seq", "op", "label", "root_cause", "last": [{"dim", "group", "seq", "op",
//  "completed"}]}: dim, group, seq, op and label only where they say something, root_cause only when true.
[[nodiscard]] nlohmann::json to_json(const HangPosition& position);
// The one reader: `field` ("ranks[3].position") names what a message is about: `field "ranks[3].position.standing"
// must be one of waiting, outside_collectives, no_record, dead`.
[[nodiscard]] Expected<HangPosition> hang_position_from_json(const nlohmann::json& value, std::string_view field);

// Ranks that stand in one place: waiting in one dim's collective (dim, seq, op), or one of the other standings.
struct HangPlace {
    HangStanding standing = HangStanding::waiting;
    std::string dim;  // waiting: the dim, else the group's label when it is not on the plan
    std::int64_t seq = 0;
    std::string op;
    std::int64_t ranks = 0;          // how many
    std::vector<std::int64_t> some;  // the lowest of them, at most max_named
    std::string text;                // "waiting in ep seq 2 (all_to_all)", "no record"
    static constexpr std::size_t max_named = 16;
    friend bool operator==(const HangPlace&, const HangPlace&) = default;
};

// The post-mortem's words for a job: its places, waiting ones first (most ranks first), then no record, dead,
// outside collectives; the root cause's ranks; and the sentence both Live pages show:
// "root cause: rank 13; waiting in ep seq 2: 3 ranks; in dp seq 2: 8; no record: rank 2" (the ranks to act on are
// named, up to three; where ranks wait is counted).
struct HangSummary {
    std::vector<HangPlace> places;
    std::vector<std::int64_t> root_cause;  // sorted, at most HangPlace::max_named
    std::string text;
    friend bool operator==(const HangSummary&, const HangSummary&) = default;
};

struct RankedPosition {
    std::int64_t rank = 0;
    const HangPosition* position = nullptr;
};
// ranks: every rank with a position, any order.
[[nodiscard]] HangSummary summarize_hang(std::span<const RankedPosition> ranks);

// {"text", "root_cause": [...], "places": [{"standing", "dim", "seq", "op", "ranks", "some", "text"}]}
[[nodiscard]] nlohmann::json to_json(const HangSummary& summary);
[[nodiscard]] Expected<HangSummary> hang_summary_from_json(const nlohmann::json& value, std::string_view field);

}  // namespace meshscope
