#include "monitor_thread.h"

#include <chrono>

namespace meshscope::server {

MonitorThread::MonitorThread(Monitor monitor, double tick_interval, std::function<double()> clock)
    : monitor_(std::move(monitor)),
      clock_(std::move(clock)),
      worker_({.name = "ms-monitor",
               .tick = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                   std::chrono::duration<double>(tick_interval)),
               .on_tick =
                   [this] {
                       try {
                           monitor_.tick(clock_());
                       } catch (...) {
                       }
                   }},
              [this](std::deque<Task>& batch) {
                  for (Task& task : batch) {
                      try {
                          task(monitor_);
                      } catch (...) {
                          // A failing task must not take the collector down; its caller sees the broken promise.
                      }
                  }
              }) {}

void MonitorThread::post(Task task) {
    worker_.post(std::move(task));
}

}  // namespace meshscope::server
