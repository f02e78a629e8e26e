// One rank's probe run, backend-agnostic: exchange plans, then for every group of the plan in creation order
// create the communicator (with a timeout), run each collective its dim carries (dim_collectives.h) at every
// size, check the result exactly, time it and compute algbw / busbw, and report each group to the collector.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "communicator.h"
#include "key_value.h"
#include "meshscope/mesh/plan.h"

namespace meshscope::probe {

// Exit statuses (docs/probe.md).
enum ExitStatus : int {
    exit_ok = 0,
    exit_failed = 1,        // an error a backend reported
    exit_usage = 2,         // bad options
    exit_unavailable = 3,   // the backend cannot run here (no GPU, built without NCCL)
    exit_mismatch = 4,      // the ranks' plans differ, or ranks never joined the rendezvous
    exit_not_formed = 5,    // a communicator did not form within --timeout
    exit_wrong_result = 6,  // a collective gave a wrong result
};

struct RunSettings {
    std::int64_t rank = 0;
    std::int64_t world = 1;
    std::int64_t local_rank = 0;
    std::vector<std::int64_t> sizes;  // bytes of each rank's input buffer
    int iters = 20;
    int warmup = 2;
    std::chrono::milliseconds timeout{60000};
    std::string job;
    std::string host;
    // Measure group k only once group k - 1 (creation order, the whole plan) has: each group alone on the fabric.
    bool one_group_at_a_time = false;
    std::string absent_dim;  // test hook (--inject-absent): never create this dim's group
    // Test hook (--dump-results DIR): each rank appends one JSON line per group, collective and size to
    // DIR/rank<R>.jsonl: dim, creation, members, position, collective, bytes, input and output (what it got).
    std::string dump_dir;
};

// Events go to the collector through this (the Reporter in main; a list in tests).
using EventSink = std::function<void(nlohmann::json event)>;

[[nodiscard]] int run_probe(const Plan& plan, const RunSettings& settings, KeyValue& store, Backend& backend,
                            const EventSink& send, std::ostream& out);

// "1 KiB", "256 MiB"
[[nodiscard]] std::string size_text(std::int64_t bytes);

}  // namespace meshscope::probe
