// GroupTally: for one dim, every distinct group of more than `large` members that some rank reports, with how
// many of its members report anything along the dim and how many report exactly it. A group whose members all
// agree is then known in O(1): judging each rank of a 16,384-rank group by walking the group (the model mesh's
// mp_shard group is every rank of the job) cost O(ranks^2) in a start-up storm (docs/benchmarks.md, "The model
// mesh's groups"). Internal to core (src/monitor).
//
// Finding the large groups that contain a rank: evenly spaced groups are indexed by (step, first % step), so
// a rank looks at one bucket per distinct step (groups along one mesh dim share one step: one lookup); other
// large groups are few and walked.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "meshscope/monitor/group.h"

namespace meshscope::monitor {

class GroupTally {
public:
    // What a rank reports along the dim now (nullptr: nothing), for counting a group's members when it is new.
    using ReportOf = std::function<const Group*(std::int64_t rank)>;

    explicit GroupTally(std::int64_t large) : large_(large) {}

    // `rank` stops reporting `group` (its report changes, or is about to).
    void leave(std::int64_t rank, const Group& group);
    // `rank` now reports `group`; `report_of` already answers `group` for it.
    void join(std::int64_t rank, const Group& group, const ReportOf& report_of);
    // True when `group` is large and every member that reports along the dim reports exactly it; false when it
    // is not tallied (small groups: the caller walks them).
    [[nodiscard]] bool unanimous(const Group& group) const;

private:
    struct Count {
        std::int64_t reporters = 0;  // ranks reporting the group (members or not)
        std::int64_t members_reporting = 0;
        std::int64_t members_agreeing = 0;
    };
    struct Hash {
        std::size_t operator()(const Group& g) const noexcept { return static_cast<std::size_t>(g.hash()); }
    };
    using Groups = std::unordered_map<Group, Count, Hash>;
    using Entry = Groups::value_type;  // nodes of an unordered_map stay put, so the index holds pointers

    // Calls visit(entry) for every tallied group that contains `rank`.
    template <typename Visit>
    void for_each_containing(std::int64_t rank, Visit&& visit);
    void index(Entry& entry);
    void unindex(Entry& entry);

    std::int64_t large_;
    Groups groups_;
    std::map<std::int64_t, std::unordered_multimap<std::int64_t, Entry*>> spaced_;  // step -> first % step -> groups
    std::vector<Entry*> listed_;  // large groups that are not evenly spaced
};

}  // namespace meshscope::monitor
