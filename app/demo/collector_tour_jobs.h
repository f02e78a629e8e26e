// CollectorTourJobs: the collector's TourJobRunner (server/http/tour_api.h) — the simulated job a tour's live step
// watches, run inside the collector so the web's live-job tour has a real job: the simulator's script and
// heartbeats handed to the Collector in-process (no HTTP, no token, no TLS to speak to itself). One job at a time
// on one thread of its own: a new tour's job replaces the running one, and a held job stops after max_hold
// seconds, so a forgotten tab cannot keep the collector busy. The network thread only posts a request and never
// waits. `meshscope serve` and the dashboard's demo give it to their collector:
//
//   http.tour_jobs = CollectorTourJobs::factory();
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "http/http_options.h"
#include "http/tour_api.h"
#include "simulation.h"
#include "worker_thread.h"

namespace meshscope::demo {

class CollectorTourJobs final : public server::TourJobRunner {
public:
    explicit CollectorTourJobs(server::Collector& collector, double max_hold_seconds = 1800, double time_scale = 50);
    ~CollectorTourJobs() override;  // stops the running job, drops the waiting one and joins
    CollectorTourJobs(const CollectorTourJobs&) = delete;
    CollectorTourJobs& operator=(const CollectorTourJobs&) = delete;

    // A runner of these for each collector that HttpOptions::tour_jobs makes one for.
    [[nodiscard]] static server::TourJobRunnerFactory factory();

    // Starts the job (its ranks keep heartbeating until replaced, stopped or max_hold), or leaves it running
    // when the same job with the same shape already runs. A records job (TourJob::records) is imported once: its
    // dumps diagnosed into the job (hang_jobs.h), as `meshscope import` puts a user's.
    [[nodiscard]] Expected<nlohmann::json> start(const TourJob& job, const std::string& name) override;

private:
    struct Run {
        sim::Scenario scenario;
        std::shared_ptr<std::atomic<bool>> stop;  // set: the run ends (or never starts)
    };
    void play(Run& job);
    [[nodiscard]] Expected<nlohmann::json> start_records(const TourJob& job, const std::string& name);

    server::Collector& collector_;
    double max_hold_;
    double time_scale_;
    std::mutex mutex_;
    std::string running_key_;  // what runs (or waits): the options, as text
    std::shared_ptr<std::atomic<bool>> stop_run_ = std::make_shared<std::atomic<bool>>(false);  // the newest run's
    // ms-tour: one run waits at most (a newer one replaces it), what waits at stop is dropped
    net::WorkerThread<Run> worker_;
};

}  // namespace meshscope::demo
