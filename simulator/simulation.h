// The cluster simulator: simulated ranks of an FSDPTurbo job that speak the real protocol
// (meshscope.event/1) through the C++ client, time-compressed, with faults injected on chosen ranks.
// The groups come from core (Plan / DeviceMesh), so a healthy simulated job is exactly what a healthy
// real job reports, and the collector must find exactly the injected faults. Used by `meshscope simulate`
// and by the desktop's built-in demo (in-process, against an embedded collector). Qt-free.
//
//   auto scenario = sim::make_scenario({.dp = 8, .cp = 2, .ep = 4, .faults = {{FindingKind::straggler, 1}}}).value();
//   client::Reporter reporter({.url = service->url().toStdString()});
//   std::atomic<bool> stop{false};
//   std::thread([&] { sim::run_scenario(scenario, reporter, {.hold = true}, stop); });
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "meshscope/client/reporter.h"
#include "meshscope/mesh/error.h"
#include "meshscope/monitor/event.h"
#include "meshscope/monitor/finding.h"

namespace meshscope::sim {

using FaultCounts = std::map<FindingKind, int>;

// "topology_mismatch=1,straggler=2" (a kind alone means 1). ValueError naming the bad item:
// "--faults: unknown finding kind 'x'", "--faults: 'straggler=-1' needs a count from 0 to 1000".
[[nodiscard]] Expected<FaultCounts> parse_faults(std::string_view text);

struct ScenarioOptions {
    std::int64_t dp = 8;
    std::int64_t cp = 1;
    std::int64_t ep = 1;
    std::int64_t gpus_per_node = 8;
    std::string job;  // empty: "sim-<seed>"
    FaultCounts faults;
    std::uint64_t seed = 1;
    double start_ts = 0;  // the simulated clock's origin (sender ts); 0: now
};

// One event of the script: when (simulated seconds after the start) and for which rank.
struct ScheduledEvent {
    double at = 0;
    std::int64_t rank = 0;
    Event event;  // sent as to_json(event)
};

struct Scenario {
    std::string job;
    std::int64_t world_size = 0;
    std::int64_t gpus_per_node = 8;                             // rank r runs on host "node{r / gpus_per_node}"
    std::map<FindingKind, std::vector<std::int64_t>> injected;  // kind -> the ranks at fault (sorted)
    std::vector<ScheduledEvent> events;                         // sorted by time
    std::vector<std::int64_t> heartbeating;                     // ranks that keep sending heartbeats while held
    double start_ts = 0;
    double end_at = 0;  // simulated time of the last scripted event
};

// Builds the script. ValueError for a layout core refuses (its exact message) or faults the world cannot
// hold ("--faults: 5 faulty ranks need a world of at least ..., got 4").
[[nodiscard]] Expected<Scenario> make_scenario(const ScenarioOptions& options);

// {"job": ..., "world_size": W, "injected": {kind: [ranks]}} — what `meshscope simulate` prints.
[[nodiscard]] nlohmann::json summary_json(const Scenario& scenario);

struct RunOptions {
    double time_scale = 50;                // simulated seconds per real second
    bool hold = false;                     // keep heartbeating (no exit events) until `stop`
    double heartbeat_interval = 1.0;       // real seconds between heartbeats while held
    std::function<void()> on_script_sent;  // after the scripted events (and exits) were handed over
};

struct RunResult {
    std::uint64_t events = 0;  // handed to the reporter
    bool stopped = false;      // `stop` ended the run early
};

// Releases the script's events into the reporter at their (compressed) times, then, when holding, sends
// heartbeats until `stop`. Blocks; returns without waiting for acknowledgements (use reporter.flush()).
RunResult run_scenario(const Scenario& scenario, client::Reporter& reporter, const RunOptions& options,
                       const std::atomic<bool>& stop);
// The same run into any sink (the collector's own tour jobs hand the events to it in-process, no HTTP).
using EventSink = std::function<void(const Event&)>;
RunResult run_scenario(const Scenario& scenario, const EventSink& sink, const RunOptions& options,
                       const std::atomic<bool>& stop);

}  // namespace meshscope::sim
