#include "tour_jobs.h"

#include <chrono>
#include <vector>

#include "collector/collector.h"

namespace meshscope::server {

namespace {
// Equal options give an equal key: a tab that opens the same step again watches the job already running.
std::string options_key(const sim::ScenarioOptions& o) {
    nlohmann::json faults = nlohmann::json::object();
    for (const auto& [kind, count] : o.faults) faults[std::string(to_string(kind))] = count;
    return nlohmann::json{{"job", o.job},     {"dp", o.dp},    {"cp", o.cp}, {"ep", o.ep}, {"gpus", o.gpus_per_node},
                          {"faults", faults}, {"seed", o.seed}}
        .dump();
}
}  // namespace

TourJobs::TourJobs(Collector& collector, double max_hold_seconds, double time_scale)
    : collector_(collector), max_hold_(max_hold_seconds), time_scale_(time_scale), thread_([this] { run(); }) {}

TourJobs::~TourJobs() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        stop_run_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

Expected<nlohmann::json> TourJobs::start(const sim::ScenarioOptions& options) {
    auto scenario = sim::make_scenario(options);
    if (!scenario) return scenario.error();
    nlohmann::json summary = sim::summary_json(*scenario);
    const std::string key = options_key(options);
    std::lock_guard lock(mutex_);
    if (key == running_key_) {
        summary["started"] = false;
        return summary;
    }
    running_key_ = key;
    next_ = std::move(scenario).value();
    stop_run_ = true;  // the run in progress (if any) ends; run() then takes next_
    wake_.notify_all();
    summary["started"] = true;
    return summary;
}

void TourJobs::run() {
    for (;;) {
        sim::Scenario scenario;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [this] { return stopping_ || next_.has_value(); });
            if (stopping_) return;
            scenario = std::move(*next_);
            next_.reset();
            stop_run_ = false;
        }
        const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(max_hold_);
        const sim::EventSink sink = [this, until](const Event& event) {
            collector_.submit(std::vector<Event>{event}, [](const SubmitResult&) {});
            if (std::chrono::steady_clock::now() > until) stop_run_ = true;
        };
        sim::RunOptions run;
        run.time_scale = time_scale_;
        run.hold = true;
        run.heartbeat_interval = 1.0;
        sim::run_scenario(scenario, sink, run, stop_run_);
        std::lock_guard lock(mutex_);
        if (!next_) running_key_.clear();  // over (replaced runs leave the key to their successor)
    }
}

}  // namespace meshscope::server
