// What meshscope-probe's ranks reported about their communicators, by group (dim, creation index): the
// evidence for slow_group and communicator_not_formed, and the per-group and per-dim bandwidth the Live page
// shows. Internal to core; one per job (live/job.h).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "meshscope/monitor/event.h"

namespace meshscope::monitor {

struct GroupMeasure {
    std::string dim;
    std::int64_t index = 0;
    std::vector<std::int64_t> members;                     // as the first report gave them
    std::map<std::int64_t, ReportedCommunicator> reports;  // by reporting rank, the newest

    // The group's figure for one collective and size: the slowest member's (a collective finishes when its
    // slowest member does). nullopt when no member measured it.
    [[nodiscard]] std::optional<CollectiveResult> figure(const std::string& collective, std::int64_t bytes) const;
    [[nodiscard]] bool formed() const;                        // no member reported not_formed
    [[nodiscard]] std::vector<std::int64_t> missing() const;  // union of the members' missing lists, sorted
};

struct CommunicatorBook {
    static constexpr std::size_t max_groups = 65536;  // per job; further groups are ignored
    std::map<std::pair<std::string, std::int64_t>, GroupMeasure> groups;
    bool dirty = false;                // reports arrived since the findings were last judged
    std::vector<std::string> flagged;  // finding ids this book put up (slow_group/..., communicator_not_formed/...)

    void record(std::int64_t rank, const ReportedCommunicator& report);
    [[nodiscard]] bool empty() const noexcept { return groups.empty(); }
};

// Robust comparison of the groups of one dim for one collective at one size, on log(busbw): a group is slow
// when log(busbw) < median - max(k * 1.4826 * MAD, log(1 / floor_ratio)) (medians over the dim's groups).
struct SlowGroupOptions {
    double mads = 3.0;           // k
    double floor_ratio = 0.25;   // minimum effect: at most a quarter of the dim's median
    std::size_t min_groups = 3;  // fewer measured groups than this: no judgement
};

struct SlowGroup {
    const GroupMeasure* group = nullptr;
    std::string collective;
    std::int64_t bytes = 0;
    double busbw = 0;
    double median = 0;
    std::size_t peers = 0;
};

// The slow groups of the book, at most one entry per group (its first collective in the dim's order that is
// slow), for each dim judged at the largest size that every measured group of the dim has.
[[nodiscard]] std::vector<SlowGroup> slow_groups(const CommunicatorBook& book, const SlowGroupOptions& options);

// {"dims": [...], "groups": [...]} (docs/probe.md "What the collector shows").
[[nodiscard]] nlohmann::json communicators_json(const CommunicatorBook& book, const SlowGroupOptions& options);

}  // namespace meshscope::monitor
