#include "monitor_thread.h"

#include "thread_name.h"

#include <chrono>

namespace meshscope::server {

MonitorThread::MonitorThread(Monitor monitor, double tick_interval, std::function<double()> clock)
    : monitor_(std::move(monitor)), tick_interval_(tick_interval), clock_(std::move(clock)) {
    thread_ = std::thread([this] {
        net::name_this_thread("ms-monitor");
        run();
    });
}

MonitorThread::~MonitorThread() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void MonitorThread::post(Task task) {
    {
        std::lock_guard lock(mutex_);
        tasks_.push_back(std::move(task));
    }
    wake_.notify_one();
}

void MonitorThread::run() {
    using Clock = std::chrono::steady_clock;
    const auto interval = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(tick_interval_));
    auto next_tick = Clock::now() + interval;
    std::deque<Task> batch;
    for (;;) {
        {
            std::unique_lock lock(mutex_);
            wake_.wait_until(lock, next_tick, [&] { return stopping_ || !tasks_.empty(); });
            batch.swap(tasks_);
            if (batch.empty() && stopping_) return;
        }
        for (Task& task : batch) {
            try {
                task(monitor_);
            } catch (...) {
                // A failing task must not take the collector down; its caller sees the broken promise.
            }
        }
        batch.clear();
        if (Clock::now() >= next_tick) {
            try {
                monitor_.tick(clock_());
            } catch (...) {
            }
            next_tick = Clock::now() + interval;
        }
    }
}

}  // namespace meshscope::server
