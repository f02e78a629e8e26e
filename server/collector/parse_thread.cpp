#include "parse_thread.h"

namespace meshscope::server {

ParseThread::ParseThread()
    : worker_({.name = "ms-parse"}, [](std::deque<Task>& batch) {
          for (Task& task : batch) {
              try {
                  task();
              } catch (...) {
                  // A failing task must not take the collector down; its caller sees no answer for that body only.
              }
          }
      }) {}

void ParseThread::post(Task task) {
    worker_.post(std::move(task));
}

}  // namespace meshscope::server
