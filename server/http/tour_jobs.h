// TourJobs: the simulated job a tour's live step watches (docs/tours.md, "live"), run inside this collector so
// the web's live-job tour has a real job: the simulator's script and heartbeats handed to the Collector
// in-process (no HTTP, no token, no TLS to speak to itself). One job at a time on one thread of its own: a new
// tour's job replaces the running one, and a held job stops after max_hold seconds, so a forgotten tab cannot
// keep the collector busy. The network thread only posts a request and never waits.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "meshscope/error.h"
#include "simulation.h"
#include "worker_thread.h"

namespace meshscope::server {

class Collector;

class TourJobs {
public:
    explicit TourJobs(Collector& collector, double max_hold_seconds = 1800, double time_scale = 50);
    ~TourJobs();  // stops the running job, drops the waiting one and joins
    TourJobs(const TourJobs&) = delete;
    TourJobs& operator=(const TourJobs&) = delete;

    // Starts the job (its ranks keep heartbeating until replaced, stopped or max_hold), or leaves it running
    // when the same job with the same options already runs. ValueError from the simulator for a shape or
    // faults it refuses. The answer: simulate's summary {"job", "world_size", "injected"} and "started"
    // (false: it was running already).
    [[nodiscard]] Expected<nlohmann::json> start(const sim::ScenarioOptions& options);

private:
    struct Run {
        sim::Scenario scenario;
        std::shared_ptr<std::atomic<bool>> stop;  // set: the run ends (or never starts)
    };
    void play(Run& job);

    Collector& collector_;
    double max_hold_;
    double time_scale_;
    std::mutex mutex_;
    std::string running_key_;  // what runs (or waits): the options, as text
    std::shared_ptr<std::atomic<bool>> stop_run_ = std::make_shared<std::atomic<bool>>(false);  // the newest run's
    // ms-tour: one run waits at most (a newer one replaces it), what waits at stop is dropped
    net::WorkerThread<Run> worker_;
};

}  // namespace meshscope::server
