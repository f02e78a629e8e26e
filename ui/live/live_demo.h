// LiveDemo: what `meshscope` with no arguments shows a new user — a collector embedded in-process
// (CollectorService on a random loopback port, a history database in a temporary folder) and a simulated
// 64-GPU FSDPTurbo job with a few faults, whose ranks keep heartbeating (--hold) until the demo ends. The
// Live page connects to it over loopback exactly as it would to a remote `meshscope serve`.
//
//   auto demo = LiveDemo::start({}).value();   // needs a Q(Core|Gui)Application
//   session.inputs()->setUrl(demo->url());             // then watch
#pragma once

#include <QString>
#include <QTemporaryDir>

#include <atomic>
#include <memory>
#include <thread>

#include "meshscope/error.h"
#include "simulation.h"

namespace meshscope::server {
class CollectorService;
}
namespace meshscope::client {
class Reporter;
}

namespace meshscope::ui {

// The demo job: dp=32 cp=2 ep=8 with a topology mismatch, a straggler and a missing rank.
[[nodiscard]] sim::ScenarioOptions demo_scenario();

struct LiveDemoOptions {
    // dp=32 cp=2 ep=8 on 8 GPUs per node: 64 ranks on 8 nodes, an expert mesh of 4 efsdp blocks.
    sim::ScenarioOptions scenario = demo_scenario();
    double missing_after = 2.0;  // seconds: the demo shows its missing rank early
    double stale_after = 30.0;
    double time_scale = 50;  // simulated seconds per real second
};

class LiveDemo {
public:
    // RuntimeError when the collector cannot start; ValueError when the scenario is refused.
    [[nodiscard]] static Expected<std::unique_ptr<LiveDemo>> start(LiveDemoOptions options = {});
    ~LiveDemo();  // stops the ranks, then the collector
    LiveDemo(const LiveDemo&) = delete;
    LiveDemo& operator=(const LiveDemo&) = delete;

    [[nodiscard]] QString url() const;
    [[nodiscard]] QString job() const { return QString::fromStdString(scenario_.job); }
    [[nodiscard]] std::int64_t worldSize() const { return scenario_.world_size; }
    // How many finding kinds the simulator injected (the page has settled once it shows them all).
    [[nodiscard]] int injectedKinds() const { return static_cast<int>(scenario_.injected.size()); }
    [[nodiscard]] const sim::Scenario& scenario() const { return scenario_; }

private:
    LiveDemo() = default;

    QTemporaryDir folder_;
    std::unique_ptr<server::CollectorService> service_;
    std::unique_ptr<client::Reporter> reporter_;
    sim::Scenario scenario_;
    std::atomic<bool> stop_{false};
    std::thread ranks_;
};

}  // namespace meshscope::ui
