#include "plan_worker.h"

#include "advise_api.h"
#include "peers_api.h"

namespace meshscope::server {

PlanWorker::PlanWorker(std::size_t max_waiting, std::shared_ptr<const cost::LoadedClusterProfile> cluster_profile)
    : cluster_profile_(std::move(cluster_profile)),
      worker_({.name = "ms-plan",
               .bound = max_waiting,
               .max_batch = 1,
               .at_stop = net::WorkerThread<Task>::AtStop::drop,
               .on_drop = [](Task& task) { task.reply(error_reply(503, "the collector is stopping")); }},
              [this](std::deque<Task>& batch) {
                  for (Task& task : batch) answer(task);
              }) {}

void PlanWorker::submit(std::string path, std::string query, Reply reply) {
    if (auto refused = worker_.post({std::move(path), std::move(query), std::move(reply)}))
        refused->reply(error_reply(503, "too many plan requests waiting: try again", {{"Retry-After", "1"}}));
}

void PlanWorker::answer(Task& task) {
    task.reply(is_peers_path(task.path)    ? answer_peers(task.query)
               : is_advise_path(task.path) ? answer_advise(task.query, cluster_profile_)
                                           : answer_plan(task.path, task.query, &cache_));
}

}  // namespace meshscope::server
