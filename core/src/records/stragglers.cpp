// Stragglers over a job's whole Flight Recorder window (meshscope/records/stragglers.h): one pass over each rank's
// entries in record order, on a few threads, then the rule per dim over every lag seen.
#include <algorithm>
#include <climits>
#include <cstdio>
#include <numeric>

#include "meshscope/mesh/parallel_for.h"
#include "records/diagnose_internal.h"

namespace meshscope::records {

std::vector<const RankLag*> Stragglers::late() const {
    std::vector<const RankLag*> out;
    for (const auto& r : ranks)
        if (r.late) out.push_back(&r);
    std::stable_sort(out.begin(), out.end(), [](const RankLag* a, const RankLag* b) { return a->dim < b->dim; });
    return out;
}

namespace detail {

namespace {
// Lags are kept in microseconds, 4 bytes each (a 16,384-rank job judges 32 million), up to about 35 minutes, so
// that twice a lag still fits.
constexpr std::uint32_t max_us = UINT32_MAX / 2;

std::uint32_t to_us(std::int64_t ns) {
    return static_cast<std::uint32_t>(std::clamp<std::int64_t>(ns / 1000, 0, max_us));
}

// Twice the median (the two middle values' sum for an even count), so that it stays an integer; reorders values.
std::uint64_t twice_median(std::vector<std::uint32_t>& values) {
    const std::size_t n = values.size(), mid = n / 2;
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
    const std::uint64_t upper = values[mid];
    if (n % 2) return 2 * upper;
    const std::uint64_t lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
    return lower + upper;
}

// A rank's worst arrival in one dim while its entries are walked: what the report needs, pointed at.
struct Worst {
    std::int64_t lag = -1, raw = 0, time = 0, seq = 0;
    const FrEntry* entry = nullptr;
    std::size_t group = 0;
};
}  // namespace

std::string ms_text(std::int64_t ns) {
    char text[48];
    std::snprintf(text, sizeof text, "%.1f ms", static_cast<double>(ns) / 1e6);
    return text;
}

namespace {
// The groups' dims numbered: names in order, and each group's dim as an index into them.
struct DimIndex {
    std::vector<std::string> names;
    std::vector<std::size_t> of_group;
};

DimIndex index_dims(const std::vector<FrGroupArrivals>& groups) {
    std::map<std::string, std::size_t> dim_index;
    for (const auto& g : groups) dim_index.emplace(g.dim, 0);
    DimIndex dims;
    for (auto& [name, index] : dim_index) {
        index = dims.names.size();
        dims.names.push_back(name);
    }
    for (const auto& g : groups) dims.of_group.push_back(dim_index.at(g.dim));
    return dims;
}

// What the workers read and write: each dump's lags by dump index, and every lag by thread and dim for the rule.
struct LagWork {
    const std::vector<std::pair<std::int64_t, const FrDump*>>& dumps;
    const std::map<const FrDump*, std::vector<std::size_t>>& group_ids;
    const std::vector<FrGroupArrivals>& groups;
    const DimIndex& dims;
    std::vector<std::vector<RankLag>> results;                     // by dump
    std::vector<std::vector<std::vector<std::uint32_t>>> samples;  // by thread, then dim
};

// One worker's buffers, their capacity kept from dump to dump.
struct LagScratch {
    std::vector<std::vector<std::uint32_t>> mine;  // this dump's lags by dim
    std::vector<Worst> worst;                      // this dump's worst arrival by dim
    std::vector<std::size_t> order;
};

// One rank's lags at its groups' common collectives, walked in record order: each lag into the thread's samples,
// and per dim its typical lag and worst arrival into results[i].
void measure_dump(LagWork& work, std::size_t i, std::vector<std::vector<std::uint32_t>>& dim_samples,
                  LagScratch& scratch) {
    const std::size_t dims = work.dims.names.size();
    auto& mine = scratch.mine;
    auto& worst = scratch.worst;
    auto& order = scratch.order;
    const auto rank = work.dumps[i].first;
    const auto* const dump = work.dumps[i].second;
    const auto& ids = work.group_ids.at(dump);
    // The entries in record order (a ring buffer's dump mostly is).
    order.resize(dump->entries.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    const auto by_record = [&](std::size_t a, std::size_t b) {
        return dump->entries[a].record_id < dump->entries[b].record_id;
    };
    if (!std::is_sorted(order.begin(), order.end(), by_record)) std::stable_sort(order.begin(), order.end(), by_record);
    // The last arrival at this rank's previous collective: it could not leave that one earlier.
    std::int64_t released = INT64_MIN;
    for (const std::size_t k : order) {
        const FrEntry& e = dump->entries[k];
        if (e.is_p2p || e.collective_seq_id <= 0) continue;
        const std::size_t gid = ids[e.group->index];
        const FrGroupArrivals& g = work.groups[gid];
        const auto it = std::lower_bound(g.seqs.begin(), g.seqs.end(), e.collective_seq_id,
                                         [](const SeqArrival& a, std::int64_t s) { return a.seq < s; });
        const std::int64_t t = e.time_created_ns;
        if (it == g.seqs.end() || it->seq != e.collective_seq_id) {
            released = t;
            continue;
        }
        // A rank's first collective in its window is not judged: what held it before (its process groups'
        // creation, a store barrier, collectives that left the ring buffer) is not recorded.
        if (released != INT64_MIN && g.with_dump >= 2 && it->entered == g.with_dump) {
            const std::int64_t raw = t - it->first_ns;
            const std::int64_t own = std::clamp<std::int64_t>(t - released, 0, raw);
            const std::size_t d = work.dims.of_group[gid];
            mine[d].push_back(to_us(own));
            dim_samples[d].push_back(to_us(own));
            if (own > worst[d].lag) worst[d] = {own, raw, t, e.collective_seq_id, &e, gid};
        }
        released = std::max(t, it->last_ns);
    }
    for (std::size_t d = 0; d < dims; ++d) {
        if (mine[d].empty()) continue;
        RankLag r;
        r.rank = rank;
        r.dim = work.dims.names[d];
        r.arrivals = static_cast<std::int64_t>(mine[d].size());
        r.typical_ns = static_cast<std::int64_t>(twice_median(mine[d]) * 500);
        const Worst& w = worst[d];
        r.worst = {w.lag, w.raw, w.time, w.seq, std::string(w.entry->collective()), work.groups[w.group].label};
        work.results[i].push_back(std::move(r));
        mine[d].clear();
        worst[d] = Worst{};
    }
}

// Every rank's dump measured on a few threads, each taking the next dump; each thread's lags kept apart.
void measure_lags(LagWork& work) {
    const std::size_t dims = work.dims.names.size();
    const std::size_t threads = parallel_threads(work.dumps.size(), 8);
    work.results.assign(work.dumps.size(), {});
    work.samples.assign(threads, std::vector<std::vector<std::uint32_t>>(dims));
    std::vector<LagScratch> scratch(
        threads, LagScratch{std::vector<std::vector<std::uint32_t>>(dims), std::vector<Worst>(dims), {}});
    parallel_for(work.dumps.size(), threads, [&](std::size_t i, std::size_t worker) {
        measure_dump(work, i, work.samples[worker], scratch[worker]);
    });
}

// The rule for one dim, over every lag of every rank at the dim's common collectives: the median, the MAD and the
// threshold past which a rank is late. Frees the dim's samples.
DimLags dim_rule(const std::string& name, std::size_t d, std::vector<std::vector<std::vector<std::uint32_t>>>& samples,
                 const StragglerRule& rule) {
    std::size_t total = 0;
    for (const auto& s : samples) total += s[d].size();
    DimLags lags;
    lags.dim = name;
    lags.arrivals = static_cast<std::int64_t>(total);
    if (!total) return lags;
    std::vector<std::uint32_t> all;
    all.reserve(total);
    for (auto& s : samples) {
        all.insert(all.end(), s[d].begin(), s[d].end());
        std::vector<std::uint32_t>().swap(s[d]);
    }
    const std::uint64_t m2 = twice_median(all);  // microseconds x 2
    for (auto& v : all) {                        // each value's deviation x 2
        const std::int64_t dev = 2 * static_cast<std::int64_t>(v) - static_cast<std::int64_t>(m2);
        v = static_cast<std::uint32_t>(dev < 0 ? -dev : dev);
    }
    const std::uint64_t mad4 = twice_median(all);  // microseconds x 4
    lags.median_ns = static_cast<std::int64_t>(m2 * 500);
    lags.mad_ns = static_cast<std::int64_t>(mad4 * 250);
    const double spread = rule.k * StragglerRule::mad_scale * static_cast<double>(lags.mad_ns);
    lags.threshold_ns = lags.median_ns + std::max(static_cast<std::int64_t>(spread + 0.5), rule.floor_ns);
    return lags;
}

// Each rank's lags judged against its dim's threshold: late or not, its score per dim, and its worst score.
void judge_ranks(Stragglers& out, std::vector<std::vector<RankLag>>& results) {
    std::map<std::string, const DimLags*> lags_of;
    for (const auto& lags : out.dims) lags_of[lags.dim] = &lags;
    for (auto& list : results) {
        if (list.empty()) continue;
        double score = 0;
        for (auto& r : list) {
            const DimLags& lags = *lags_of.at(r.dim);
            const double x = static_cast<double>(std::max<std::int64_t>(0, r.worst.lag_ns - lags.median_ns));
            const double allowed = static_cast<double>(lags.threshold_ns - lags.median_ns);
            r.late = r.worst.lag_ns > lags.threshold_ns;
            r.score = allowed > 0 ? x / (x + allowed) : (x > 0 ? 1.0 : 0.0);
            score = std::max(score, r.score);
        }
        out.scores.emplace_back(list.front().rank, score);
        for (auto& r : list) out.ranks.push_back(std::move(r));
    }
}
}  // namespace

// The stages: the dims numbered, every rank's lags measured, the rule per dim, then each rank judged.
Stragglers find_stragglers(const std::map<std::int64_t, const FrDump*>& by_rank,
                           const std::map<const FrDump*, std::vector<std::size_t>>& group_ids,
                           const std::vector<FrGroupArrivals>& groups, const StragglerRule& rule) {
    Stragglers out;
    out.rule = rule;
    const DimIndex dims = index_dims(groups);
    const std::vector<std::pair<std::int64_t, const FrDump*>> dumps(by_rank.begin(), by_rank.end());
    LagWork work{dumps, group_ids, groups, dims, {}, {}};
    measure_lags(work);
    // Each dim's rule on a few threads (each reads and frees only its own dim's samples), taken in dim order.
    std::vector<DimLags> rules(dims.names.size());
    parallel_for(rules.size(), parallel_threads(rules.size(), 8),
                 [&](std::size_t d) { rules[d] = dim_rule(dims.names[d], d, work.samples, rule); });
    for (auto& lags : rules)
        if (lags.arrivals > 0) out.dims.push_back(std::move(lags));
    judge_ranks(out, work.results);
    return out;
}

std::vector<SourcedFinding> straggler_findings(const Stragglers& stragglers,
                                               const std::map<std::int64_t, const FrDump*>& by_rank) {
    std::map<std::string, std::vector<const RankLag*>> by_dim;
    for (const RankLag* r : stragglers.late()) by_dim[r->dim].push_back(r);
    std::vector<SourcedFinding> out;
    for (const auto& [dim, late] : by_dim) {
        const DimLags* lags = nullptr;
        for (const auto& l : stragglers.dims)
            if (l.dim == dim) lags = &l;
        Finding f;
        f.kind = FindingKind::straggler;
        f.id = "straggler/flight_recorder/" + dim;
        std::vector<std::string> sources;
        f.message = "late arrivals in " + dim + ":";
        constexpr std::size_t named = 6;
        for (std::size_t i = 0; i < late.size(); ++i) {
            const RankLag& r = *late[i];
            f.ranks.push_back(r.rank);
            if (sources.size() < 8) sources.push_back(by_rank.at(r.rank)->file);
            if (i >= named) continue;
            f.message += std::string(i ? "; " : " ") + "rank " + std::to_string(r.rank) + " entered seq " +
                         std::to_string(r.worst.seq) + " (" + r.worst.collective + ") of the " + r.worst.group + " " +
                         ms_text(r.worst.lag_ns) + " late (typically " + ms_text(r.typical_ns) + ")";
        }
        if (late.size() > named) f.message += "; and " + std::to_string(late.size() - named) + " more";
        f.message += "; the " + dim + " threshold is " + ms_text(lags->threshold_ns) + " over " +
                     std::to_string(lags->arrivals) + " arrivals (median " + ms_text(lags->median_ns) + ", MAD " +
                     ms_text(lags->mad_ns) + ") (Flight Recorder)";
        std::sort(f.ranks.begin(), f.ranks.end());
        f.fix = "Look at what " + ranks_words(f.ranks) + (f.ranks.size() == 1 ? " was" : " were") +
                " doing just before that collective (the log and a stack at that time: data loading, a host sync, "
                "garbage collection, a checkpoint, CPU or I/O contention on the host); every member of the group "
                "waited for it.";
        out.push_back({std::move(f), std::move(sources)});
    }
    return out;
}

}  // namespace detail
}  // namespace meshscope::records
