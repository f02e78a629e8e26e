// MonitorThread: the one thread that owns the collector's Monitor. Ingest, ticks and queries all run
// there as tasks, in the order they were posted, so the monitor needs no lock; queries wait for their
// answer. A tick runs every `tick_interval` seconds for the time-based findings (missing, stale, straggler).
#pragma once

#include <functional>
#include <future>

#include "meshscope/monitor/monitor.h"
#include "worker_thread.h"

namespace meshscope::server {

class MonitorThread {
public:
    using Task = std::function<void(Monitor&)>;

    // Takes a monitor that may already hold rebuilt jobs. `clock` gives the collector's time in seconds.
    MonitorThread(Monitor monitor, double tick_interval, std::function<double()> clock);
    ~MonitorThread() = default;  // runs the tasks already posted, then stops
    MonitorThread(const MonitorThread&) = delete;
    MonitorThread& operator=(const MonitorThread&) = delete;

    void post(Task task);
    // Runs fn(monitor) on the monitor thread and returns its result.
    template <typename F>
    auto call(F fn) -> decltype(fn(std::declval<Monitor&>())) {
        using R = decltype(fn(std::declval<Monitor&>()));
        auto promise = std::make_shared<std::promise<R>>();
        auto future = promise->get_future();
        post([promise, fn = std::move(fn)](Monitor& m) mutable {
            try {
                if constexpr (std::is_void_v<R>) {
                    fn(m);
                    promise->set_value();
                } else {
                    promise->set_value(fn(m));
                }
            } catch (...) {
                promise->set_exception(std::current_exception());
            }
        });
        return future.get();
    }

private:
    Monitor monitor_;
    std::function<double()> clock_;
    net::WorkerThread<Task> worker_;  // ms-monitor: no bound, a tick, drains at stop (after monitor_: it uses it)
};

}  // namespace meshscope::server
