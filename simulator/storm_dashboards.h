// The storm's dashboards: WebSocket clients on the collector's stream that note, for every rank of the
// job, when they first see it turn `ready` (run clock). Run on their own thread and event loop, in the
// storm's parent process, so that they never compete with a worker's ranks for its loop.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "storm_worker.h"

namespace meshscope::sim::storm {

struct DashboardReport {
    std::vector<double> ready_seen;  // per rank, run clock; -1: never seen ready
    std::uint64_t messages = 0;
    std::uint64_t bytes = 0;
    std::string error;  // why it could not connect or was cut off (empty: fine)
};

class Dashboards {
public:
    Dashboards(const StormTarget& target, const std::string& token, const std::string& job, std::int64_t world_size,
               int count, Clock::time_point origin);
    ~Dashboards();
    Dashboards(const Dashboards&) = delete;
    Dashboards& operator=(const Dashboards&) = delete;

    // Connects every dashboard; returns once each has its hello (or failed), or after `timeout`.
    void start(std::chrono::milliseconds timeout);
    // The fewest ranks any connected dashboard has seen ready so far (thread-safe).
    [[nodiscard]] std::int64_t least_seen() const;
    // Closes them and joins the thread; then reports() is safe to read.
    void stop();
    [[nodiscard]] std::vector<DashboardReport> reports() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace meshscope::sim::storm
