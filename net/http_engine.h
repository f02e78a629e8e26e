// The HTTP/1.1 keep-alive engine of MeshScope's servers (the collector's HttpServer and the relay), on Boost.Beast /
// Asio, one network thread: the listener, one session per connection, the deadline sweep, the header, body and
// read-buffer limits with their refusals (431, 413, 400, 408, 501), the connection cap (503 + Retry-After), the
// graceful drain at stop and the bytes of each answer (http_wire.h). What a request asks is the handler's:
//
//   struct Handler {
//       using Reply = ...;       // status, body, content_type, headers, close, head (net::Answer has them)
//       struct Connection {...}; // what the handler keeps per connection (may be empty)
//       Reply error_reply(int status, std::string_view message, Headers headers = {});  // {"error": message}
//       // Answers by calling respond(reply) once, on the network thread, now or later.
//       void handle(Request& request, Respond<Reply> respond, Connection& connection);
//       // Optional: the body limit of this request, from its header (at most EngineSettings::max_body_bytes).
//       std::uint64_t body_limit(const Request& header);
//       // Optional: a new connection's session (TLS); the default is a plain one, engine.start_session(...).
//       void take(HttpEngine<Handler>& engine, tcp::socket socket, std::shared_ptr<ConnectionSlot> slot);
//       // Optional, with Reply::accept_stream: the connection leaves HTTP (a WebSocket upgrade).
//       template <typename Stream> void upgrade(Stream stream, Request request, std::shared_ptr<ConnectionSlot>, ...);
//   };
//
// Only Beast translation units include it: Beast is slow to compile.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#include "http_wire.h"

