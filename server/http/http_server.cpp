// The listener and the HTTP/1.1 sessions (see http_server.h). Each session reads one request at a time:
// wait for its first byte (idle timeout), read the header (read timeout starts), refuse an oversized body
// from Content-Length, read the body, hand the request to ApiRouter, write the answer, repeat. With TLS a
// session first does the handshake (within the read timeout); HttpSession is a template over the stream.
#include "http_server.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>

#include <thread>
#include <unordered_set>

#include "api_router.h"
#include "beast_engine.h"
#include "beast_request.h"
#include "collector/collector.h"
#include "descriptor_limit.h"
#include "thread_name.h"
#include "tls_context.h"

namespace meshscope::server {

namespace {

// How long after a connection was refused (past max_connections) answers close their connections.
// Longer than a refused rank's Retry-After (2 s x up to 1.5), as long as a heartbeat interval.
constexpr std::chrono::seconds rotate_for{5};

// How often the server looks for sessions past their deadline. Deadlines are seconds long (idle 60 s, request
// 10 s) except a refused request's drain reads (300 ms), which this may stretch to 800 ms.
constexpr std::chrono::milliseconds deadline_sweep_every{500};

}  // namespace

// A session as the deadline sweep sees it. Each session keeps one deadline (a time and what to do then) as
// plain data, and one timer of the server's looks at all of them every deadline_sweep_every: at 16,384
// keep-alive connections heartbeating every 5 s, one Asio timer per session, re-armed three times a request
// (idle, request, drain) and cancelled once, put the timer queue and the cancelled handlers among the network
// thread's largest costs (docs/benchmarks.md, "Steady state").
class DeadlineSession {
public:
    enum class Deadline { none, idle, request, drain, handshake };
    virtual ~DeadlineSession() = default;
    [[nodiscard]] bool past(std::chrono::steady_clock::time_point now) const noexcept {
        return deadline_ != Deadline::none && now >= deadline_at_;
    }
    // Keeps the session alive while its deadline runs (the sweep holds no ownership otherwise).
    [[nodiscard]] virtual std::shared_ptr<void> hold() = 0;
    virtual void on_deadline() = 0;

protected:
    void set_deadline(Deadline kind, std::chrono::milliseconds after) {
        deadline_ = kind;
        deadline_at_ = std::chrono::steady_clock::now() + after;
    }
    Deadline deadline_ = Deadline::none;
    std::chrono::steady_clock::time_point deadline_at_{};
};

namespace {

template <typename Stream>
class HttpSession : public DeadlineSession, public std::enable_shared_from_this<HttpSession<Stream>> {
public:
    HttpSession(Stream stream, HttpServer::Impl& server, std::shared_ptr<ConnectionSlot> slot);
    ~HttpSession() override;
    void start();
    [[nodiscard]] std::shared_ptr<void> hold() override { return shared_from_this(); }
    void on_deadline() override;

private:
    using std::enable_shared_from_this<HttpSession<Stream>>::shared_from_this;
    using std::enable_shared_from_this<HttpSession<Stream>>::weak_from_this;
    [[nodiscard]] tcp::socket& socket() { return beast::get_lowest_layer(stream_).socket(); }
    // What requests are read from and answers written to. The plain path uses the socket itself: the
    // deadline sweep keeps time, so beast::tcp_stream's per-operation timer bookkeeping was pure cost.
    [[nodiscard]] auto& io() {
        if constexpr (std::is_same_v<Stream, PlainStream>)
            return socket();
        else
            return stream_;
    }
    void arm(Deadline kind, std::chrono::milliseconds after);
    void wait_for_request();
    void read_request();
    void on_header(beast::error_code error);
    void read_body();
    void on_request(beast::error_code error);
    void refuse(beast::error_code error);
    void answer(HttpReply reply);
    void drain();
    void close();

    Stream stream_;
    HttpServer::Impl& server_;
    std::shared_ptr<ConnectionSlot> slot_;
    beast::flat_buffer buffer_;
    std::optional<RequestParser> parser_;
    std::string response_;  // the answer being written
    bool timed_out_ = false;
    std::size_t drained_ = 0;
    std::chrono::steady_clock::time_point drain_until_{};
};

}  // namespace

struct HttpServer::Impl {
    Impl(Collector& c, HttpOptions o)
        : collector(c),
          options(std::move(o)),
          gate(std::make_shared<Gate>(io)),
          router(c, options),
          acceptor(io),
          retry_timer(io),
          open(std::make_shared<std::atomic<std::size_t>>(0)) {}

    void accept();
    void take(tcp::socket socket);  // a new connection: a session, or 503 past the limit
    void refuse_connection(tcp::socket socket);
    void sweep_deadlines();

