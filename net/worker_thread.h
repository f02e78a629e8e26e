// WorkerThread: one named thread that runs the items posted to it in the order they were posted. The
// collector's parse, monitor, store, plan, tour and ras threads are each one of these, set up by its Options:
//   name       what `top -H`, `perf` and /proc/PID/task/*/comm show (ms-parse, ms-monitor, ms-store, ...)
//   bound      how many items may wait (the one a turn runs no longer waits); a post beyond it is refused, or
//              replaces the oldest waiting item (a newer request makes the waiting one moot: the tour's job)
//   max_batch  how many waiting items one turn takes (at least one; all of them, by default)
//   gather     after the first item arrives, how long to wait for more before the turn (the store's group
//              commit); zero: at once
//   tick       on_tick runs on the thread every `tick`, after the turn that was running when it fell due (the
//              monitor's time-based findings)
//   at_stop    drain: the items waiting still run, then the thread stops; drop: they are handed to on_drop on
//              the stopping thread (answered at once, not after the turn in progress) and never run
// `work` runs each turn's batch on the thread; it must not throw (the callers that run others' tasks catch
// per task, so that one failing task leaves the rest running).
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "thread_name.h"

namespace meshscope::net {

template <typename Item>
class WorkerThread {
public:
    using Batch = std::deque<Item>;
    using Clock = std::chrono::steady_clock;

    enum class WhenFull { refuse, replace_oldest };
    enum class AtStop { drain, drop };
    static constexpr std::size_t unbounded = std::numeric_limits<std::size_t>::max();

    struct Options {
        std::string name;  // Linux keeps 15 characters: a longer name is cut there
        std::size_t bound = unbounded;
        WhenFull when_full = WhenFull::refuse;
        std::size_t max_batch = unbounded;
        Clock::duration gather{};
        Clock::duration tick{};
        std::function<void()> on_tick{};  // none: no tick
        AtStop at_stop = AtStop::drain;
        std::function<void(Item&)> on_drop{};  // AtStop::drop only; none: dropped items are destroyed
    };

    WorkerThread(Options options, std::function<void(Batch&)> work)
        : options_(std::move(options)), work_(std::move(work)), thread_([this] { run(); }) {}
    ~WorkerThread() { stop(); }
    WorkerThread(const WorkerThread&) = delete;
    WorkerThread& operator=(const WorkerThread&) = delete;

    // Returns what will not run: the item itself when it is refused (bound reached, or stopping), the oldest
    // waiting item when this one replaced it; nothing when the item waits and nothing was displaced.
    std::optional<Item> post(Item item) {
        std::optional<Item> left_out;
        bool wake = false;
        {
            std::lock_guard lock(mutex_);
            if (stopping_) return item;
            if (queue_.size() >= options_.bound) {
                if (options_.when_full == WhenFull::refuse || queue_.empty()) return item;
                left_out = std::move(queue_.front());
                queue_.pop_front();
            }
            queue_.push_back(std::move(item));
            // Only when the thread waits for work: during a gather window or a turn a wake-up finds nothing
            // to do (for the store's writer, one futex call and two context switches a request, costing
            // more than the commit).
            wake = idle_;
        }
        if (wake) wake_.notify_one();
        return left_out;
    }

    // Stops the thread as at_stop says and joins it; the destructor's. Later posts are refused.
    void stop() {
        Batch dropped;
        {
            std::lock_guard lock(mutex_);
            if (stopping_ && !thread_.joinable()) return;
            stopping_ = true;
            if (options_.at_stop == AtStop::drop) dropped.swap(queue_);
        }
        wake_.notify_all();
        if (options_.on_drop)
            for (Item& item : dropped) options_.on_drop(item);
        dropped.clear();
        if (thread_.joinable()) thread_.join();
    }

private:
    void run() {
        const std::string name = options_.name.substr(0, 15);
        name_this_thread(name.c_str());
        const std::size_t max_batch = std::max<std::size_t>(options_.max_batch, 1);
        auto next_tick = Clock::now() + options_.tick;
        const auto has_work = [this] { return stopping_ || !queue_.empty(); };
        Batch batch;
        for (;;) {
            {
                std::unique_lock lock(mutex_);
                idle_ = true;
                if (options_.on_tick)
                    wake_.wait_until(lock, next_tick, has_work);
                else
                    wake_.wait(lock, has_work);
                idle_ = false;
                if (queue_.empty() && stopping_) return;  // stopping, and nothing waits (left to run)
                if (!queue_.empty() && options_.gather != Clock::duration::zero())
                    wake_.wait_for(lock, options_.gather, [this] { return stopping_; });
                if (queue_.size() <= max_batch) {
                    batch.swap(queue_);
                } else {
                    for (std::size_t i = 0; i < max_batch; ++i) {
                        batch.push_back(std::move(queue_.front()));
                        queue_.pop_front();
                    }
                }
            }
            if (!batch.empty()) work_(batch);
            batch.clear();
            if (options_.on_tick && Clock::now() >= next_tick) {
                options_.on_tick();
                next_tick = Clock::now() + options_.tick;
            }
        }
    }

    const Options options_;
    const std::function<void(Batch&)> work_;
    std::mutex mutex_;
    std::condition_variable wake_;
    Batch queue_;
    bool stopping_ = false;
    bool idle_ = false;  // the thread waits for work (a post wakes it)
    std::thread thread_;
};

}  // namespace meshscope::net