namespace meshscope::net {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

using Headers = std::vector<std::pair<std::string, std::string>>;
using Request = http::request<http::string_body>;
using RequestParser = http::request_parser<http::string_body>;
// A plain connection. A TLS one is the user's (StreamHandshake below): the relay compiles no OpenSSL.
using PlainStream = beast::tcp_stream;

// What a stream does before its first request: nothing, or (specialized by the collector for its TLS stream) a
// server handshake, bounded by the read timeout.
template <typename Stream>
struct StreamHandshake {
    static constexpr bool needed = false;
};

// One answer as the engine writes it (the relay's; the collector's HttpReply has the same fields and more).
struct Answer {
    int status = 200;
    std::string body;
    std::string content_type = "application/json";
    Headers headers;     // extra headers (Allow, Retry-After, WWW-Authenticate ...)
    bool close = false;  // the connection closes after this answer
    bool head = false;   // the answer to HEAD: the GET answer's headers, Content-Length included, without its body
};

template <typename Reply>
using Respond = std::function<void(Reply)>;

struct EngineSettings {
    std::size_t max_connections = 1024;        // open connections beyond this get 503 + Retry-After and are closed
    std::size_t max_header_bytes = 64 * 1024;  // request line + headers; more gets 431
    std::size_t max_body_bytes = std::size_t{1} << 20;       // the largest body of any request; more gets 413
    std::size_t read_buffer_bytes = net::read_buffer_bytes;  // at least max_header_bytes is used (http_wire.h)
    std::chrono::milliseconds read_timeout{10000};           // a started request must arrive within this (408)
    std::chrono::milliseconds idle_timeout{60000};           // keep-alive connections idle longer are closed
    std::chrono::milliseconds write_timeout{60000};          // an answer not taken by the client within this: closed
    // How often the sessions' deadlines are looked at: a deadline fires up to this late.
    std::chrono::milliseconds sweep_every{500};
    // For this long after a connection was refused (past max_connections) every answer closes its connection, so
    // that clients beyond the limit get a turn instead of waiting for slots held by heartbeating ones. 0: never.
    std::chrono::milliseconds rotate_after_refusal{0};
    // Carried by every answer after Content-Type, refusals included (the collector's Content-Security-Policy).
    Headers common_headers;
};

// The most bytes a session's read buffer holds: past it, a chunk-size line or the trailers still incomplete are
// refused (buffer_overflow) instead of buffered without end.
[[nodiscard]] inline std::size_t read_buffer_limit(std::size_t max_header_bytes, std::size_t read_buffer_bytes) {
    return std::max(max_header_bytes, read_buffer_bytes);
}

// A fresh parser's limits: Beast checks Content-Length against the body limit before the body.
inline void limit_parser(RequestParser& parser, std::size_t max_header_bytes, std::uint64_t max_body_bytes) {
    parser.header_limit(static_cast<std::uint32_t>(std::min<std::size_t>(max_header_bytes, UINT32_MAX)));
    parser.body_limit(max_body_bytes);
}

// What a request whose body passes `limit` bytes is told (413).
[[nodiscard]] inline std::string body_overflow_text(std::uint64_t limit) {
    return "request body larger than " + std::to_string(limit) + " bytes";
}

// What a request started and not received within the read timeout is told (408).
inline constexpr std::string_view request_timeout_text = "request not received in time";

// What a connection past max_connections is told (503, Retry-After: connection_retry_after).
inline constexpr std::string_view too_many_connections_text = "too many connections";
inline constexpr int connection_retry_after_s = 2;

struct Refusal {
    int status;
    std::string message;
};

// The answer to a request the parser refused (not a timeout): 413, 431 or 400; nullopt when the client went away
// or the read was cancelled (nobody to tell: close).
[[nodiscard]] inline std::optional<Refusal> read_refusal(beast::error_code error, std::uint64_t body_limit,
                                                         std::size_t header_limit, std::size_t buffer_limit) {
    if (error == http::error::body_limit) return Refusal{413, body_overflow_text(body_limit)};
    if (error == http::error::header_limit) return Refusal{431, header_overflow_text(header_limit)};
    if (error == http::error::buffer_overflow) return Refusal{400, chunk_overflow_text(buffer_limit)};
    if (error == http::error::end_of_stream || error == asio::error::eof || error == asio::error::connection_reset ||
        error == asio::error::operation_aborted || error == asio::error::bad_descriptor)
        return std::nullopt;
    return Refusal{400, "bad HTTP request: " + error.message()};
}

// The HTTP/1.1 response written for a reply, as the bytes that go on the wire: Content-Type, `common`, the reply's
// own headers, then Connection: close when it closes, Content-Length and the body (not for HEAD).
template <typename Reply>
[[nodiscard]] std::string wire_reply(const Reply& reply, const Headers& common) {
    WireResponse out(reply.status, reply.body.size());
    out.header("Content-Type", reply.content_type);
    for (const auto& [name, value] : common) out.header(name, value);
    for (const auto& [name, value] : reply.headers) out.header(name, value);
    return std::move(out).finish(reply.close, reply.body, reply.head);
}

// One open connection, counted against max_connections for as long as something (an HTTP session, then maybe a
// WebSocket subscriber) holds it.
class ConnectionSlot {
public:
    explicit ConnectionSlot(std::shared_ptr<std::atomic<std::size_t>> open) : open_(std::move(open)) { ++*open_; }
    ~ConnectionSlot() { --*open_; }
    ConnectionSlot(const ConnectionSlot&) = delete;
    ConnectionSlot& operator=(const ConnectionSlot&) = delete;

private:
    std::shared_ptr<std::atomic<std::size_t>> open_;
};

// A session as the deadline sweep sees it. Each session keeps one deadline (a time and what to do then) as plain
// data, and one timer of the engine's looks at all of them every sweep_every: at 16,384 keep-alive connections
// heartbeating every 5 s, one Asio timer per session, re-armed three times a request (idle, request, drain) and
// cancelled once, put the timer queue and the cancelled handlers among the network thread's largest costs
// (docs/benchmarks.md, "Steady state").
class DeadlineSession {
public:
    enum class Deadline { none, idle, request, write, drain, handshake };
    virtual ~DeadlineSession() = default;
    [[nodiscard]] bool past(std::chrono::steady_clock::time_point now) const noexcept {
        return deadline_ != Deadline::none && now >= deadline_at_;
    }
    // Keeps the session alive while its deadline runs (the sweep holds no ownership otherwise).
    [[nodiscard]] virtual std::shared_ptr<void> hold() = 0;
    virtual void on_deadline() = 0;
    // At stop: a connection that waits for no answer is closed now.
    virtual void close_if_idle() = 0;

protected:
    void set_deadline(Deadline kind, std::chrono::milliseconds after) {
        deadline_ = kind;
        deadline_at_ = std::chrono::steady_clock::now() + after;
    }
    Deadline deadline_ = Deadline::none;
    std::chrono::steady_clock::time_point deadline_at_{};
};

// What the engine's sessions share with it, held by each of them: a session may outlive the engine in a handler
// that the io_context destroys last.
template <typename Handler>
struct EngineState {
    EngineState(Handler& h, EngineSettings s)
        : handler(h), settings(std::move(s)), open(std::make_shared<std::atomic<std::size_t>>(0)) {}
    Handler& handler;
    EngineSettings settings;
    std::unordered_set<DeadlineSession*> sessions;         // every HTTP session alive (network thread only)
    std::unordered_set<std::shared_ptr<void>> waiting;     // sessions waiting for their handler's answer
    std::shared_ptr<std::atomic<std::size_t>> open;        // HTTP and handed-over connections (any thread)
    std::chrono::steady_clock::time_point last_refusal{};  // when a connection was last refused
    bool stopping = false;                                 // answers close their connections
};

// One HTTP/1.1 keep-alive connection: wait for a request's first byte (idle timeout), read its header (the read
// timeout starts), refuse an oversized body from Content-Length, read the body, hand the request to the handler,
// write its answer, repeat. With a handshake (TLS) the session first does it, within the read timeout.
template <typename Handler, typename Stream>
class HttpSession : public DeadlineSession, public std::enable_shared_from_this<HttpSession<Handler, Stream>> {
public:
    using Reply = typename Handler::Reply;