    Collector& collector;
    HttpOptions options;
    asio::io_context io{1};
    std::shared_ptr<Gate> gate;
    ApiRouter router;
    tcp::acceptor acceptor;
    asio::steady_timer retry_timer;
    asio::steady_timer deadline_timer{io};
    std::unordered_set<DeadlineSession*> sessions;  // every HTTP session alive (network thread only)
    std::shared_ptr<std::atomic<std::size_t>> open;
    // When a connection was last refused for being past max_connections (network thread only). For a
    // while after one, every answer closes its connection, so that ranks beyond the limit get a turn
    // instead of waiting for slots that heartbeating ranks would hold for the life of the job.
    std::chrono::steady_clock::time_point last_refusal{};
    std::shared_ptr<StreamHub> hub;
    std::shared_ptr<asio::ssl::context> tls;            // set: every connection is TLS
    std::unordered_set<std::shared_ptr<void>> waiting;  // sessions waiting for an answer from the collector
    int subscription = 0;
    std::uint16_t port = 0;
    std::thread thread;
};

namespace {

template <typename Stream>
HttpSession<Stream>::HttpSession(Stream stream, HttpServer::Impl& server, std::shared_ptr<ConnectionSlot> slot)
    : stream_(std::move(stream)),
      server_(server),
      slot_(std::move(slot)),
      buffer_(read_buffer_limit(server.options.limits)) {
    server_.sessions.insert(this);
}

template <typename Stream>
HttpSession<Stream>::~HttpSession() {
    server_.sessions.erase(this);
}

template <typename Stream>
void HttpSession<Stream>::start() {
    if constexpr (std::is_same_v<Stream, TlsStream>) {
        arm(Deadline::handshake, std::chrono::milliseconds(server_.options.limits.read_timeout_ms));
        stream_.async_handshake(asio::ssl::stream_base::server, [self = shared_from_this()](beast::error_code error) {
            if (error) return self->close();  // not TLS, a bad client, or too slow: nobody to answer in HTTP
            self->wait_for_request();
        });
    } else {
        wait_for_request();
    }
}

// One deadline per connection, swept by the server: idle (close quietly), request (cancel the read: 408),
// drain and handshake (close).
template <typename Stream>
void HttpSession<Stream>::arm(Deadline kind, std::chrono::milliseconds after) {
    set_deadline(kind, after);
}

template <typename Stream>
void HttpSession<Stream>::on_deadline() {
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

template <typename Stream>
void HttpSession<Stream>::wait_for_request() {
    if (buffer_.size() > 0) return read_request();  // a pipelined request is already here
    arm(Deadline::idle, std::chrono::milliseconds(server_.options.limits.idle_timeout_ms));
    // (Waiting for readability first, to skip the read that finds nothing between two heartbeats, was tried:
    // Asio re-arms the descriptor with epoll_ctl for such a wait, one syscall for another; docs/benchmarks.md.)
    io().async_read_some(buffer_.prepare(4096), [self = shared_from_this()](beast::error_code error, std::size_t n) {
        if (error) return self->close();
        self->buffer_.commit(n);
        self->read_request();
    });
}

template <typename Stream>
void HttpSession<Stream>::read_request() {
    const auto& limits = server_.options.limits;
    parser_.emplace();
    limit_parser(*parser_, limits);
    timed_out_ = false;
    arm(Deadline::request, std::chrono::milliseconds(limits.read_timeout_ms));
    http::async_read_header(io(), buffer_, *parser_, [self = shared_from_this()](beast::error_code error, std::size_t) {
        self->on_header(error);
    });
}

template <typename Stream>
void HttpSession<Stream>::on_header(beast::error_code error) {
    if (error) return refuse(error);
    if (auto refusal = header_refusal(*parser_)) return answer(std::move(*refusal));
    const auto& request = parser_->get();
    if (beast::iequals(request[http::field::expect], "100-continue") && !parser_->is_done()) {
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

template <typename Stream>
void HttpSession<Stream>::read_body() {
    http::async_read(io(), buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code error, std::size_t) { self->on_request(error); });
}

template <typename Stream>
void HttpSession<Stream>::on_request(beast::error_code error) {
    if (error) return refuse(error);
    deadline_ = Deadline::none;  // the collector may take its time: no timeout while it works
    auto& message = parser_->get();
    const bool keep_alive = message.keep_alive();
    const bool head = message.method() == http::verb::head;
    HttpRequest request = router_request(message);
    // While the collector works, the server keeps the session; the collector's threads hold only a weak
    // reference, so a session is never destroyed there (its socket belongs to the network thread).
    server_.waiting.insert(shared_from_this());
    server_.router.handle(std::move(request), [weak = weak_from_this(), server = &server_, gate = server_.gate,
                                               keep_alive, head](HttpReply reply) mutable {
        reply.close = reply.close || !keep_alive;
        reply.head = head;
        gate->post([weak, server, reply = std::move(reply)]() mutable {
            const auto self = weak.lock();
            if (!self) return;
            server->waiting.erase(std::static_pointer_cast<void>(self));
            self->answer(std::move(reply));
        });
    });
}

// A request that cannot be served: answer what went wrong (when there is someone to tell) and close.
template <typename Stream>
void HttpSession<Stream>::refuse(beast::error_code error) {
    if (timed_out_) return answer(error_reply(408, "request not received in time"));
    auto reply = refusal_reply(error, server_.options.limits);
    if (!reply) return close();
    answer(std::move(*reply));
}

template <typename Stream>
void HttpSession<Stream>::answer(HttpReply reply) {
    if (reply.accept_stream) {
        // The connection leaves HTTP: the WebSocket session takes the socket and the connection's slot.
        deadline_ = Deadline::none;
        return accept_stream(server_.hub, std::move(stream_), parser_->release(), std::move(slot_),
                             std::move(reply.stream));
    }
    const bool refused = reply.status == 408 || reply.status == 413 || reply.status == 431 || reply.status == 501 ||
                         (reply.status == 400 && (!parser_ || !parser_->is_done()));
    reply.close = reply.close || refused || std::chrono::steady_clock::now() - server_.last_refusal < rotate_for;
    const bool close = reply.close;
    response_ = wire_response(reply);
    arm(Deadline::drain, std::chrono::milliseconds(server_.options.limits.idle_timeout_ms));
    asio::async_write(io(), asio::buffer(response_),
                      [self = shared_from_this(), close, refused](beast::error_code error, std::size_t) {
                          self->response_ = std::string();
                          if (error) return self->close();
                          if (refused) return self->drain();
                          if (close) return self->close();
                          self->wait_for_request();
                      });
}

// After refusing a request the client may still be sending it: read and discard until it goes quiet
// (closing with unread data would reset the connection before the client reads the answer), within bounds.
template <typename Stream>
void HttpSession<Stream>::drain() {
    using namespace std::chrono;
    if (drained_ == 0) drain_until_ = steady_clock::now() + seconds(10);
    if (steady_clock::now() >= drain_until_ || drained_ > 64 * server_.options.limits.max_body_bytes) return close();
    arm(Deadline::drain, milliseconds(300));
    buffer_.clear();
    io().async_read_some(buffer_.prepare(std::min<std::size_t>(64 * 1024, buffer_.max_size())),
                         [self = shared_from_this()](beast::error_code error, std::size_t n) {
                             if (error) return self->close();
                             self->drained_ += n + 1;
                             self->drain();
                         });
}

template <typename Stream>
void HttpSession<Stream>::close() {
    deadline_ = Deadline::none;
    beast::error_code ignored;
    socket().shutdown(tcp::socket::shutdown_send, ignored);
    socket().close(ignored);
}

// Past max_connections: a refusal the reporter understands (503 + Retry-After), never a silent drop.
class RefusedConnection : public std::enable_shared_from_this<RefusedConnection> {
public:
    explicit RefusedConnection(tcp::socket socket) : socket_(std::move(socket)), timer_(socket_.get_executor()) {}
    void start() {
        static const std::string body = R"({"error":"too many connections"})";
        static const std::string answer =
            "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 2\r\n"
            "Content-Security-Policy: " +
            std::string(content_security_policy) + "\r\nX-Content-Type-Options: " + std::string(content_type_options) +
            "\r\nConnection: close\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
        timer_.expires_after(std::chrono::milliseconds(500));
        timer_.async_wait([self = shared_from_this()](beast::error_code) {
            beast::error_code ignored;
            self->socket_.close(ignored);
        });
        asio::async_write(socket_, asio::buffer(answer),
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
    std::array<char, 4096> scratch_{};
};

}  // namespace

void HttpServer::Impl::take(tcp::socket socket) {
    if (open->load() >= options.limits.max_connections) {
        last_refusal = std::chrono::steady_clock::now();
        std::make_shared<RefusedConnection>(std::move(socket))->start();
        return;
    }
    beast::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    auto slot = std::make_shared<ConnectionSlot>(open);
    if (tls) {
        std::make_shared<HttpSession<TlsStream>>(TlsStream(PlainStream(std::move(socket)), *tls), *this,
                                                 std::move(slot))
            ->start();
    } else {
        std::make_shared<HttpSession<PlainStream>>(PlainStream(std::move(socket)), *this, std::move(slot))->start();
    }
}

void HttpServer::Impl::sweep_deadlines() {
    deadline_timer.expires_after(deadline_sweep_every);
    deadline_timer.async_wait([this](beast::error_code error) {
        if (error) return;
        const auto now = std::chrono::steady_clock::now();
        std::vector<std::shared_ptr<void>> held;  // a closing session may end while others fire
        std::vector<DeadlineSession*> due;
        for (DeadlineSession* session : sessions) {
            if (!session->past(now)) continue;
            held.push_back(session->hold());
            due.push_back(session);
        }
        for (DeadlineSession* session : due) session->on_deadline();
        sweep_deadlines();
    });
}

void HttpServer::Impl::accept() {
    acceptor.async_accept([this](beast::error_code error, tcp::socket socket) {
        if (error == asio::error::operation_aborted || !acceptor.is_open()) return;
        if (error) {
            // Out of descriptors (EMFILE) or a transient failure: try again shortly instead of spinning.
            retry_timer.expires_after(std::chrono::milliseconds(50));
            retry_timer.async_wait([this](beast::error_code e) {
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
            tcp::socket next(io);
            acceptor.accept(next, again);
            if (again) break;  // would_block: the queue is empty (or an error the async accept will see)
            take(std::move(next));
        }
        accept();
    });
}

Expected<std::unique_ptr<HttpServer>> HttpServer::start(Collector& collector, HttpOptions options) {
    if (options.limits.max_connections == 0) options.limits.max_connections = default_max_connections();
    net::raise_descriptor_limit();  // a --max-connections given on the command line needs it raised too
    const std::string where = options.address + ":" + std::to_string(options.port);
    std::shared_ptr<asio::ssl::context> tls;
    if (!options.tls_cert.empty() || !options.tls_key.empty()) {
        auto context = make_tls_context(options.tls_cert, options.tls_key);
        if (!context) return context.error();
        tls = std::move(context).value();
    }
    std::unique_ptr<HttpServer> server(new HttpServer());
    server->impl_ = std::make_unique<Impl>(collector, options);
    Impl& impl = *server->impl_;
    impl.tls = std::move(tls);
    beast::error_code error;
    const auto address = asio::ip::make_address(options.address, error);
    if (error) return RuntimeError("cannot listen on " + where + ": not an IP address");
    const tcp::endpoint endpoint(address, options.port);
    // SO_REUSEADDR lets a restarted collector take its port back while old connections sit in TIME_WAIT.
    // Not for port 0: there Linux may hand out a port another SO_REUSEADDR socket holds, and listen() then
    // fails with EADDRINUSE (seen under load tests); and a busy port-0 pick is simply tried again.
    for (int attempt = 0; attempt < 8; ++attempt) {
        error.clear();
        beast::error_code ignored;
        impl.acceptor.close(ignored);
        impl.acceptor.open(endpoint.protocol(), error);
        if (!error && options.port != 0) impl.acceptor.set_option(asio::socket_base::reuse_address(true), error);
        if (!error) impl.acceptor.bind(endpoint, error);
        if (!error) impl.acceptor.listen(asio::socket_base::max_listen_connections, error);
        if (error != asio::error::address_in_use || options.port != 0) break;
    }
    if (error) return RuntimeError("cannot listen on " + where + ": " + error.message());
    impl.port = impl.acceptor.local_endpoint().port();
    impl.acceptor.non_blocking(true, error);  // accept() drains the listen queue without waiting
    if (error) return RuntimeError("cannot listen on " + where + ": " + error.message());

    impl.hub = std::make_shared<StreamHub>(
        impl.io, impl.gate,
        StreamSettings{.max_backlog_bytes = options.max_stream_backlog_bytes,
                       .resume_messages = options.stream_resume_messages,
                       .resume_bytes = options.stream_resume_bytes,
                       .auth_timeout = std::chrono::milliseconds(options.stream_auth_timeout_ms),
                       .token = options.token});
    impl.subscription = collector.subscribe([hub = impl.hub](const Change& change) { hub->on_change(change); });
    impl.accept();
    impl.sweep_deadlines();
    impl.thread = std::thread([&impl] {
        net::name_this_thread("ms-network");
        impl.io.run();
    });
    return server;
}

HttpServer::~HttpServer() {
    if (!impl_) return;
    impl_->collector.unsubscribe(impl_->subscription);
    asio::post(impl_->io, [impl = impl_.get()] {
        beast::error_code ignored;
        impl->acceptor.close(ignored);
        impl->retry_timer.cancel();
        impl->deadline_timer.cancel();
        impl->hub->close_all();
    });
    impl_->gate->close();  // answers still coming from the collector go nowhere now
    // Let the closes run, then stop whatever is still waiting (idle keep-alive connections).
    asio::post(impl_->io, [impl = impl_.get()] { impl->io.stop(); });
    if (impl_->thread.joinable()) impl_->thread.join();
}

std::uint16_t HttpServer::port() const noexcept {
    return impl_->port;
}

std::size_t HttpServer::max_connections() const noexcept {
    return impl_->options.limits.max_connections;
}

std::size_t HttpServer::open_connections() const noexcept {
    return impl_->open->load();
}

}  // namespace meshscope::server
