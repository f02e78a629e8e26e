// meshscope-probe's command line and the launcher's environment (torchrun, Slurm, Open MPI), read into one
// value; every mistake is one line of text and exit status 2 (docs/probe.md lists them).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "meshscope/mesh/error.h"

namespace meshscope::probe {

struct ProbeOptions {
    // the plan
    std::optional<std::int64_t> dp, cp, ep;
    std::string plan_file;
    std::string order = "torch29";
    std::int64_t gpus_per_node = 8;
    // the run
    std::string backend = "gloo";
    std::vector<std::int64_t> sizes;  // bytes, powers of two
    int iters = 20;
    int warmup = 2;
    std::chrono::milliseconds timeout{60000};
    int local = 0;  // --local N: start N ranks here
    std::string bind_address;
    bool one_group_at_a_time = false;
    // identity (from the launcher's environment)
    std::int64_t rank = 0, world = 1, local_rank = 0;
    // the collector
    std::string collector, token, job;
    // test hooks
    std::string slow_dim;
    std::int64_t slow_index = -1;
    std::chrono::milliseconds slow_delay{50};
    std::string absent_dim;
    std::string dump_dir;
    bool help = false;
    bool version = false;
};

using Environment = std::function<std::optional<std::string>(const char*)>;

// args without the program name.
[[nodiscard]] Expected<ProbeOptions> parse_probe_options(const std::vector<std::string>& args, const Environment& env);
// "1K:256M" -> 1024, 2048, ..., 268435456; "64K" -> 65536. K = 1024.
[[nodiscard]] Expected<std::vector<std::int64_t>> parse_sizes(const std::string& text);

extern const char* const probe_usage;

}  // namespace meshscope::probe
