// PlanWorker: answers the plan routes on a thread of their own. Planning walks every group (0.13 s at 2^20
// ranks in a release build, seconds in a debug one), which the network thread must never wait for: ranks'
// heartbeats and the dashboards share it. One thread and a short queue bound what plan requests can cost.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "http_exchange.h"
#include "http_options.h"
#include "plan_api.h"
#include "worker_thread.h"

namespace meshscope::server {

class PlanWorker {
public:
    using Reply = std::function<void(HttpReply)>;

    // cluster_profile: what answer_advise prices with (null: the presets).
    explicit PlanWorker(std::size_t max_waiting = 16,
                        std::shared_ptr<const cost::LoadedClusterProfile> cluster_profile = nullptr);
    ~PlanWorker() = default;  // answers what still waits with 503, then joins
    PlanWorker(const PlanWorker&) = delete;
    PlanWorker& operator=(const PlanWorker&) = delete;

    // Calls reply exactly once: with answer_plan(path, query) (answer_peers for /api/v1/peers) from the worker
    // thread, or at once with 503 {"error": "too many plan requests waiting: try again"} and Retry-After: 1
    // when max_waiting wait.
    void submit(std::string path, std::string query, Reply reply);

private:
    struct Task {
        std::string path;
        std::string query;
        Reply reply;
    };
    void answer(Task& task);

    PlanCache cache_;  // the worker thread's only
    std::shared_ptr<const cost::LoadedClusterProfile> cluster_profile_;
    // ms-plan: max_waiting wait, one task a turn, what waits at stop is answered at once
    net::WorkerThread<Task> worker_;
};

}  // namespace meshscope::server
