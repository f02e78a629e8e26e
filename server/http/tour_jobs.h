// TourJobs: the simulated job a tour's live step watches (docs/tours.md, "live"), run inside this collector so
// the web's live-job tour has a real job: the simulator's script and heartbeats handed to the Collector
// in-process (no HTTP, no token, no TLS to speak to itself). One job at a time on one thread of its own: a new
// tour's job replaces the running one, and a held job stops after max_hold seconds, so a forgotten tab cannot
// keep the collector busy. The network thread only posts a request and never waits.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "meshscope/error.h"
#include "simulation.h"

namespace meshscope::server {

class Collector;

class TourJobs {
public:
    explicit TourJobs(Collector& collector, double max_hold_seconds = 1800, double time_scale = 50);
    ~TourJobs();  // stops the running job and joins
    TourJobs(const TourJobs&) = delete;
    TourJobs& operator=(const TourJobs&) = delete;

    // Starts the job (its ranks keep heartbeating until replaced, stopped or max_hold), or leaves it running
    // when the same job with the same options already runs. ValueError from the simulator for a shape or
    // faults it refuses. The answer: simulate's summary {"job", "world_size", "injected"} and "started"
    // (false: it was running already).
    [[nodiscard]] Expected<nlohmann::json> start(const sim::ScenarioOptions& options);

private:
    void run();

    Collector& collector_;
    double max_hold_;
    double time_scale_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::optional<sim::Scenario> next_;  // waiting to run
    std::string running_key_;            // what runs (or waits): the options, as text
    bool stopping_ = false;
    std::atomic<bool> stop_run_{false};  // ends the run in progress
    std::thread thread_;
};

}  // namespace meshscope::server
