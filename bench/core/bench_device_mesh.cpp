// The expert mesh of dp = 2^19, cp = 2, ep = 8: shape (1, 65536, 8, 2), 2^20 ranks. What PyTorch computes
// with tensors when it builds a DeviceMesh (every group of every dim, as lists) and what a tool needs per
// rank (its coordinate), measured the way torch_path.py measures PyTorch.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "meshscope/mesh/parallel_state.h"

namespace {
using meshscope::CreationOrder;
using meshscope::DeviceMesh;

const DeviceMesh& expert_mesh() {
    static const DeviceMesh mesh =
        meshscope::make_expert_mesh(meshscope::Topology::make(std::int64_t{1} << 19, 2, 8).value()).value();
    return mesh;
}

// Every rank's coordinate on every dim, one lookup at a time (what a per-rank query costs).
std::vector<std::int64_t> coordinates_one_by_one(const DeviceMesh& mesh) {
    const auto ndim = mesh.ndim();
    std::vector<std::int64_t> table(static_cast<std::size_t>(mesh.size()) * ndim);
    std::size_t i = 0;
    for (std::int64_t r = 0; r < mesh.size(); ++r)
        for (std::size_t d = 0; d < ndim; ++d) table[i++] = mesh.coordinate(r, d);
    return table;
}

// Every group of every dim, one flat table per dim (the tensor PyTorch holds before .tolist()).
std::size_t all_groups(const DeviceMesh& mesh, CreationOrder order) {
    std::size_t members = 0;
    for (std::size_t d = 0; d < mesh.ndim(); ++d) {
        auto table = mesh.group_table(d, order);
        members += table.size();
        benchmark::DoNotOptimize(table.data());
    }
    return members;
}

// The same as nested vectors, one allocation per group (like .tolist()'s list of lists).
std::size_t all_groups_nested(const DeviceMesh& mesh, CreationOrder order) {
    std::size_t members = 0;
    for (std::size_t d = 0; d < mesh.ndim(); ++d) {
        auto groups = mesh.groups(d, order);
        members += groups.size() * groups.front().size();
        benchmark::DoNotOptimize(groups.data());
    }
    return members;
}

void BM_Coordinates(benchmark::State& state) {
    const auto& mesh = expert_mesh();
    for (auto _ : state) {
        auto table = mesh.coordinate_table();
        benchmark::DoNotOptimize(table.data());
    }
    state.SetItemsProcessed(state.iterations() * mesh.size());
}

void BM_CoordinatesOneByOne(benchmark::State& state) {
    const auto& mesh = expert_mesh();
    for (auto _ : state) {
        auto table = coordinates_one_by_one(mesh);
        benchmark::DoNotOptimize(table.data());
    }
    state.SetItemsProcessed(state.iterations() * mesh.size());
}

void BM_CoordinateVectors(benchmark::State& state) {
    const auto& mesh = expert_mesh();
    for (auto _ : state) {
        std::int64_t sum = 0;
        for (std::int64_t r = 0; r < mesh.size(); ++r) sum += mesh.coordinate(r)[1];
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * mesh.size());
}

void BM_AllGroups(benchmark::State& state) {
    const auto& mesh = expert_mesh();
    const auto order = state.range(0) == 29 ? CreationOrder::torch29 : CreationOrder::torch28;
    for (auto _ : state) benchmark::DoNotOptimize(all_groups(mesh, order));
    state.SetItemsProcessed(state.iterations() * mesh.size() * static_cast<std::int64_t>(mesh.ndim()));
}

void BM_AllGroupsNested(benchmark::State& state) {
    const auto& mesh = expert_mesh();
    const auto order = state.range(0) == 29 ? CreationOrder::torch29 : CreationOrder::torch28;
    for (auto _ : state) benchmark::DoNotOptimize(all_groups_nested(mesh, order));
    state.SetItemsProcessed(state.iterations() * mesh.size() * static_cast<std::int64_t>(mesh.ndim()));
}

// Visiting every group without keeping them (what the plan JSON writer and the NCCL probe do).
void BM_VisitGroups(benchmark::State& state) {
    const auto& mesh = expert_mesh();
    const auto order = state.range(0) == 29 ? CreationOrder::torch29 : CreationOrder::torch28;
    for (auto _ : state) {
        std::int64_t sum = 0;
        for (std::size_t d = 0; d < mesh.ndim(); ++d)
            mesh.for_each_group(d, order,
                                [&sum](std::int64_t, std::span<const std::int64_t> ranks) { sum += ranks.back(); });
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * mesh.size() * static_cast<std::int64_t>(mesh.ndim()));
}

// The headline figure: coordinates of every rank plus all groups of every dim, materialized.
void BM_CoordinatesAndAllGroups(benchmark::State& state) {
    const auto& mesh = expert_mesh();
    const auto order = state.range(0) == 29 ? CreationOrder::torch29 : CreationOrder::torch28;
    for (auto _ : state) {
        auto table = mesh.coordinate_table();
        benchmark::DoNotOptimize(table.data());
        benchmark::DoNotOptimize(all_groups(mesh, order));
    }
}

// The same, written into tables the caller keeps between calls (the planner rebuilds them for every topology
// the user tries): the counting alone, without the page faults of fresh memory.
void BM_CoordinatesAndAllGroupsReused(benchmark::State& state) {
    const auto& mesh = expert_mesh();
    const auto order = state.range(0) == 29 ? CreationOrder::torch29 : CreationOrder::torch28;
    meshscope::Table<std::int64_t> coordinates(static_cast<std::size_t>(mesh.size()) * mesh.ndim());
    std::vector<meshscope::Table<std::int64_t>> groups(
        mesh.ndim(), meshscope::Table<std::int64_t>(static_cast<std::size_t>(mesh.size())));
    for (auto _ : state) {
        mesh.fill_coordinate_table(coordinates);
        benchmark::DoNotOptimize(coordinates.data());
        for (std::size_t d = 0; d < mesh.ndim(); ++d) {
            mesh.fill_group_table(d, order, groups[d]);
            benchmark::DoNotOptimize(groups[d].data());
        }
        benchmark::ClobberMemory();
    }
}

// The floor under BM_CoordinatesAndAllGroups: getting 64 MB of fresh table memory and writing it once
// (memset), with no counting at all. On this VM the page faults dominate.
void BM_FreshTableMemory(benchmark::State& state) {
    const auto& mesh = expert_mesh();
    const auto values = static_cast<std::size_t>(mesh.size()) * mesh.ndim();
    for (auto _ : state) {
        for (int table = 0; table < 2; ++table) {  // coordinates, then the groups of every dim
            meshscope::Table<std::int64_t> fresh(values);
            std::memset(fresh.data(), 1, values * sizeof(std::int64_t));
            benchmark::DoNotOptimize(fresh.data());
            benchmark::ClobberMemory();
        }
    }
}

// Coordinates of every rank plus all groups of every dim, streamed to a consumer that reads every value
// (a checksum), as `meshscope plan --format json` and the span analysis use them: nothing is materialized,
// so the figure is the computation rather than the page faults of 64 MB of fresh tables.
void BM_StreamCoordinatesAndAllGroups(benchmark::State& state) {
    const auto& mesh = expert_mesh();
    const auto order = state.range(0) == 29 ? CreationOrder::torch29 : CreationOrder::torch28;
    for (auto _ : state) {
        std::int64_t sum = 0;
        mesh.for_each_coordinate([&sum](std::int64_t, std::span<const std::int64_t> c) {
            for (const std::int64_t v : c) sum += v;
        });
        for (std::size_t d = 0; d < mesh.ndim(); ++d)
            mesh.for_each_group(d, order, [&sum](std::int64_t, std::span<const std::int64_t> ranks) {
                for (const std::int64_t r : ranks) sum += r;
            });
        benchmark::DoNotOptimize(sum);
    }
}

// One rank's ep group at a time, for every rank (what a per-rank inspector asks).
void BM_GroupOfEveryRank(benchmark::State& state) {
    const auto& mesh = expert_mesh();
    for (auto _ : state) {
        std::int64_t sum = 0;
        for (std::int64_t r = 0; r < mesh.size(); ++r) sum += mesh.group_of(r, 2).back();
        benchmark::DoNotOptimize(sum);
    }
    state.SetItemsProcessed(state.iterations() * mesh.size());
}

}  // namespace

BENCHMARK(BM_Coordinates)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CoordinatesOneByOne)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CoordinateVectors)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AllGroups)->Arg(29)->Arg(28)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AllGroupsNested)->Arg(29)->Arg(28)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_VisitGroups)->Arg(29)->Arg(28)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CoordinatesAndAllGroups)->Arg(29)->Arg(28)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CoordinatesAndAllGroupsReused)->Arg(29)->Arg(28)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FreshTableMemory)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StreamCoordinatesAndAllGroups)->Arg(29)->Arg(28)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GroupOfEveryRank)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
