#include "monitor/group_tally.h"

#include <algorithm>

namespace meshscope::monitor {

template <typename Visit>
void GroupTally::for_each_containing(std::int64_t rank, Visit&& visit) {
    for (auto& [step, buckets] : spaced_) {
        const auto [begin, end] = buckets.equal_range(rank % step);
        for (auto it = begin; it != end; ++it)
            if (it->second->first.contains(rank)) visit(*it->second);
    }
    for (Entry* entry : listed_)
        if (entry->first.contains(rank)) visit(*entry);
}

void GroupTally::index(Entry& entry) {
    const Group& group = entry.first;
    if (group.evenly_spaced())
        spaced_[group.step()].emplace(group.at(0) % group.step(), &entry);
    else
        listed_.push_back(&entry);
}

void GroupTally::unindex(Entry& entry) {
    const Group& group = entry.first;
    if (!group.evenly_spaced()) {
        listed_.erase(std::find(listed_.begin(), listed_.end(), &entry));
        return;
    }
    auto& buckets = spaced_[group.step()];
    const auto [begin, end] = buckets.equal_range(group.at(0) % group.step());
    buckets.erase(std::find_if(begin, end, [&](const auto& bucket) { return bucket.second == &entry; }));
    if (buckets.empty()) spaced_.erase(group.step());
}

void GroupTally::leave(std::int64_t rank, const Group& group) {
    for_each_containing(rank, [&](Entry& entry) {
        --entry.second.members_reporting;
        if (entry.first == group) --entry.second.members_agreeing;
    });
    if (group.size() <= large_) return;
    const auto it = groups_.find(group);
    if (it == groups_.end() || --it->second.reporters > 0) return;
    unindex(*it);
    groups_.erase(it);
}

void GroupTally::join(std::int64_t rank, const Group& group, const ReportOf& report_of) {
    const Entry* fresh = nullptr;
    if (group.size() > large_) {
        auto [it, added] = groups_.try_emplace(group);
        ++it->second.reporters;
        if (added) {
            // Counted from the members' reports, this rank's included.
            for (std::int64_t k = 0; k < group.size(); ++k)
                if (const Group* theirs = report_of(group.at(k))) {
                    ++it->second.members_reporting;
                    if (*theirs == group) ++it->second.members_agreeing;
                }
            index(*it);
            fresh = &*it;
        }
    }
    for_each_containing(rank, [&](Entry& entry) {
        if (&entry == fresh) return;
        ++entry.second.members_reporting;
        if (entry.first == group) ++entry.second.members_agreeing;
    });
}

bool GroupTally::unanimous(const Group& group) const {
    if (group.size() <= large_) return false;
    const auto it = groups_.find(group);
    return it != groups_.end() && it->second.members_reporting == it->second.members_agreeing;
}

}  // namespace meshscope::monitor
