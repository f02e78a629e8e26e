// Monitor ingest in-process: a 16,384-rank FSDPTurbo job (dp 4096, cp 4, ep 32) where every rank sends 10 events
// (launch, process_group, device_mesh, parallel_state with its topology and groups, communicator, ready,
// heartbeat), fed the way the collector does: one ingest call per rank's request, or one per event.
#include <benchmark/benchmark.h>

#include <memory>

#include "meshscope/mesh/plan.h"
#include "meshscope/monitor/monitor.h"

namespace {
using namespace meshscope;

struct Workload {
    std::vector<std::vector<Event>> per_rank;
    std::size_t events = 0;
};

// Groups of every dim except dp (4096 members per rank would make the workload itself 512 MB); the
// "dp groups" variant below adds them at a smaller world.
Workload make_workload(std::int64_t dp, std::int64_t cp, std::int64_t ep, bool dp_groups) {
    const auto topology = Topology::make(dp, cp, ep).value();
    const auto plan = Plan::make(topology, 8).value();
    Workload w;
    const std::int64_t world = topology.world();
    w.per_rank.resize(static_cast<std::size_t>(world));
    for (std::int64_t r = 0; r < world; ++r) {
        auto& out = w.per_rank[static_cast<std::size_t>(r)];
        double t = 0;
        auto add = [&](Phase phase, Status status) -> Event& {
            Event e;
            e.job = "bench-job";
            e.rank = r;
            e.world_size = world;
            e.phase = phase;
            e.status = status;
            e.ts = t += 0.5;
            e.host = "node-" + std::to_string(r / 8);
            e.pid = 10000 + r;
            out.push_back(std::move(e));
            return out.back();
        };
        add(Phase::launch, Status::started);
        add(Phase::launch, Status::done);
        add(Phase::process_group, Status::started);
        add(Phase::process_group, Status::done);
        for (const auto& pm : plan.meshes())
            if (pm.name == "data")
                add(Phase::device_mesh, Status::done).mesh = ReportedMesh{"data", pm.mesh.dim_names(), pm.mesh.shape()};
        Event& state = add(Phase::parallel_state, Status::done);
        state.topology = ReportedTopology{dp, cp, ep};
        for (const auto& pm : plan.meshes())
            for (std::size_t d = 0; d < pm.mesh.ndim(); ++d) {
                const auto name = pm.mesh.dim_names()[d];
                if (name == "dp" && !dp_groups) continue;
                state.groups[name] = Group::from(pm.mesh.group_of(r, d));
            }
        add(Phase::communicator, Status::started);
        add(Phase::communicator, Status::done);
        add(Phase::ready, Status::done);
        add(Phase::heartbeat, Status::done);
        w.events += out.size();
    }
    return w;
}

const Workload& workload_16k() {
    static const Workload w = make_workload(4096, 4, 32, false);
    return w;
}

// Each iteration ingests the whole job into a fresh Monitor; building and destroying it is left out of the time
// (it happens once per job, not per event).
template <typename Body>
void per_job(benchmark::State& state, Body&& body) {
    for (auto _ : state) {
        auto monitor = std::make_unique<Monitor>();
        body(*monitor);
        state.PauseTiming();
        monitor.reset();
        state.ResumeTiming();
    }
}

// One ingest call per rank: what the collector does with a request carrying one rank's pending events.
void BM_IngestPerRankBatch(benchmark::State& state) {
    const Workload& w = workload_16k();
    per_job(state, [&](Monitor& monitor) {
        for (const auto& events : w.per_rank) monitor.ingest(events, 1.0);
    });
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * w.events));
    state.counters["ranks"] = static_cast<double>(w.per_rank.size());
}
BENCHMARK(BM_IngestPerRankBatch)->Unit(benchmark::kMillisecond)->MinTime(2.0);

