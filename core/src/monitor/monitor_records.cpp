// Monitor::import_records: findings and ranks read from NCCL's and PyTorch's records (meshscope import), beside the
// hook's.
#include <algorithm>

#include "monitor/monitor_impl.h"

namespace meshscope {

namespace {
constexpr std::string_view records_prefix = "records/";
}  // namespace

// long: an import replaces the earlier one's findings, world, topology and positions in the job, in that order; not
// yet split into stages
void Monitor::import_records(const std::string& job_name, const RecordsImport& records, double received_at) {
    monitor::Job& job = impl_->job_for(job_name);
    if (!job.last_event || *job.last_event < received_at) job.last_event = received_at;

    // The earlier import's findings go, then this one's come in its order.
    std::vector<std::string> earlier;
    for (auto it = job.findings.lower_bound(std::string(records_prefix));
         it != job.findings.end() && it->first.starts_with(records_prefix); ++it)
        earlier.push_back(it->first);
    std::vector<std::string> kept;
    for (std::size_t i = 0; i < records.findings.size(); ++i) {
        Finding f = records.findings[i];
        f.id = std::string(records_prefix) + std::to_string(i + 1);
        kept.push_back(f.id);
        impl_->put_finding(job, std::move(f));
    }
    for (const std::string& id : earlier)
        if (std::find(kept.begin(), kept.end(), id) == kept.end()) impl_->drop_finding(job, id);

    // The world the records establish (else the ranks they and the job name); the job's while no hook event (nor
    // a declared plan) says one.
    std::int64_t world = records.world_size;
    if (world <= 0) {
        world = job.slots.highest() + 1;
        for (const RecordsRank& r : records.ranks) world = std::max(world, r.rank + 1);
        for (const Finding& f : records.findings)
            if (!f.ranks.empty()) world = std::max(world, f.ranks.back() + 1);
    }
    job.records_world = world;
    if (!job.plan && job.world.reference.empty()) job.reference_world = world;
    // The plan the records were placed on draws the job's grid while no declared plan or hook report says one.
    job.records_topology = records.topology;
    job.records_communicators = records.communicators;
    if (!job.plan && job.topology.reference.empty()) impl_->set_reference_topology(job, records.topology);

    // Where each rank stands: this import's positions replace the earlier one's.
    std::vector<RankedPosition> positions;
    for (const RecordsRank& r : records.ranks)
        if (r.rank >= 0 && r.position) positions.push_back({r.rank, &*r.position});
    if (positions.empty())
        job.hang.reset();
    else
        job.hang = summarize_hang(positions);
    std::vector<std::int64_t> placed;  // sorted: the ranks this import gives a position
    for (const RankedPosition& p : positions) placed.push_back(p.rank);
    std::sort(placed.begin(), placed.end());
    std::vector<std::int64_t> cleared;
    for (auto& rec : job.records)
        if (rec.state.position && !std::binary_search(placed.begin(), placed.end(), rec.state.rank)) {
            rec.state.position.reset();
            cleared.push_back(rec.state.rank);
        }

    for (const RecordsRank& r : records.ranks) {
        if (r.rank < 0) continue;
        monitor::RankRecord* rec = job.find(r.rank);
        const bool added = rec == nullptr;
        if (added) {
            job.slots.set(r.rank, static_cast<std::int32_t>(job.records.size()));
            rec = &job.records.emplace_back();
            rec->state.rank = r.rank;
            rec->records_only = true;
            ++job.records_only_ranks;
        }
        // The hook's own report of its process wins over what the records say.
        bool changed = added;
        if (r.position && rec->state.position != r.position) {
            rec->state.position = r.position;
            changed = true;
        }
        if (r.host && !rec->state.host) {
            rec->state.host = r.host;
            changed = true;
        }
        if (r.pid && !rec->state.pid) {
            rec->state.pid = r.pid;
            changed = true;
        }
        if (added) impl_->note_alive(job, *rec, true);  // named by the records: not missing
        if (!changed || (!impl_->listener && !impl_->options.record_changes)) continue;
        Change change;
        change.kind = ChangeKind::rank_changed;
        change.job = job.name;
        change.rank = r.rank;
        change.state = rec->state.state;
        change.phase = rec->state.phase;
        impl_->emit(std::move(change));
    }
    // Ranks the earlier import placed and this one does not.
    if (impl_->listener || impl_->options.record_changes)
        for (const std::int64_t rank : cleared) {
            const monitor::RankRecord* rec = job.find(rank);
            Change change;
            change.kind = ChangeKind::rank_changed;
            change.job = job.name;
            change.rank = rank;
            change.state = rec->state.state;
            change.phase = rec->state.phase;
            impl_->emit(std::move(change));
        }
}

}  // namespace meshscope
