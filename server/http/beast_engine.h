// What the two Beast translation units (http_server.cpp: the collector's handler of the HTTP engine,
// net/http_engine.h; stream_session.cpp: WebSocket subscribers) share. Only they include it: Beast is slow to compile.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "change_batch.h"
#include "http_engine.h"
#include "http_exchange.h"
#include "meshscope/monitor/monitor.h"
#include "stream_protocol.h"

namespace meshscope::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;
// A connection is one of these two for its whole life (HttpServer listens with TLS or without): the
// sessions are templates over it, so the plain path has no indirection per byte.
using PlainStream = beast::tcp_stream;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;

}  // namespace meshscope::server

namespace meshscope::net {
// A TLS connection's session starts with the server handshake (net/http_engine.h).
template <>
struct StreamHandshake<server::TlsStream> {
    static constexpr bool needed = true;
    template <typename Done>
    static void start(server::TlsStream& stream, Done done) {
        stream.async_handshake(boost::asio::ssl::stream_base::server, std::move(done));
    }
};
}  // namespace meshscope::net

namespace meshscope::server {

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

using net::ConnectionSlot;

// One WebSocket subscriber as the hub sees it (StreamSession<PlainStream or TlsStream>): one virtual call
// per message, not per byte.
class StreamSubscriber {
public:
    virtual ~StreamSubscriber() = default;
    // Queues one message (shared with the other subscribers); drops the subscriber when too far behind.
    virtual void send(StreamMessage message) = 0;
    virtual void drop() = 0;
};

struct StreamSettings {
    std::size_t max_backlog_bytes = 8 << 20;
    std::size_t resume_messages = 1024;
    std::size_t resume_bytes = std::size_t{32} << 20;
    std::chrono::milliseconds auth_timeout{10000};
    std::string token;  // what a first-message authentication must carry
};

// The WebSocket subscribers and the change feed they share: changes gathered on the monitor thread, one
// {"type":"changes","seq":N} message per window of at most 100 ms, serialized once (change_batch.h), the
// latest kept in a ring for subscribers that reconnect (stream_protocol.h).
class StreamHub : public std::enable_shared_from_this<StreamHub> {
public:
    StreamHub(asio::io_context& io, std::shared_ptr<Gate> gate, StreamSettings settings);
    // Monitor thread: keeps the change for the next message (while someone listens, or may come back).
    void on_change(const Change& change);
    // Network thread: sends hello, then what the subscriber missed or {"type":"reload"} (start.since),
    // then every message.
    void add(const std::shared_ptr<StreamSubscriber>& session, const StreamStart& start);
    void remove(const StreamSubscriber* session);
    void close_all();
    [[nodiscard]] const StreamSettings& settings() const noexcept { return settings_; }

    static constexpr std::chrono::milliseconds window{100};
    // After the last subscriber leaves, changes are still gathered this long, so that one reconnecting
    // (a laptop waking, a tunnel restarting) can resume instead of reloading.
    static constexpr std::chrono::minutes keep_gathering{5};

private:
    void schedule_flush();
    void flush();

    std::shared_ptr<Gate> gate_;
    asio::steady_timer timer_;
    StreamSettings settings_;
    std::string epoch_;  // this process's stream: a resume from another one reloads
    std::vector<std::shared_ptr<StreamSubscriber>> sessions_;
    // Network thread: the seq of the last message, the ring, and the lowest `since` still complete.
    std::uint64_t seq_ = 0;
    StreamRing ring_;
    std::uint64_t resume_floor_ = 0;
    std::mutex mutex_;     // guards what the monitor thread and the network thread share:
    ChangeBatch pending_;  // the window so far, serialized on the monitor thread
    bool flush_posted_ = false;
    std::size_t subscribers_ = 0;
    std::chrono::steady_clock::time_point gather_until_{};
    bool missed_ = false;      // a change went ungathered: no resume from before it
    bool overflowed_ = false;  // pending_ was full and a change was dropped: every subscriber reloads
};

// Accepts the WebSocket upgrade on a connection whose HTTP session asked for it (the route and the token
// were checked, or the token is to come as the first message), then hands the subscriber to the hub.
void accept_stream(const std::shared_ptr<StreamHub>& hub, PlainStream stream, http::request<http::string_body> request,
                   std::shared_ptr<ConnectionSlot> slot, StreamStart start);
void accept_stream(const std::shared_ptr<StreamHub>& hub, TlsStream stream, http::request<http::string_body> request,
                   std::shared_ptr<ConnectionSlot> slot, StreamStart start);

}  // namespace meshscope::server
