// IoThread: one io_context run on one named thread, the network loop of the collector (ms-network), the relay
// (ms-relay) and the storm's dashboards (ms-dashboards). Sockets, timers and engines are made on context() before
// start(); from start() on they are used on the loop's thread only (post to it from elsewhere).
//   start()   runs the loop on its thread; a work guard keeps it running while nothing waits
//   stop()    ends the loop once the handlers already posted to it have run (an owner posts its closes, then
//             stops), and joins; idempotent, and what the destructor does. Called on the loop's own thread it
//             ends the loop without joining (the owner's stop() or destructor joins later).
//   join()    lets the loop end by itself (its work runs out, or a handler calls context().stop()) and waits
//             for that: the relay's drain decides when its loop ends
// Handlers still queued when the loop ends are destroyed with the io_context, never run.
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include <optional>
#include <string>
#include <thread>

namespace meshscope::net {

class IoThread {
public:
    // `name`: what `top -H` and /proc/PID/task/*/comm show (Linux keeps 15 characters).
    explicit IoThread(std::string name);
    ~IoThread();
    IoThread(const IoThread&) = delete;
    IoThread& operator=(const IoThread&) = delete;

    [[nodiscard]] boost::asio::io_context& context() noexcept { return io_; }
    // Starts the thread; a second call does nothing.
    void start();
    void stop();
    void join();
    [[nodiscard]] bool running() const noexcept { return thread_.joinable(); }

private:
    void release_and_join();

    const std::string name_;
    boost::asio::io_context io_{1};
    std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> guard_;
    std::thread thread_;
    bool started_ = false;
};

}  // namespace meshscope::net
