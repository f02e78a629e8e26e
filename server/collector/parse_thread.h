// ParseThread: the thread that turns request bodies into events for the collector (JSON parsing and
// validation, the watermarks, the stored form), so that the network thread only moves bytes. One thread,
// first in first out: bodies are judged in the order they arrived, as they were on the network thread.
#pragma once

#include <functional>

#include "worker_thread.h"

namespace meshscope::server {

class ParseThread {
public:
    using Task = std::function<void()>;

    ParseThread();
    ~ParseThread() = default;  // runs the tasks already posted, then stops
    ParseThread(const ParseThread&) = delete;
    ParseThread& operator=(const ParseThread&) = delete;

    void post(Task task);

private:
    net::WorkerThread<Task> worker_;  // ms-parse: no bound, drains at stop
};

}  // namespace meshscope::server
