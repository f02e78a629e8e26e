#include "collector_tour_jobs.h"

#include <chrono>
#include <optional>
#include <vector>

#include "collector/collector.h"
#include "hang_jobs.h"
#include "scenarios.h"

namespace meshscope::demo {

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

CollectorTourJobs::CollectorTourJobs(server::Collector& collector, double max_hold_seconds, double time_scale)
    : collector_(collector),
      max_hold_(max_hold_seconds),
      time_scale_(time_scale),
      worker_({.name = "ms-tour",
               .bound = 1,
               .when_full = net::WorkerThread<Run>::WhenFull::replace_oldest,
               .at_stop = net::WorkerThread<Run>::AtStop::drop},
              [this](std::deque<Run>& batch) {
                  for (Run& job : batch) play(job);
              }) {}

CollectorTourJobs::~CollectorTourJobs() {
    {
        std::lock_guard lock(mutex_);
        stop_run_->store(true);
    }
    worker_.stop();
}

server::TourJobRunnerFactory CollectorTourJobs::factory() {
    return [](server::Collector& collector) { return std::make_unique<CollectorTourJobs>(collector); };
}

Expected<nlohmann::json> CollectorTourJobs::start(const TourJob& job, const std::string& name) {
    if (!job.records.empty()) return start_records(job, name);
    const auto options = scenario_for(job, name);
    if (!options) return options.error();
    auto scenario = sim::make_scenario(*options);
    if (!scenario) return scenario.error();
    nlohmann::json summary = sim::summary_json(*scenario);
    const std::string key = options_key(*options);
    std::optional<Run> replaced;  // destroyed after the lock
    std::lock_guard lock(mutex_);
    if (key == running_key_) {
        summary["started"] = false;
        return summary;
    }
    running_key_ = key;
    stop_run_->store(true);  // the run in progress (if any) ends; the worker then takes this one
    stop_run_ = std::make_shared<std::atomic<bool>>(false);
    replaced = worker_.post({std::move(scenario).value(), stop_run_});
    summary["started"] = true;
    return summary;
}

// A shipped fault job's records, imported as `meshscope import` would (a job that is records only: no ranks run).
Expected<nlohmann::json> CollectorTourJobs::start_records(const TourJob& job, const std::string& name) {
    auto records = hang_job_import(job);
    if (!records) return records.error();
    {
        std::lock_guard lock(mutex_);
        if (running_key_ == "records:" + job.records + ":" + name)
            return nlohmann::json{{"job", name},
                                  {"world_size", job.dp * job.cp},
                                  {"injected", nlohmann::json::object()},
                                  {"started", false}};
        running_key_ = "records:" + job.records + ":" + name;
        stop_run_->store(true);  // a simulated job in progress ends
        stop_run_ = std::make_shared<std::atomic<bool>>(false);
    }
    collector_.submit_records(name, to_json(*records).dump(), [](const server::SubmitResult&) {});
    return nlohmann::json{
        {"job", name}, {"world_size", job.dp * job.cp}, {"injected", nlohmann::json::object()}, {"started", true}};
}

void CollectorTourJobs::play(Run& job) {
    if (job.stop->load()) return;  // replaced (or stopping) before it began
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(max_hold_);
    std::atomic<bool>& stop = *job.stop;
    const sim::EventSink sink = [this, until, &stop](const Event& event) {
        collector_.submit(std::vector<Event>{event}, [](const server::SubmitResult&) {});
        if (std::chrono::steady_clock::now() > until) stop = true;
    };
    sim::RunOptions run;
    run.time_scale = time_scale_;
    run.hold = true;
    run.heartbeat_interval = 1.0;
    sim::run_scenario(job.scenario, sink, run, stop);
    std::lock_guard lock(mutex_);
    if (stop_run_ == job.stop) running_key_.clear();  // over (replaced runs leave the key to their successor)
}

}  // namespace meshscope::demo
