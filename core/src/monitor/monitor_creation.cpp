// creation_order_mismatch: PyTorch's new_group is called by every rank for every group of a mesh dim and names
// the group after the number of groups created before it, so a rank's k-th creation must be the same group on
// every rank. Per dim and creation index, the ranks that report their group at that index vote; the group most of
// them report (a tie: the lowest rank's) is the reference, and a rank that created another group there is at fault.
// Only ranks whose group itself is judged right vote (a wrong group is a group_disagreement or topology_mismatch),
// and only groups of two or more ranks.
#include <algorithm>
#include <unordered_map>

#include "meshscope/monitor/finding_text.h"
#include "monitor/model_mesh_report.h"
#include "monitor/monitor_impl.h"

namespace meshscope {

namespace {
// The rank's group along the dim when its creation index counts: reported, and neither its topology, its model
// mesh nor the group itself was found wrong.
const Group* voting_group(const monitor::Job& job, const monitor::RankRecord& rec, int dim) {
    const Group* group = rec.group(dim);
    // A one-rank group has no peer to wait for: whatever its index, it cannot hang.
    if (!group || group->size() < 2 || job.flagged_groups.count({dim, rec.state.rank})) return nullptr;
    if (rec.state.topology && job.reference_topology &&
        !monitor::same_fsdpturbo_topology(*rec.state.topology, *job.reference_topology))
        return nullptr;
    if (monitor::is_model_dim(job.dim_names[static_cast<std::size_t>(dim)]) && monitor::model_mesh_differs(job, rec))
        return nullptr;
    return group;
}

struct Vote {
    const Group* group = nullptr;
    std::size_t count = 0;
    std::int64_t lowest = 0;
};

// The group most voting claimers of one creation index report; a tie goes to the group of the lowest rank.
const Group* reference_group(const monitor::Job& job, int dim, const std::vector<std::int64_t>& claimers) {
    std::vector<Vote> votes;
    std::unordered_multimap<std::uint64_t, std::size_t> by_hash;  // group hash -> index in votes
    for (const std::int64_t rank : claimers) {
        const monitor::RankRecord* rec = job.find(rank);
        const Group* group = rec ? voting_group(job, *rec, dim) : nullptr;
        if (!group) continue;
        Vote* vote = nullptr;
        const auto [first, last] = by_hash.equal_range(group->hash());
        for (auto it = first; it != last && !vote; ++it)
            if (*votes[it->second].group == *group) vote = &votes[it->second];
        if (!vote) {
            by_hash.emplace(group->hash(), votes.size());
            vote = &votes.emplace_back(Vote{group, 0, rank});
        }
        ++vote->count;
        vote->lowest = std::min(vote->lowest, rank);
    }
    const Vote* best = nullptr;
    for (const Vote& vote : votes)
        if (!best || vote.count > best->count || (vote.count == best->count && vote.lowest < best->lowest))
            best = &vote;
    return best ? best->group : nullptr;
}

// Marks or clears one rank as at fault along a dim; returns whether that changed anything.
bool set_faulty(std::vector<std::int64_t>& faulty, std::int64_t rank, bool at_fault) {
    const auto it = std::lower_bound(faulty.begin(), faulty.end(), rank);
    const bool present = it != faulty.end() && *it == rank;
    if (present == at_fault) return false;
    if (at_fault)
        faulty.insert(it, rank);
    else
        faulty.erase(it);
    return true;
}

std::string finding_id(const monitor::Job& job, int dim) {
    return "creation_order_mismatch/" + job.dim_names[static_cast<std::size_t>(dim)];
}
}  // namespace

bool Monitor::Impl::agrees_at(const monitor::Job& job, const monitor::RankRecord& rec, int dim,
                              std::int64_t index) const {
    if (!job.order_faulty[static_cast<std::size_t>(dim)].empty()) return false;
    const auto& unanimous = job.unanimous[static_cast<std::size_t>(dim)];
    const auto agreed = unanimous.find(index);
    if (agreed == unanimous.end()) return false;
    const Group* group = voting_group(job, rec, dim);
    return !group || *group == agreed->second;
}

void Monitor::Impl::report_creation(monitor::Job& job, monitor::RankRecord& rec, const std::string& dim,
                                    std::int64_t index) {
    if (job.dim_ids.find(dim) == job.dim_ids.end() && job.dim_names.size() >= monitor::Job::max_dims) return;
    const int d = job.dim_id(dim);
    const std::int64_t rank = rec.state.rank;
    auto& creations = job.creations[static_cast<std::size_t>(d)];
    auto it = std::find_if(rec.creation.begin(), rec.creation.end(), [d](const auto& c) { return c.first == d; });
    if (it != rec.creation.end()) {
        if (it->second == index) return;
        // The rank leaves its old index: the claimers there are judged again without it.
        if (const auto old = creations.find(it->second); old != creations.end()) {
            auto& ranks = old->second;
            ranks.erase(std::remove(ranks.begin(), ranks.end(), rank), ranks.end());
            job.dirty_creations.emplace_back(d, it->second);
            if (ranks.empty()) creations.erase(old);
        }
        it->second = index;
    } else {
        rec.creation.emplace_back(d, index);
        // (Should the group be found wrong at this call's flush, that flush asks again.)
        if (agrees_at(job, rec, d, index)) {
            creations[index].push_back(rank);
            return;
        }
    }
    creations[index].push_back(rank);
    job.dirty_creations.emplace_back(d, index);
}

void Monitor::Impl::refresh_creation_findings(monitor::Job& job) {
    auto& dirty = job.dirty_creations;
    std::sort(dirty.begin(), dirty.end());
    dirty.erase(std::unique(dirty.begin(), dirty.end()), dirty.end());
    std::vector<int> changed;
    for (const auto& [dim, index] : dirty) {
        auto& faulty = job.order_faulty[static_cast<std::size_t>(dim)];
        const auto& creations = job.creations[static_cast<std::size_t>(dim)];
        const auto it = creations.find(index);
        auto& unanimous = job.unanimous[static_cast<std::size_t>(dim)];
        if (it == creations.end()) {
            unanimous.erase(index);
            continue;
        }
        const Group* reference = reference_group(job, dim, it->second);
        bool moved = false;
        bool agreed = reference != nullptr;
        for (const std::int64_t rank : it->second) {
            const monitor::RankRecord* rec = job.find(rank);
            const Group* group = rec ? voting_group(job, *rec, dim) : nullptr;
            const bool at_fault = group && reference && !(*group == *reference);
            agreed &= !at_fault;
            moved |= set_faulty(faulty, rank, at_fault);
        }
        if (agreed)
            unanimous.insert_or_assign(index, *reference);
        else
            unanimous.erase(index);
        // A dim with ranks at fault is restated too: its message names who created what, which new reports grow.
        if ((moved || !faulty.empty()) && (changed.empty() || changed.back() != dim)) changed.push_back(dim);
    }
    dirty.clear();

    for (const int dim : changed) {
        const auto& faulty = job.order_faulty[static_cast<std::size_t>(dim)];
        if (faulty.empty()) {
            drop_finding(job, finding_id(job, dim));
            continue;
        }
        // The evidence for the first rank at fault: its group and index, what most ranks created there, and the
        // group's members that created it elsewhere.
        const monitor::RankRecord& rec = *job.find(faulty.front());
        const auto& creations = job.creations[static_cast<std::size_t>(dim)];
        const auto index = rec.creation_of(dim);
        const auto claimed = index ? creations.find(*index) : creations.end();
        const Group* reference = claimed == creations.end() ? nullptr : reference_group(job, dim, claimed->second);
        if (!reference || !rec.group(dim)) continue;  // cannot happen: a rank at fault claimed a voted index
        const auto& claimers = claimed->second;
        monitor::CreationEvidence e;
        e.dim = job.dim_names[static_cast<std::size_t>(dim)];
        e.faulty = faulty;
        e.rank = faulty.front();
        e.group = *rec.group(dim);
        e.index = *index;
        e.reference = *reference;
        for (const std::int64_t rank : claimers) {
            const monitor::RankRecord* other = job.find(rank);
            const Group* group = other ? voting_group(job, *other, dim) : nullptr;
            if (group && *group == e.reference) e.reference_ranks.push_back(rank);
        }
        std::sort(e.reference_ranks.begin(), e.reference_ranks.end());
        for (std::int64_t k = 0; k < e.group.size(); ++k) {
            const monitor::RankRecord* member = job.find(e.group.at(k));
            if (!member || member == &rec) continue;
            const Group* group = voting_group(job, *member, dim);
            const auto theirs = member->creation_of(dim);
            if (!group || !(*group == e.group) || !theirs || *theirs == e.index) continue;
            if (e.members_elsewhere.empty()) e.elsewhere_index = *theirs;
            if (*theirs == e.elsewhere_index) e.members_elsewhere.push_back(member->state.rank);
        }
        std::sort(e.members_elsewhere.begin(), e.members_elsewhere.end());
        put_finding(job, monitor::creation_order_mismatch(e));
    }
}

}  // namespace meshscope
