// ParseThread: the thread that turns request bodies into events for the collector (JSON parsing and
// validation, the watermarks, the stored form), so that the network thread only moves bytes. One thread,
// first in first out: bodies are judged in the order they arrived, as they were on the network thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace meshscope::server {

class ParseThread {
public:
    using Task = std::function<void()>;

    ParseThread();
    ~ParseThread();  // runs the tasks already posted, then stops
    ParseThread(const ParseThread&) = delete;
    ParseThread& operator=(const ParseThread&) = delete;

    void post(Task task);

private:
    void run();

    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<Task> tasks_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace meshscope::server
