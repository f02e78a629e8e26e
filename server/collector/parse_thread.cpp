#include "parse_thread.h"

#include "thread_name.h"

namespace meshscope::server {

ParseThread::ParseThread() {
    thread_ = std::thread([this] {
        net::name_this_thread("ms-parse");
        run();
    });
}

ParseThread::~ParseThread() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void ParseThread::post(Task task) {
    {
        std::lock_guard lock(mutex_);
        tasks_.push_back(std::move(task));
    }
    wake_.notify_one();
}

void ParseThread::run() {
    std::deque<Task> batch;
    for (;;) {
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
            batch.swap(tasks_);
            if (batch.empty() && stopping_) return;
        }
        for (Task& task : batch) {
            try {
                task();
            } catch (...) {
                // A failing task must not take the collector down; its caller sees no answer for that body only.
            }
        }
        batch.clear();
    }
}

}  // namespace meshscope::server