    HttpSession(Stream stream, std::shared_ptr<EngineState<Handler>> engine, std::shared_ptr<ConnectionSlot> slot)
        : stream_(std::move(stream)),
          engine_(std::move(engine)),
          slot_(std::move(slot)),
          buffer_(read_buffer_limit(engine_->settings.max_header_bytes, engine_->settings.read_buffer_bytes)) {
        engine_->sessions.insert(this);
    }
    ~HttpSession() override { engine_->sessions.erase(this); }
    HttpSession(const HttpSession&) = delete;
    HttpSession& operator=(const HttpSession&) = delete;

    void start() {
        if constexpr (StreamHandshake<Stream>::needed) {
            set_deadline(Deadline::handshake, settings().read_timeout);
            StreamHandshake<Stream>::start(stream_, [self = shared_from_this()](beast::error_code error) {
                if (error) return self->close();  // not TLS, a bad client, or too slow: nobody to answer in HTTP
                self->wait_for_request();
            });
        } else {
            wait_for_request();
        }
    }
    [[nodiscard]] std::shared_ptr<void> hold() override { return shared_from_this(); }

    // idle, write, drain, handshake: close; request: cancel the read, then 408 (refuse).
    void on_deadline() override {
        const Deadline kind = deadline_;
        deadline_ = Deadline::none;
        if (kind == Deadline::request) {
            timed_out_ = true;
            beast::error_code ignored;
            socket().cancel(ignored);
        } else {
            close();
        }
    }

    void close_if_idle() override {
        if (state_ != State::reading) return;
        beast::error_code ignored;
        socket().close(ignored);
    }

private:
    enum class State { reading, waiting, writing };
    using std::enable_shared_from_this<HttpSession<Handler, Stream>>::shared_from_this;
    using std::enable_shared_from_this<HttpSession<Handler, Stream>>::weak_from_this;
    [[nodiscard]] const EngineSettings& settings() const { return engine_->settings; }
    [[nodiscard]] tcp::socket& socket() { return beast::get_lowest_layer(stream_).socket(); }
    // What requests are read from and answers written to. The plain path uses the socket itself: the deadline
    // sweep keeps time, so beast::tcp_stream's per-operation timer bookkeeping would be pure cost.
    [[nodiscard]] auto& io() {
        if constexpr (std::is_same_v<Stream, PlainStream>)
            return socket();
        else
            return stream_;
    }
    [[nodiscard]] std::size_t buffer_limit() const {
        return read_buffer_limit(settings().max_header_bytes, settings().read_buffer_bytes);
    }

