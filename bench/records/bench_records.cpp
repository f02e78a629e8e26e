// The NCCL INFO log reader on a log shaped like a real start-up: per rank the version, the world init, topology,
// channel and transport lines (most of a real log, skipped at the cost of one search), the splits of a plan's
// groups, and timings; 8 ranks per host, interleaved as one file for the job. Reported as bytes per second.
#include <benchmark/benchmark.h>

#include <string>

#include "meshscope/records/diagnose.h"
#include "meshscope/records/nccl_log.h"

#include <nlohmann/json.hpp>

namespace {
std::string make_log(int world) {
    std::string out;
    for (int r = 0; r < world; ++r) {
        const std::string p = "[rank" + std::to_string(r) + "]:node" + std::to_string(r / 8) + ":" +
                              std::to_string(40000 + r) + ":" + std::to_string(40100 + r) + " [" +
                              std::to_string(r % 8) + "] NCCL INFO ";
        const std::string comm = "0x55" + std::to_string(100000 + r) + "a0";
        out += p + "NCCL version 2.26.2+cuda12.8\n";
        out += p + "ncclCommInitRankConfig comm " + comm + " rank " + std::to_string(r) + " nranks " +
               std::to_string(world) + " cudaDev 0 nvmlDev 0 busId 1b000 commId 0x7c0ffee0d15ea5e1 - Init START\n";
        for (int c = 0; c < 32; ++c)
            out += p + "Channel " + std::to_string(c) + "/32 : 0[0] -> 1[1] via P2P/CUMEM/read\n";
        for (int c = 0; c < 8; ++c) out += p + "Trees [0] 1/-1/-1->0->-1 [1] 1/-1/-1->0->-1\n";
        out += p + "comm " + comm + " rank " + std::to_string(r) + " nRanks " + std::to_string(world) +
               " nNodes 2 localRanks 8 localRank 0 MNNVL 0\n";
        out += p + "ncclCommInitRankConfig comm " + comm + " rank " + std::to_string(r) + " nranks " +
               std::to_string(world) + " cudaDev 0 nvmlDev 0 busId 1b000 commId 0x7c0ffee0d15ea5e1 - Init COMPLETE\n";
        for (int s = 1; s <= 4; ++s)
            out += p + "ncclCommSplit comm 0x66" + std::to_string(r) +
                   " rank 0 nranks 8 cudaDev 0 nvmlDev 0 busId 1b000 parent " + comm + " splitCount " +
                   std::to_string(s) + " color 0 key " + std::to_string(r) + "- Init START\n";
    }
    return out;
}

void BM_NcclLog(benchmark::State& state) {
    const std::string log = make_log(static_cast<int>(state.range(0)));
    for (auto _ : state) {
        meshscope::records::NcclLog parsed;
        meshscope::records::NcclLogParser parser("bench.log", parsed);
        for (std::size_t i = 0; i < log.size(); i += 1 << 20) parser.feed(std::string_view(log).substr(i, 1 << 20));
        parser.finish();
        benchmark::DoNotOptimize(parsed.comm_lines.data());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(log.size()));
    state.counters["MB"] = static_cast<double>(log.size()) / 1e6;
}
BENCHMARK(BM_NcclLog)->Arg(1024)->Arg(16384)->Unit(benchmark::kMillisecond);

// One Flight Recorder dump as torch's JSON form writes it (fields of torch 2.15's "2.10", no frames): `entries`
// collectives cycling over the world group and a rank's efsdp and ep groups.
std::string make_dump(int rank, int entries) {
    nlohmann::json d = {{"version", "2.10"},
                        {"comm_lib_version", ""},
                        {"pg_config", nlohmann::json::object()},
                        {"pg_status", nlohmann::json::object()}};
    nlohmann::json list = nlohmann::json::array();
    const char* names[] = {"0", "1", "5"};
    const char* descs[] = {"default_pg", "mesh_efsdp", "mesh_ep"};
    for (int i = 0; i < entries; ++i) {
        const int g = i % 3;
        list.push_back({{"record_id", i},
                        {"pg_id", g},
                        {"process_group", {names[g], descs[g]}},
                        {"collective_seq_id", i / 3 + 1},
                        {"p2p_seq_id", 0},
                        {"op_id", i / 3 + 1},
                        {"profiling_name", "nccl:all_reduce"},
                        {"time_created_ns", 1796308171945793676LL + i},
                        {"input_sizes", {{4096, 1024}}},
                        {"input_dtypes", {"BFloat16"}},
                        {"output_sizes", {{4096, 1024}}},
                        {"output_dtypes", {"BFloat16"}},
                        {"state", "completed"},
                        {"time_discovered_started_ns", 1796308171945793676LL + i},
                        {"time_discovered_completed_ns", 1796308171945793676LL + i + 5},
                        {"retired", true},
                        {"timeout_ms", 600000},
                        {"is_p2p", false},
                        {"duration_ms", 1.5},
                        {"thread_id", "139996308675456"},
                        {"thread_name", "python"}});
    }
    d["entries"] = std::move(list);
    (void)rank;
    return d.dump();
}

void BM_FrDumpJson(benchmark::State& state) {
    const std::string dump = make_dump(3, static_cast<int>(state.range(0)));
    for (auto _ : state) {
        auto d = meshscope::records::read_fr_dump(dump, "nccl_trace_rank_3");
        benchmark::DoNotOptimize(d.has_value());
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(dump.size()));
    state.counters["entries/s"] = benchmark::Counter(
        static_cast<double>(state.range(0)) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_FrDumpJson)->Arg(2000)->Unit(benchmark::kMillisecond);

// The diagnosis of `ranks` dumps already read (dp = ranks, ep 8), each with `entries` entries.
void BM_DiagnoseFr(benchmark::State& state) {
    const int ranks = static_cast<int>(state.range(0)), entries = static_cast<int>(state.range(1));
    meshscope::records::RecordSet set;
    const auto one = meshscope::records::read_fr_dump(make_dump(0, entries), "x").value();
    for (int r = 0; r < ranks; ++r) {
        auto d = one;
        d.rank = r;
        d.file = "nccl_trace_rank_" + std::to_string(r);
        set.dumps.push_back(std::move(d));
    }
    const auto plan = meshscope::Plan::make(meshscope::Topology::make(ranks, 1, 8).value(), 8).value();
    for (auto _ : state) {
        auto diagnosis = meshscope::records::diagnose(set, &plan);
        benchmark::DoNotOptimize(diagnosis.groups.data());
    }
}
BENCHMARK(BM_DiagnoseFr)->Args({1024, 200})->Unit(benchmark::kMillisecond);
}  // namespace

BENCHMARK_MAIN();
