// LiveDemo: what `meshscope` with no arguments shows a new user — a collector embedded in-process
// (CollectorService on a random loopback port, a history database in a temporary folder) and a simulated
// 64-GPU FSDPTurbo job with a few faults, whose ranks keep heartbeating (--hold) until the demo ends. The
// Live page connects to it over loopback exactly as it would to a remote `meshscope serve`, and the collector
// runs the tours' jobs that a browser asks it for (CollectorTourJobs) as `meshscope serve` does.
//
//   auto demo = LiveDemo::start({}).value();   // needs a Q(Core|Gui)Application
//   session.inputs()->setUrl(demo->url());             // then watch
//   demo->add_job({.dp = 8, .cp = 2, .ep = 2, .job = "tour-live-job"});  // a guided tour's job beside it
#pragma once

#include <QString>
#include <QTemporaryDir>

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "meshscope/mesh/error.h"
#include "scenarios.h"
#include "simulation.h"

namespace meshscope::server {
class CollectorService;
}
namespace meshscope::client {
class Reporter;
}

namespace meshscope::demo {

struct LiveDemoOptions {
    // dp=32 cp=2 ep=8 on 8 GPUs per node: 64 ranks on 8 nodes, an expert mesh of 4 efsdp blocks.
    sim::ScenarioOptions scenario = demo_scenario();
    double missing_after = 2.0;  // seconds: the demo shows its missing rank early
    double stale_after = 30.0;
    double time_scale = 50;  // simulated seconds per real second
    bool demo_job = true;    // false: an empty collector, for jobs added later (a guided tour's)
};

class LiveDemo {
public:
    // RuntimeError when the collector cannot start; ValueError when the scenario is refused.
    [[nodiscard]] static Expected<std::unique_ptr<LiveDemo>> start(LiveDemoOptions options = {});
    ~LiveDemo();  // stops the ranks, then the collector
    LiveDemo(const LiveDemo&) = delete;
    LiveDemo& operator=(const LiveDemo&) = delete;

    [[nodiscard]] QString url() const;
    // The demo job (empty without one).
    [[nodiscard]] QString job() const { return QString::fromStdString(scenario().job); }
    [[nodiscard]] std::int64_t worldSize() const { return scenario().world_size; }
    // How many finding kinds the simulator injected (the page has settled once it shows them all).
    [[nodiscard]] int injectedKinds() const { return static_cast<int>(scenario().injected.size()); }
    [[nodiscard]] const sim::Scenario& scenario() const;

    // Another simulated job in the same collector, held like the demo's (a guided tour's job): the scenario's
    // ValueError when it is refused, nothing when it runs. A job of a name already running is not started again.
    [[nodiscard]] std::optional<Error> add_job(const sim::ScenarioOptions& options);
    // A job's records body (meshscope.records/1, hang_jobs.h) imported into the same collector as job `name`, as
    // `meshscope import` would; a later import of the job replaces it.
    void add_records(const std::string& name, std::string body);
    // The scenario of a job this demo runs; null for any other name.
    [[nodiscard]] const sim::Scenario* job_scenario(const QString& job) const;

private:
    // One simulated job: its script, its own reporter (one connection each) and the thread that plays it.
    struct Job {
        sim::Scenario scenario;
        std::unique_ptr<client::Reporter> reporter;
        std::thread ranks;
    };

    LiveDemo() = default;
    void run(sim::Scenario scenario);

    QTemporaryDir folder_;
    std::unique_ptr<server::CollectorService> service_;
    std::map<std::string, std::string> imported_;  // add_records: the last body imported into each job
    sim::RunOptions run_;
    std::vector<std::unique_ptr<Job>> jobs_;  // the demo's first, when it has one
    bool has_demo_job_ = false;
    std::atomic<bool> stop_{false};
};

}  // namespace meshscope::demo