    void wait_for_request() {
        state_ = State::reading;
        if (buffer_.size() > 0) return read_request();  // a pipelined request is already here
        set_deadline(Deadline::idle, settings().idle_timeout);
        // (Waiting for readability first, to skip the read that finds nothing between two heartbeats, was tried:
        // Asio re-arms the descriptor with epoll_ctl for such a wait, one syscall for another; docs/benchmarks.md.)
        io().async_read_some(buffer_.prepare(4096),
                             [self = shared_from_this()](beast::error_code error, std::size_t n) {
                                 if (error) return self->close();
                                 self->buffer_.commit(n);
                                 self->read_request();
                             });
    }

    void read_request() {
        state_ = State::reading;
        parser_.emplace();
        // The header decides which body limit applies (on_header); until then the largest.
        body_limit_ = settings().max_body_bytes;
        limit_parser(*parser_, settings().max_header_bytes, body_limit_);
        timed_out_ = false;
        set_deadline(Deadline::request, settings().read_timeout);
        http::async_read_header(
            io(), buffer_, *parser_,
            [self = shared_from_this()](beast::error_code error, std::size_t) { self->on_header(error); });
    }

    void on_header(beast::error_code error) {
        if (error) return refuse(error);
        if (unsupported_transfer_coding(parser_->get())) return refuse(501, std::string(transfer_coding_text));
        if constexpr (requires(Handler & h, const Request& r) { h.body_limit(r); }) {
            body_limit_ = std::min<std::uint64_t>(body_limit_, engine_->handler.body_limit(parser_->get()));
            const auto length = parser_->content_length();
            if (length && *length > body_limit_) return refuse(http::error::body_limit);
            parser_->body_limit(body_limit_);
        }
        if (beast::iequals(parser_->get()[http::field::expect], "100-continue") && !parser_->is_done()) {
            // curl waits up to a second for this before it sends a body.
            static const std::string proceed = "HTTP/1.1 100 Continue\r\n\r\n";
            return asio::async_write(io(), asio::buffer(proceed),
                                     [self = shared_from_this()](beast::error_code e, std::size_t) {
                                         if (e) return self->close();
                                         self->read_body();
                                     });
        }
        read_body();
    }

    void read_body() {
        http::async_read(io(), buffer_, *parser_, [self = shared_from_this()](beast::error_code error, std::size_t) {
            self->on_request(error);
        });
    }

    void on_request(beast::error_code error) {
        if (error) return refuse(error);
        deadline_ = Deadline::none;  // the handler may take its time: no timeout while it works
        state_ = State::waiting;
        auto& message = parser_->get();
        keep_alive_ = message.keep_alive();
        head_ = message.method() == http::verb::head;
        // While the handler works, the engine keeps the session; the handler holds only a weak reference, so a
        // session is never destroyed on another thread (its socket belongs to the network thread).
        engine_->waiting.insert(shared_from_this());
        Respond<Reply> respond = [weak = weak_from_this(), engine = engine_.get()](Reply reply) {
            const auto self = weak.lock();
            if (!self) return;
            engine->waiting.erase(std::static_pointer_cast<void>(self));
            reply.head = self->head_;
            self->answer(std::move(reply));
        };
        engine_->handler.handle(message, std::move(respond), connection_);
    }

