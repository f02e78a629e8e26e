// JobKv: a small key-value store per job, for rendezvous without a shared file system (meshscope-probe's
// ranks publish their plans, gloo addresses and the NCCL unique id here): PUT and GET
// /api/v1/jobs/{job}/kv/{key} behind the collector's bearer token. In memory only, bounded in value size, keys
// and bytes per job, and jobs; a job's keys are dropped when it has been quiet long enough to make room.
// Thread-safe: the network threads call it directly (it never touches the store or the monitor).
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <string>

#include "http_exchange.h"

namespace meshscope::server {

struct JobKvLimits {
    std::size_t max_value_bytes = 64 * 1024;
    std::size_t max_keys_per_job = 65536;
    std::size_t max_bytes_per_job = std::size_t{16} << 20;
    std::size_t max_jobs = 256;
    std::chrono::seconds evict_after{600};  // a full store drops the job quiet for longest, if quiet this long
};

class JobKv {
public:
    explicit JobKv(JobKvLimits limits = {}) : limits_(limits) {}

    // PUT stores the body (200 {"stored": <bytes>}); GET answers the value as application/octet-stream, or 404
    // until it is set (clients poll). Other methods: 405. Bad job or key: 400. Over a bound: 413 / 507.
    [[nodiscard]] HttpReply answer(const std::string& method, const std::string& job, const std::string& key,
                                   std::string body);

private:
    struct Job {
        std::map<std::string, std::string> values;
        std::size_t bytes = 0;
        std::chrono::steady_clock::time_point last_write;
    };
    [[nodiscard]] bool make_room_for_a_job(std::chrono::steady_clock::time_point now);

    JobKvLimits limits_;
    std::mutex mutex_;
    std::map<std::string, Job> jobs_;
};

}  // namespace meshscope::server