// One ingest call per event, interleaved across ranks (rank 0 event 0, rank 1 event 0, ...): the worst order.
void BM_IngestPerEventInterleaved(benchmark::State& state) {
    const Workload& w = workload_16k();
    per_job(state, [&](Monitor& monitor) {
        for (std::size_t k = 0; k < 10; ++k)
            for (const auto& events : w.per_rank)
                if (k < events.size()) monitor.ingest(events[k], 1.0);
    });
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * w.events));
}
BENCHMARK(BM_IngestPerEventInterleaved)->Unit(benchmark::kMillisecond)->MinTime(2.0);

// With a change listener (the server's WebSocket feed): every rank state change is told.
void BM_IngestWithChangeFeed(benchmark::State& state) {
    const Workload& w = workload_16k();
    std::int64_t changes = 0;
    per_job(state, [&](Monitor& monitor) {
        monitor.set_change_listener([&changes](const Change&) { ++changes; });
        for (const auto& events : w.per_rank) monitor.ingest(events, 1.0);
    });
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * w.events));
    state.counters["changes_per_job"] = static_cast<double>(changes) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_IngestWithChangeFeed)->Unit(benchmark::kMillisecond)->MinTime(2.0);

// A faulty job: 1 rank in 64 runs another ep (topology_mismatch) and 1 in 64 reports a wrong ep group.
void BM_IngestFaultyJob(benchmark::State& state) {
    static const Workload w = [] {
        Workload faulty = workload_16k();
        for (std::size_t r = 0; r < faulty.per_rank.size(); r += 64) {
            for (auto& e : faulty.per_rank[r])
                if (e.topology) e.topology->ep = 16;
            for (auto& e : faulty.per_rank[r + 32])
                if (!e.groups.empty()) {  // its first member swapped for the next rank up: [a, b] -> [b + 1, a]
                    auto members = e.groups["ep"].members();
                    std::swap(members[0], members[1]);
                    members[0] += 1;
                    e.groups["ep"] = Group::from(members);
                }
        }
        return faulty;
    }();
    std::size_t findings = 0;
    per_job(state, [&](Monitor& monitor) {
        for (const auto& events : w.per_rank) monitor.ingest(events, 1.0);
        findings = monitor.findings("bench-job").size();
    });
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * w.events));
    state.counters["findings"] = static_cast<double>(findings);
}
BENCHMARK(BM_IngestFaultyJob)->Unit(benchmark::kMillisecond)->MinTime(2.0);

// Reporting dp groups too (2048 members per rank) at 4,096 ranks: the cost of large groups.
void BM_IngestWithDpGroups(benchmark::State& state) {
    static const Workload w = make_workload(2048, 2, 8, true);
    per_job(state, [&](Monitor& monitor) {
        for (const auto& events : w.per_rank) monitor.ingest(events, 1.0);
    });
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * w.events));
    state.counters["ranks"] = static_cast<double>(w.per_rank.size());
}
BENCHMARK(BM_IngestWithDpGroups)->Unit(benchmark::kMillisecond)->MinTime(2.0);

// tick(now) on the ingested 16,384-rank job: stale, missing and straggler statistics over all ranks.
void BM_Tick(benchmark::State& state) {
    const Workload& w = workload_16k();
    Monitor monitor;
    for (const auto& events : w.per_rank) monitor.ingest(events, 1.0);
    double now = 2.0;
    for (auto _ : state) monitor.tick(now += 0.001);
    state.counters["ranks"] = static_cast<double>(w.per_rank.size());
}
BENCHMARK(BM_Tick)->Unit(benchmark::kMillisecond)->MinTime(2.0);

// The ranks query behind GET /api/v1/jobs/{job}/ranks, as JSON text.
void BM_RanksJson(benchmark::State& state) {
    const Workload& w = workload_16k();
    Monitor monitor;
    for (const auto& events : w.per_rank) monitor.ingest(events, 1.0);
    std::size_t bytes = 0;
    for (auto _ : state) bytes = monitor.ranks_json("bench-job")->dump().size();
    state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_RanksJson)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