    // A request that cannot be read: answer what went wrong (when there is someone to tell) and close.
    void refuse(beast::error_code error) {
        if (timed_out_) return refuse(408, std::string(request_timeout_text));
        auto refusal = read_refusal(error, body_limit_, settings().max_header_bytes, buffer_limit());
        if (!refusal) return close();
        refuse(refusal->status, std::move(refusal->message));
    }
    void refuse(int status, std::string message) { answer(engine_->handler.error_reply(status, message)); }

    void answer(Reply reply) {
        if constexpr (requires(Reply & r) { r.accept_stream; }) {
            if (reply.accept_stream) {
                // The connection leaves HTTP: the handler takes the stream and the connection's slot.
                deadline_ = Deadline::none;
                state_ = State::writing;
                return engine_->handler.upgrade(std::move(stream_), parser_->release(), std::move(slot_),
                                                std::move(reply.stream));
            }
        }
        state_ = State::writing;
        const bool refused = reply.status == 408 || reply.status == 413 || reply.status == 431 || reply.status == 501 ||
                             (reply.status == 400 && (!parser_ || !parser_->is_done()));
        const auto& s = settings();
        const bool rotating = s.rotate_after_refusal.count() > 0 &&
                              std::chrono::steady_clock::now() - engine_->last_refusal < s.rotate_after_refusal;
        reply.close = reply.close || refused || !keep_alive_ || engine_->stopping || rotating;
        const bool close = reply.close;
        response_ = wire_reply(reply, s.common_headers);
        set_deadline(Deadline::write, s.write_timeout);
        asio::async_write(io(), asio::buffer(response_),
                          [self = shared_from_this(), close, refused](beast::error_code error, std::size_t) {
                              self->response_ = std::string();
                              if (error) return self->close();
                              if (refused) return self->drain();
                              if (close) return self->close();
                              self->keep_alive_ = true;
                              self->head_ = false;
                              self->wait_for_request();
                          });
    }

    // After refusing a request the client may still be sending it: read and discard until it goes quiet (closing
    // with unread data would reset the connection before the client reads the answer), within bounds. A plain
    // connection tells the client at once that nothing more comes (FIN).
    void drain() {
        using namespace std::chrono;
        if (drained_ == 0) {
            drain_until_ = steady_clock::now() + seconds(10);
            if constexpr (std::is_same_v<Stream, PlainStream>) {
                beast::error_code ignored;
                socket().shutdown(tcp::socket::shutdown_send, ignored);
            }
        }
        if (steady_clock::now() >= drain_until_ || drained_ > 64 * settings().max_body_bytes) return close();
        set_deadline(Deadline::drain, milliseconds(300));
        buffer_.clear();
        io().async_read_some(buffer_.prepare(std::min<std::size_t>(64 * 1024, buffer_.max_size())),
                             [self = shared_from_this()](beast::error_code error, std::size_t n) {
                                 if (error) return self->close();
                                 self->drained_ += n + 1;
                                 self->drain();
                             });
    }

    void close() {
        deadline_ = Deadline::none;
        state_ = State::writing;  // nothing more to close at stop
        beast::error_code ignored;
        socket().shutdown(tcp::socket::shutdown_send, ignored);
        socket().close(ignored);
    }

