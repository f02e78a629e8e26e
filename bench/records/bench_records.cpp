// The NCCL INFO log reader on a log shaped like a real start-up: per rank the version, the world init, topology,
// channel and transport lines (most of a real log, skipped at the cost of one search), the splits of a plan's
// groups, and timings; 8 ranks per host, interleaved as one file for the job. Reported as bytes per second.
#include <benchmark/benchmark.h>

#include <string>

#include "meshscope/records/diagnose.h"
#include "meshscope/records/nccl_log.h"

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
}  // namespace

BENCHMARK_MAIN();
