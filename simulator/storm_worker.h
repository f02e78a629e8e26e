// Inside the storm (storm.h): what one worker process runs and what it reports back per rank.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "storm.h"

namespace meshscope::sim::storm {

using Clock = std::chrono::steady_clock;  // CLOCK_MONOTONIC: one clock for the parent and its workers

// One request of a rank's script, at its real time on the run clock (seconds after the run's origin).
struct ScriptItem {
    double at = 0;
    std::string body;
    bool ready = false;      // the `ready` phase
    bool heartbeat = false;  // refused or failed: dropped, never retried
};

struct RankPlan {
    std::int64_t rank = 0;
    std::size_t target = 0;
    double start = 0;               // when the rank's process "starts" (run clock)
    std::vector<ScriptItem> items;  // in order; one request each
    bool heartbeats = false;        // keeps heartbeating after its script (a healthy rank)
    std::string host;               // for its heartbeat and exit events
};

inline constexpr std::size_t max_recorded_acks = 16;

// What one rank did. Plain data: a worker writes an array of these to its parent through a pipe.
struct RankRecord {
    std::int64_t rank = 0;
    double first_connect = -1;  // run clock; -1: never connected
    double ready_due = -1;      // when its ready phase happened
    double ready_sent = -1;     // when its last attempt was sent
    double ready_ack = -1;      // when the collector acknowledged it
    bool expects_ready = false;
    bool script_done = false;  // every scripted request acknowledged or finally refused
    std::uint32_t requests = 0;
    std::uint32_t acknowledged = 0;
    std::uint32_t rejected = 0;  // 4xx other than 408/429: final, the events are dropped
    std::uint32_t refusals = 0;  // 503 (or 429) with Retry-After
    std::uint32_t timeouts = 0;
    std::uint32_t failures = 0;  // refused connections, resets, 5xx without Retry-After, 408
    std::uint32_t retries = 0;
    std::uint32_t reconnects = 0;
    std::uint32_t heartbeats_sent = 0;
    std::uint32_t heartbeats_acked = 0;
    std::uint32_t heartbeats_refused = 0;
    std::uint32_t heartbeats_failed = 0;
    std::uint32_t lifecycle_acked = 0;             // lifecycle events (not heartbeats) acknowledged, its exit included
    bool exit_acked = false;                       // the exit it posts at the end of the run was acknowledged
    std::array<double, max_recorded_acks> acks{};  // ack time of each scripted request (run clock; 0: none)
    std::array<char, 96> last_error{};
};

struct WorkerSettings {
    std::vector<StormTarget> targets;
    StormProtocol protocol = StormProtocol::meshscope;
    std::string token;
    Clock::time_point origin;
    double end_at = 0;  // run clock: when the run ends at the latest
    bool end_when_done = true;
    double request_timeout = 1;
    double heartbeat_interval = 5;
    double first_backoff = 0.25;
    double backoff_max = 5;
    std::string job;
    std::int64_t world_size = 0;
    std::uint64_t seed = 1;
};

// Runs `plans` in one Asio event loop until the run ends, then returns one record per plan (same order).
[[nodiscard]] std::vector<RankRecord> run_worker(std::span<const RankPlan> plans, const WorkerSettings& settings,
                                                 const std::atomic<bool>& stop);

}  // namespace meshscope::sim::storm
