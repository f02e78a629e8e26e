// The start-up storm: every simulated rank of a scenario is an independent client with its own keep-alive
// TCP connection, as every rank of a real job is its own process (docs/live-at-scale.md, "The workload").
// Ranks start at times uniform over a window, post each phase of their script in one request when the
// phase happens, heartbeat every 5 s after `ready`, and follow the reporter's timeout and retry rules. One
// Asio event loop per worker process; the ranks are split over `processes` forked workers. Optional
// WebSocket dashboards measure how late each rank's `ready` reaches the stream. Qt-free (Boost.Asio/Beast).
//
//   auto scenario = sim::make_scenario({.dp = 128, .cp = 128, .ep = 8}).value();
//   sim::StormOptions options;
//   options.targets = sim::parse_targets("http://127.0.0.1:7077").value();
//   const sim::StormResult result = sim::run_storm(scenario, options, stop);  // blocks; forks workers
//   std::cout << result.summary.dump() << "\n";
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "meshscope/mesh/error.h"
#include "simulation.h"

namespace meshscope::sim {

// One collector (relay, OpenTelemetry Collector agent) address: http://HOST:PORT.
struct StormTarget {
    std::string host;
    std::string port;
    std::string url;  // as given
};

// "http://127.0.0.1:7077,http://127.0.0.1:7078": rank r reports to target r mod n. ValueError:
// "--target: 'x' is not an http://HOST:PORT URL".
[[nodiscard]] Expected<std::vector<StormTarget>> parse_targets(std::string_view text);

// What the ranks speak: meshscope.event/1 to /api/v1/events (a collector or a relay), or OTLP/HTTP JSON logs to
// /v1/logs (a node-local OpenTelemetry Collector, or the collector itself), as MESHSCOPE_PROTOCOL chooses for the
// reporters (docs/protocol.md, "OTLP logs").
enum class StormProtocol { meshscope, otlp };

struct StormOptions {
    std::vector<StormTarget> targets;
    StormProtocol protocol = StormProtocol::meshscope;
    StormTarget stream_target;  // where dashboards connect (host empty: the first target)
    std::string token;
    double speed = 50;              // simulated seconds per real second for the script's phase timing
    double start_window = 3;        // each rank starts at a time uniform over [0, start_window) seconds
    int processes = 1;              // worker processes (each one event loop)
    double duration = 0;            // seconds the run lasts; 0: until every rank's script is done
    double max_run = 120;           // bound on a run with duration 0
    double request_timeout = 5;     // per request, connect included (MESHSCOPE_TIMEOUT_S)
    double heartbeat_interval = 5;  // real seconds between heartbeats after ready
    double first_backoff = 0.25;    // seconds; doubles per failure
    double backoff_max = 5;         // MESHSCOPE_BACKOFF_MAX_S
    int dashboards = 0;             // WebSocket clients on /api/v1/stream
    std::uint64_t seed = 1;         // start times and jitter
    std::string ranks_out;          // non-empty: one JSON line per rank written here (what it did, when)
};

// The most ranks one worker process holds: its descriptor limit (hard RLIMIT_NOFILE) less a reserve.
[[nodiscard]] std::int64_t max_ranks_per_process();

struct StormResult {
    nlohmann::json summary;  // see docs/collector.md, "Simulator"
    bool all_ready = false;  // every rank whose script has a `ready` got it acknowledged
    std::string problem;     // why not, for stderr (empty when all_ready)
};

// Runs the storm to its end (duration, every script done, or `stop`) and summarizes it. Forks
// `options.processes` workers; the calling process runs the dashboards and waits. Blocks.
[[nodiscard]] StormResult run_storm(const Scenario& scenario, const StormOptions& options,
                                    const std::atomic<bool>& stop);

}  // namespace meshscope::sim
