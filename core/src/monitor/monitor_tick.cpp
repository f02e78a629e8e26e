// tick: the findings that depend on time or on the whole distribution of a phase's durations: missing_rank,
// stale_rank, straggler. One pass over the job's ranks per tick.
#include <algorithm>
#include <cmath>

#include "meshscope/monitor/finding_text.h"
#include "monitor/monitor_impl.h"

namespace meshscope {

namespace {
// Phases whose duration is a property of the rank (heartbeat, error and exit are not).
constexpr std::array<Phase, 6> timed_phases = {Phase::launch,         Phase::process_group, Phase::device_mesh,
                                               Phase::parallel_state, Phase::communicator,  Phase::ready};

double median_of(std::vector<double>& values) {
    const auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
    std::nth_element(values.begin(), mid, values.end());
    double m = *mid;
    if (values.size() % 2 == 0) m = (m + *std::max_element(values.begin(), mid)) / 2;
    return m;
}
}  // namespace

void Monitor::Impl::set_rank_list_finding(monitor::Job& job, std::vector<std::int64_t>& current,
                                          std::vector<std::int64_t> ranks, FindingKind kind) {
    if (ranks == current) return;
    current = ranks;
    const std::string id(to_string(kind));
    if (ranks.empty()) return drop_finding(job, id);
    put_finding(job, kind == FindingKind::missing_rank
                         ? monitor::missing_rank(std::move(ranks), job.reference_world, options.missing_after)
                         : monitor::stale_rank(std::move(ranks), options.stale_after));
}

void Monitor::Impl::set_missing(monitor::Job& job, std::vector<std::int64_t> named, std::int64_t count) {
    if (named == job.missing && count == job.missing_count) return;
    job.missing = named;
    job.missing_count = count;
    if (count == 0) return drop_finding(job, "missing_rank");
    put_finding(job, monitor::missing_rank(std::move(named), job.reference_world, options.missing_after, count));
}

void Monitor::Impl::tick_job(monitor::Job& job, double now) {
    // stale_rank: alive ranks that have said nothing for stale_after.
    std::vector<std::int64_t> stale;
    for (auto& rec : job.records) {
        if (!rec.stale && !rec.failed && !rec.exited && rec.state.last_seen &&
            now - *rec.state.last_seen >= options.stale_after) {
            rec.stale = true;
            update_state(job, rec, rec.state.phase);
        }
        if (rec.stale) stale.push_back(rec.state.rank);
    }
    std::sort(stale.begin(), stale.end());
    set_rank_list_finding(job, job.stale, std::move(stale), FindingKind::stale_rank);

    // missing_rank: ranks of the world never seen, missing_after after the job's first event. A rank a relay
    // heard from (its events refused under load, Monitor::seen) is late, not missing.
    // The count comes from the ranks that reported or were heard; the walk of the world stops at the lowest
    // missing_named_limit missing ranks, so a tick costs what reported, whatever world the job claims.
    std::vector<std::int64_t> missing;
    std::int64_t count = 0;
    const std::int64_t world = job.reference_world;
    if (job.first_event && now - *job.first_event >= options.missing_after && world > 0) {
        std::int64_t present = 0;
        for (const auto& rec : job.records) present += rec.state.rank < world ? 1 : 0;
        job.heard.for_each([&](std::int64_t r) { present += r < world && !job.find(r) ? 1 : 0; });
        count = std::max<std::int64_t>(0, world - present);
        const auto wanted = std::min<std::int64_t>(count, static_cast<std::int64_t>(monitor::missing_named_limit));
        for (std::int64_t r = 0; r < world && static_cast<std::int64_t>(missing.size()) < wanted; ++r)
            if (!job.find(r) && !job.was_heard(r)) missing.push_back(r);
    }
    set_missing(job, std::move(missing), count);

    for (const Phase phase : timed_phases) judge_straggler(job, phase, now);
}

// straggler: duration > median + max(k * 1.4826 * MAD, floor), once enough ranks finished the phase.
void Monitor::Impl::judge_straggler(monitor::Job& job, Phase phase, double now) {
    const auto p = index_of(phase);
    auto& judgment = job.stragglers[p];
    judgment.slow.clear();
    std::vector<double> durations;
    for (const auto& rec : job.records)
        if (const auto d = rec.state.timings[p].duration()) durations.push_back(*d);
    if (durations.size() < std::max<std::size_t>(options.straggler_min_peers, 1))
        return put_straggler_finding(job, phase);  // too few peers to judge: none named
    judgment.peers = durations.size();
    judgment.median = median_of(durations);
    for (double& d : durations) d = std::abs(d - judgment.median);
    const double mad = median_of(durations);
    judgment.threshold =
        judgment.median + std::max({options.straggler_mads * 1.4826 * mad, options.straggler_floor_seconds,
                                    options.straggler_floor_ratio * judgment.median});
    for (const auto& rec : job.records) {
        const PhaseTiming& t = rec.state.timings[p];
        if (const auto d = t.duration()) {
            if (*d > judgment.threshold) judgment.slow.push_back({rec.state.rank, *d, false});
        } else if (!t.done && !t.failed && rec.started_received[p] && !rec.failed && !rec.exited && !rec.stale &&
                   !rec.held) {
            // Still in the phase: compare how long it has run, on the collector's clock. The finding names
            // the threshold, not the growing time, so that it does not change on every tick.
            if (now - *rec.started_received[p] > judgment.threshold)
                judgment.slow.push_back({rec.state.rank, judgment.threshold, true});
        }
    }
    std::sort(judgment.slow.begin(), judgment.slow.end(), [](const auto& a, const auto& b) { return a.rank < b.rank; });
    put_straggler_finding(job, phase);
}

void Monitor::Impl::put_straggler_finding(monitor::Job& job, Phase phase) {
    const auto& judgment = job.stragglers[index_of(phase)];
    if (judgment.slow.empty())
        drop_finding(job, "straggler/" + std::string(to_string(phase)));
    else
        put_finding(job, monitor::straggler(phase, judgment.slow, judgment.median, judgment.peers));
}

void Monitor::Impl::note_straggler_report(monitor::Job& job, const monitor::RankRecord& rec) {
    for (const Phase phase : timed_phases) {
        auto& slow = job.stragglers[index_of(phase)].slow;
        const auto it = std::lower_bound(slow.begin(), slow.end(), rec.state.rank,
                                         [](const monitor::SlowRank& s, std::int64_t rank) { return s.rank < rank; });
        if (it == slow.end() || it->rank != rec.state.rank || !it->running) continue;
        const PhaseTiming& t = rec.state.timings[index_of(phase)];
        if (const auto d = t.duration()) {
            if (*d > job.stragglers[index_of(phase)].threshold)
                *it = {rec.state.rank, *d, false};
            else
                slow.erase(it);
        } else if (t.done || t.failed || rec.failed || rec.exited) {
            slow.erase(it);
        } else {
            continue;  // still running: unchanged
        }
        put_straggler_finding(job, phase);
    }
}

}  // namespace meshscope