    Stream stream_;
    std::shared_ptr<EngineState<Handler>> engine_;
    std::shared_ptr<ConnectionSlot> slot_;
    beast::flat_buffer buffer_;
    std::optional<RequestParser> parser_;
    std::uint64_t body_limit_ = 0;  // the request's, once its header is read
    std::string response_;          // the answer being written
    State state_ = State::reading;
    bool timed_out_ = false;
    bool keep_alive_ = true;
    bool head_ = false;  // the request being answered is HEAD
    std::size_t drained_ = 0;
    std::chrono::steady_clock::time_point drain_until_{};
    typename Handler::Connection connection_{};
};

// Past max_connections: a refusal the client understands (503 + Retry-After), never a silent drop. The answer is
// written, the client's bytes discarded until it closes, for at most 500 ms.
class RefusedConnection : public std::enable_shared_from_this<RefusedConnection> {
public:
    RefusedConnection(tcp::socket socket, std::shared_ptr<const std::string> answer)
        : socket_(std::move(socket)), timer_(socket_.get_executor()), answer_(std::move(answer)) {}
    void start() {
        timer_.expires_after(std::chrono::milliseconds(500));
        timer_.async_wait([self = shared_from_this()](beast::error_code) {
            beast::error_code ignored;
            self->socket_.close(ignored);
        });
        asio::async_write(socket_, asio::buffer(*answer_),
                          [self = shared_from_this()](beast::error_code error, std::size_t) {
                              if (error) return;
                              beast::error_code ignored;
                              self->socket_.shutdown(tcp::socket::shutdown_send, ignored);
                              self->discard();
                          });
    }

private:
    void discard() {  // until the client closes, or the timer does
        socket_.async_read_some(asio::buffer(scratch_),
                                [self = shared_from_this()](beast::error_code error, std::size_t) {
                                    if (error) {
                                        self->timer_.cancel();
                                        beast::error_code ignored;
                                        self->socket_.close(ignored);
                                        return;
                                    }
                                    self->discard();
                                });
    }
    tcp::socket socket_;
    asio::steady_timer timer_;
    std::shared_ptr<const std::string> answer_;
    std::array<char, 4096> scratch_{};
};

// The listener and its sessions. Everything but open_connections() runs on the io_context's thread (after
// listen(), which may run before that thread starts). Declared after its io_context: destroyed first.
template <typename Handler>
class HttpEngine {
public:
    using Reply = typename Handler::Reply;

    HttpEngine(asio::io_context& io, Handler& handler, EngineSettings settings)
        : io_(io),
          state_(std::make_shared<EngineState<Handler>>(handler, std::move(settings))),
          acceptor_(io),
          retry_timer_(io),
          deadline_timer_(io) {
        Reply refusal = handler.error_reply(503, too_many_connections_text,
                                            {{"Retry-After", std::to_string(connection_retry_after_s)}});
        refusal.close = true;
        refused_answer_ = std::make_shared<const std::string>(wire_reply(refusal, state_->settings.common_headers));
    }
    ~HttpEngine() { state_->waiting.clear(); }
    HttpEngine(const HttpEngine&) = delete;
    HttpEngine& operator=(const HttpEngine&) = delete;

    // Binds and listens (not yet accepting): an error, or none and port() says where. SO_REUSEADDR lets a
    // restarted server take its port back while old connections sit in TIME_WAIT. Not for port 0: there Linux may
    // hand out a port another SO_REUSEADDR socket holds, and listen() then fails with EADDRINUSE (seen under load
    // tests); and a busy port-0 pick is simply tried again.
    [[nodiscard]] beast::error_code listen(const asio::ip::address& address, std::uint16_t port) {
        const tcp::endpoint endpoint(address, port);
        beast::error_code error;
        for (int attempt = 0; attempt < 8; ++attempt) {
            error.clear();
            beast::error_code ignored;
            acceptor_.close(ignored);
            acceptor_.open(endpoint.protocol(), error);
            if (!error && port != 0) acceptor_.set_option(asio::socket_base::reuse_address(true), error);
            if (!error) acceptor_.bind(endpoint, error);
            if (!error) acceptor_.listen(asio::socket_base::max_listen_connections, error);
            if (error != asio::error::address_in_use || port != 0) break;
        }
        if (error) return error;
        port_ = acceptor_.local_endpoint().port();
        acceptor_.non_blocking(true, error);  // accept() drains the listen queue without waiting
        return error;
    }
    [[nodiscard]] std::uint16_t port() const noexcept { return port_; }

