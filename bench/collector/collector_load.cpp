// Load generator for the collector benchmark: `ranks` simulated ranks each report `events` events through
// the C++ client (one Reporter, `connections` keep-alive connections). Events are released phase by phase
// (every rank's first event, then every rank's second, ...), and a request only ever carries one rank's
// pending events, as requests from real ranks do. Prints one JSON line with the figures; exits 0 when
// every event was acknowledged.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "meshscope/client/reporter.h"

namespace {
const char* phase_of(int i, int events) {
    static const char* script[] = {"launch", "process_group", "device_mesh", "parallel_state", "communicator", "ready"};
    if (i == events - 1) return "exit";
    if (i < 6) return script[i];
    return "heartbeat";
}
}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: collector_load URL [ranks=16384] [events=10] [connections=16] [token] [job]\n");
        return 2;
    }
    const std::string url = argv[1];
    const long ranks = argc > 2 ? std::atol(argv[2]) : 16384;
    const int events = argc > 3 ? std::atoi(argv[3]) : 10;
    const int connections = argc > 4 ? std::atoi(argv[4]) : 16;
    const std::string token = argc > 5 ? argv[5] : "";
    const std::string job = argc > 6 ? argv[6] : "bench-" + std::to_string(std::time(nullptr));

    meshscope::client::ReporterOptions options;
    options.url = url;
    options.token = token;
    options.connections = connections;
    options.max_queue_events = static_cast<std::size_t>(ranks) * events + 1;
    options.max_queue_bytes = std::size_t{1} << 30;
    options.shutdown_timeout = std::chrono::seconds(60);
    meshscope::client::Reporter reporter(options);

    const auto start = std::chrono::steady_clock::now();
    const std::string world = std::to_string(ranks);
    for (int i = 0; i < events; ++i) {
        const char* phase = phase_of(i, events);
        for (long r = 0; r < ranks; ++r) {
            std::string e = "{\"job\":\"" + job + "\",\"rank\":" + std::to_string(r) + ",\"world_size\":" + world +
                            ",\"phase\":\"" + phase + "\",\"status\":\"done\",\"host\":\"node" + std::to_string(r / 8) +
                            "\",\"pid\":" + std::to_string(1000 + r) + "}";
            reporter.enqueue(r, std::move(e));
        }
    }
    const bool flushed = reporter.flush(std::chrono::seconds(120));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto stats = reporter.stats();
    std::printf(
        "{\"job\":\"%s\",\"ranks\":%ld,\"events\":%llu,\"acknowledged\":%llu,\"dropped\":%llu,\"rejected\":%llu,"
        "\"requests\":%llu,\"failures\":%llu,\"seconds\":%.3f,\"events_per_second\":%.0f,\"flushed\":%s}\n",
        job.c_str(), ranks, static_cast<unsigned long long>(stats.enqueued),
        static_cast<unsigned long long>(stats.acknowledged), static_cast<unsigned long long>(stats.dropped),
        static_cast<unsigned long long>(stats.rejected), static_cast<unsigned long long>(stats.requests),
        static_cast<unsigned long long>(stats.failures), seconds, stats.acknowledged / seconds,
        flushed ? "true" : "false");
    if (!stats.last_error.empty()) std::fprintf(stderr, "last error: %s\n", stats.last_error.c_str());
    return flushed && stats.acknowledged == stats.enqueued && stats.dropped == 0 ? 0 : 1;
}
