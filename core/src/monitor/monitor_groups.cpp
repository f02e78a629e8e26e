// Group reports and group_disagreement: a rank's group along a dim is judged against what the job's reference
// topology implies (DeviceMesh layout of the expected Plan) when the dim is one of its meshes', else against
// the reports of the group's other members.
#include <algorithm>

#include "meshscope/monitor/finding_text.h"
#include "monitor/model_mesh_report.h"
#include "monitor/monitor_impl.h"

namespace meshscope {

namespace {
std::string group_finding_id(const monitor::Job& job, int dim, std::int64_t rank) {
    return "group_disagreement/" + job.dim_names[static_cast<std::size_t>(dim)] + "/" + std::to_string(rank);
}

const std::optional<monitor::Job::ExpectedDim>& expected_dim(monitor::Job& job, int dim) {
    const auto index = static_cast<std::size_t>(dim);
    if (job.expected_dims.size() <= index) job.expected_dims.resize(index + 1);
    if (job.expected_dims[index]) return *job.expected_dims[index];
    std::optional<monitor::Job::ExpectedDim> found;
    if (job.expected) {
        const auto& name = job.dim_names[static_cast<std::size_t>(dim)];
        const auto& meshes = job.expected->meshes();
        for (std::size_t m = 0; m < meshes.size() && !found; ++m) {
            // The model mesh counts only when the job's reference has one (else its dims are judged by peers).
            if (meshes[m].name == model_mesh_name && !job.expected_has_model) continue;
            const auto names = meshes[m].mesh.dim_names();
            const auto shape = meshes[m].mesh.shape();
            for (std::size_t d = 0; d < names.size(); ++d) {
                if (names[d] != name) continue;
                std::int64_t stride = 1;
                for (std::size_t k = d + 1; k < shape.size(); ++k) stride *= shape[k];
                found = monitor::Job::ExpectedDim{m, d, shape[d], stride};
                break;
            }
        }
    }
    job.expected_dims[index] = found;
    return *job.expected_dims[index];
}

// The group `rank` belongs to along the dim, by PyTorch's row-major layout: the members differ from rank only
// in their coordinate along that dim.
std::optional<Group> expected_group(monitor::Job& job, int dim, std::int64_t rank) {
    const auto& where = expected_dim(job, dim);
    if (!where) return std::nullopt;
    const DeviceMesh& mesh = job.expected->meshes()[where->mesh].mesh;
    if (!mesh.contains(rank)) return std::nullopt;
    const std::int64_t coordinate = mesh.coordinate(rank, where->dim);
    return Group::progression(rank - coordinate * where->stride, where->stride, where->size);
}
}  // namespace

void Monitor::Impl::report_group(monitor::Job& job, monitor::RankRecord& rec, const std::string& dim,
                                 const Group& report) {
    if (job.dim_ids.find(dim) == job.dim_ids.end() && job.dim_names.size() >= monitor::Job::max_dims) return;
    const int d = job.dim_id(dim);
    const std::int64_t rank = rec.state.rank;
    auto it = std::find_if(rec.groups.begin(), rec.groups.end(), [d](const auto& g) { return g.first == d; });
    if (it != rec.groups.end() && it->second == report) return;
    auto& tally = job.tallies[static_cast<std::size_t>(d)];
    std::optional<Group> before;
    if (it != rec.groups.end()) {
        tally.leave(rank, it->second);
        before = std::move(it->second);
        it->second = report;
    } else {
        rec.groups.emplace_back(d, report);
        it = std::prev(rec.groups.end());
    }
    tally.join(rank, it->second, [&job, d](std::int64_t member) -> const Group* {
        const monitor::RankRecord* other = job.find(member);
        return other ? other->group(d) : nullptr;
    });
    job.dirty_groups.emplace_back(d, rank);
    if (!expected_dim(job, d)) {
        // Judged by peers: remember who lists whom, so that a rank's report meets the reports that list it.
        auto& claims = job.claims[static_cast<std::size_t>(d)];
        if (before && before->size() <= monitor::Job::max_claimed_group)
            for (std::int64_t k = 0; k < before->size(); ++k) {
                auto& list = claims[before->at(k)];
                list.erase(std::remove(list.begin(), list.end(), rank), list.end());
            }
        if (it->second.size() <= monitor::Job::max_claimed_group)
            for (std::int64_t k = 0; k < it->second.size(); ++k) claims[it->second.at(k)].push_back(rank);
        // A member flagged because of this rank's old report may be cleared by the new one: walk the smaller of
        // the group and the dim's flagged ranks.
        const auto first = job.flagged_groups.lower_bound({d, 0});
        const auto last = job.flagged_groups.lower_bound({d + 1, 0});
        for (const auto* group : {before ? &*before : nullptr, &it->second}) {
            if (!group) continue;
            if (group->size() <= monitor::Job::max_claimed_group) {
                for (std::int64_t k = 0; k < group->size(); ++k) {
                    const std::int64_t peer = group->at(k);
                    if (peer != rank && job.flagged_groups.count({d, peer})) job.dirty_groups.emplace_back(d, peer);
                }
            } else {
                for (auto f = first; f != last; ++f)
                    if (f->second != rank && group->contains(f->second)) job.dirty_groups.emplace_back(d, f->second);
            }
        }
    }
}

void Monitor::Impl::evaluate_group(monitor::Job& job, int dim, std::int64_t rank) {
    monitor::RankRecord* rec = job.find(rank);
    const Group* report = rec ? rec->group(dim) : nullptr;
    auto clear = [&] {
        if (job.flagged_groups.erase({dim, rank})) drop_finding(job, group_finding_id(job, dim, rank));
    };
    // A rank whose own topology differs from the reference is a topology_mismatch; its groups follow from it.
    if (!report || (rec->state.topology && job.reference_topology &&
                    !monitor::same_fsdpturbo_topology(*rec->state.topology, *job.reference_topology)))
        return clear();
    // Likewise a rank whose own model mesh differs: its model groups follow from that mesh.
    if (monitor::is_model_dim(job.dim_names[static_cast<std::size_t>(dim)]) && monitor::model_mesh_differs(job, *rec))
        return clear();

    // The first member whose own report of this group differs from this rank's; then the first rank that lists
    // this rank in a different group (tracked for dims judged by peers).
    auto differing_peer = [&]() -> std::optional<std::pair<std::int64_t, Group>> {
        auto differs = [&](std::int64_t peer) -> const Group* {
            if (peer == rank) return nullptr;
            const monitor::RankRecord* other = job.find(peer);
            const Group* theirs = other ? other->group(dim) : nullptr;
            return theirs && !(*theirs == *report) ? theirs : nullptr;
        };
        // A large group whose members all report it has no such member (the tally knows without walking it).
        if (!job.tallies[static_cast<std::size_t>(dim)].unanimous(*report))
            for (std::int64_t k = 0; k < report->size(); ++k)
                if (const auto* theirs = differs(report->at(k))) return std::pair{report->at(k), *theirs};
        const auto& claims = job.claims[static_cast<std::size_t>(dim)];
        if (const auto it = claims.find(rank); it != claims.end())
            for (const auto peer : it->second)
                if (const auto* theirs = differs(peer)) return std::pair{peer, *theirs};
        return std::nullopt;
    };

    // Evidence is only gathered for a wrong report: judging a right one allocates nothing.
    monitor::GroupEvidence evidence;
    bool wrong = !report->contains(rank);
    if (!wrong) {
        if (auto expected = expected_group(job, dim, rank)) {
            if (!(*expected == *report)) {
                wrong = true;
                evidence.expected = std::move(expected);
                evidence.topology_text = monitor::layout_text(job, job.dim_names[static_cast<std::size_t>(dim)]);
                evidence.peer = differing_peer();
            }
        } else if ((evidence.peer = differing_peer())) {
            wrong = true;
        }
    }
    if (!wrong) return clear();
    evidence.rank = rank;
    evidence.dim = job.dim_names[static_cast<std::size_t>(dim)];
    evidence.reported = *report;
    job.flagged_groups.insert({dim, rank});
    put_finding(job, monitor::group_disagreement(evidence));
}

}  // namespace meshscope