    // Starts accepting and sweeping deadlines.
    void start() {
        accept();
        sweep_deadlines();
    }
    // Stops accepting; what is open stays open.
    void stop_accepting() {
        beast::error_code ignored;
        acceptor_.close(ignored);
        retry_timer_.cancel();
    }
    // Stops accepting and sweeping (before the io_context stops).
    void close() {
        stop_accepting();
        deadline_timer_.cancel();
    }
    // The graceful drain: stops accepting, every answer from now on closes its connection, and the connections
    // that wait for no answer close now (and again with close_idle() while the caller waits for the rest).
    void begin_drain() {
        stop_accepting();
        state_->stopping = true;
        close_idle();
    }
    void close_idle() {
        std::vector<std::shared_ptr<void>> held;  // a closing session may end while others close
        for (DeadlineSession* session : state_->sessions) held.push_back(session->hold());
        for (DeadlineSession* session : std::vector<DeadlineSession*>(state_->sessions.begin(), state_->sessions.end()))
            session->close_if_idle();
    }
    [[nodiscard]] std::size_t sessions() const noexcept { return state_->sessions.size(); }
    [[nodiscard]] std::size_t open_connections() const noexcept { return state_->open->load(); }
    [[nodiscard]] const EngineSettings& settings() const noexcept { return state_->settings; }

    // A session over `stream` for a connection holding `slot` (Handler::take's, for a TLS stream).
    template <typename Stream>
    void start_session(Stream stream, std::shared_ptr<ConnectionSlot> slot) {
        std::make_shared<HttpSession<Handler, Stream>>(std::move(stream), state_, std::move(slot))->start();
    }

private:
    // A new connection: a session, or 503 past the limit.
    void take(tcp::socket socket) {
        if (state_->open->load() >= state_->settings.max_connections) {
            state_->last_refusal = std::chrono::steady_clock::now();
            std::make_shared<RefusedConnection>(std::move(socket), refused_answer_)->start();
            return;
        }
        beast::error_code ignored;
        socket.set_option(tcp::no_delay(true), ignored);
        auto slot = std::make_shared<ConnectionSlot>(state_->open);
        if constexpr (requires(Handler & h, HttpEngine & e, tcp::socket s, std::shared_ptr<ConnectionSlot> c) {
                          h.take(e, std::move(s), std::move(c));
                      })
            state_->handler.take(*this, std::move(socket), std::move(slot));
        else
            start_session(PlainStream(std::move(socket)), std::move(slot));
    }

    void accept() {
        acceptor_.async_accept([this](beast::error_code error, tcp::socket socket) {
            if (error == asio::error::operation_aborted || !acceptor_.is_open()) return;
            if (error) {
                // Out of descriptors (EMFILE) or a transient failure: try again shortly instead of spinning.
                retry_timer_.expires_after(std::chrono::milliseconds(50));
                retry_timer_.async_wait([this](beast::error_code e) {
                    if (!e) accept();
                });
                return;
            }
            take(std::move(socket));
            // One async accept completes once per turn of the event loop, while a start-up storm brings thousands
            // of connects a second: drain what the kernel already queued (the acceptor is non-blocking), so the
            // listen queue does not overflow into dropped SYNs and one-second connect retries.
            for (int drained = 0; drained < 512; ++drained) {
                beast::error_code again;
                tcp::socket next(io_);
                acceptor_.accept(next, again);
                if (again) break;  // would_block: the queue is empty (or an error the async accept will see)
                take(std::move(next));
            }
            accept();
        });
    }

    void sweep_deadlines() {
        deadline_timer_.expires_after(state_->settings.sweep_every);
        deadline_timer_.async_wait([this](beast::error_code error) {
            if (error) return;
            const auto now = std::chrono::steady_clock::now();
            std::vector<std::shared_ptr<void>> held;  // a closing session may end while others fire
            std::vector<DeadlineSession*> due;
            for (DeadlineSession* session : state_->sessions) {
                if (!session->past(now)) continue;
                held.push_back(session->hold());
                due.push_back(session);
            }
            for (DeadlineSession* session : due) session->on_deadline();
            sweep_deadlines();
        });
    }

    asio::io_context& io_;
    std::shared_ptr<EngineState<Handler>> state_;
    std::shared_ptr<const std::string> refused_answer_;
    tcp::acceptor acceptor_;
    asio::steady_timer retry_timer_;
    asio::steady_timer deadline_timer_;
    std::uint16_t port_ = 0;
};

}  // namespace meshscope::net
