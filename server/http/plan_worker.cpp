#include "plan_worker.h"

#include "advise_api.h"
#include "peers_api.h"

namespace meshscope::server {

PlanWorker::PlanWorker(std::size_t max_waiting) : max_waiting_(max_waiting), thread_([this] { run(); }) {}

PlanWorker::~PlanWorker() {
    std::deque<Task> left;
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        left.swap(tasks_);
    }
    wake_.notify_all();
    for (Task& task : left) task.reply(error_reply(503, "the collector is stopping"));
    thread_.join();
}

void PlanWorker::submit(std::string path, std::string query, Reply reply) {
    {
        std::lock_guard lock(mutex_);
        if (!stopping_ && tasks_.size() < max_waiting_) {
            tasks_.push_back({std::move(path), std::move(query), std::move(reply)});
            wake_.notify_one();
            return;
        }
    }
    reply(error_reply(503, "too many plan requests waiting: try again", {{"Retry-After", "1"}}));
}

void PlanWorker::run() {
    for (;;) {
        Task task;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
            if (stopping_) return;
            task = std::move(tasks_.front());
            tasks_.pop_front();
        }
        task.reply(is_peers_path(task.path)    ? answer_peers(task.query)
                   : is_advise_path(task.path) ? answer_advise(task.query)
                                               : answer_plan(task.path, task.query, &cache_));
    }
}

}  // namespace meshscope::server
