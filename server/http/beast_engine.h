// What the two Beast translation units (http_server.cpp: listener and HTTP sessions; stream_session.cpp:
// WebSocket subscribers) share. Only they include it: Beast is slow to compile.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "meshscope/monitor.h"

namespace meshscope::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

// Hands work from the collector's threads to the network thread while it runs, and drops it once the
// server is gone (the collector outlives the server and still finishes what was in flight).
class Gate {
public:
    explicit Gate(asio::io_context& io) : io_(&io) {}
    template <typename F>
    void post(F fn) {
        std::lock_guard lock(mutex_);
        if (io_) asio::post(*io_, std::move(fn));
    }
    void close() {
        std::lock_guard lock(mutex_);
        io_ = nullptr;
    }

private:
    std::mutex mutex_;
    asio::io_context* io_;
};

// One open connection, counted against max_connections for as long as something (an HTTP session, then
// maybe a WebSocket subscriber) holds it.
class ConnectionSlot {
public:
    explicit ConnectionSlot(std::shared_ptr<std::atomic<std::size_t>> open) : open_(std::move(open)) { ++*open_; }
    ~ConnectionSlot() { --*open_; }
    ConnectionSlot(const ConnectionSlot&) = delete;
    ConnectionSlot& operator=(const ConnectionSlot&) = delete;

private:
    std::shared_ptr<std::atomic<std::size_t>> open_;
};

class StreamSession;

// The WebSocket subscribers and the change feed they share: changes gathered on the monitor thread, one
// {"type":"changes"} message per window of at most 100 ms, serialized once (change_batch.h).
class StreamHub : public std::enable_shared_from_this<StreamHub> {
public:
    StreamHub(asio::io_context& io, std::shared_ptr<Gate> gate, std::size_t max_backlog_bytes);
    // Monitor thread: keeps the change for the next message (only while someone listens).
    void on_change(const Change& change);
    // Network thread:
    void add(const std::shared_ptr<StreamSession>& session);
    void remove(const StreamSession* session);
    void close_all();
    [[nodiscard]] std::size_t max_backlog_bytes() const noexcept { return max_backlog_bytes_; }

    static constexpr std::chrono::milliseconds window{100};

private:
    void schedule_flush();
    void flush();

    std::shared_ptr<Gate> gate_;
    asio::steady_timer timer_;
    std::size_t max_backlog_bytes_;
    std::vector<std::shared_ptr<StreamSession>> sessions_;
    std::atomic<std::size_t> subscribers_{0};
    std::mutex mutex_;  // guards what the monitor thread hands over:
    std::vector<Change> pending_;
    bool flush_posted_ = false;
};

// Accepts the WebSocket upgrade on a connection whose HTTP session asked for it (the route and the token
// were checked), sends hello, then the hub's messages.
void accept_stream(const std::shared_ptr<StreamHub>& hub, beast::tcp_stream stream,
                   http::request<http::string_body> request, std::shared_ptr<ConnectionSlot> slot);

}  // namespace meshscope::server
