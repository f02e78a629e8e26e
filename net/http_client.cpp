// Every asynchronous step carries the generation of the request it belongs to; a completion from an older
// generation (an operation the deadline or close() cut short, a cancelled timer) is ignored, so exactly one path
// finishes a request. A connection and an exchange (request and parser) are each held by the handlers of the
// operations using them: an operation aborted by a close still finds its buffers alive when it completes, however
// far the client has moved on.
#include "http_client.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include <utility>

namespace meshscope::net {

namespace {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Kind = HttpError::Kind;
using Stage = HttpError::Stage;

struct Connection {
    explicit Connection(asio::io_context& io) : socket(io) {}
    tcp::socket socket;
    beast::flat_buffer buffer;
};

struct Exchange {
    explicit Exchange(HttpRequest r) : request(std::move(r)) {}
    HttpRequest request;
    std::optional<http::response_parser<http::string_body>> parser;
};

Kind kind_of(Stage stage, const boost::system::error_code& ec) {
    if (ec == asio::error::connection_refused) return Kind::refused;
    if (stage == Stage::resolve || ec == asio::error::host_unreachable || ec == asio::error::network_unreachable ||
        ec == asio::error::host_not_found || ec == asio::error::host_not_found_try_again)
        return Kind::unreachable;
    if (ec == asio::error::eof || ec == http::error::end_of_stream || ec == http::error::partial_message ||
        ec == asio::error::connection_reset || ec == asio::error::broken_pipe ||
        ec == asio::error::connection_aborted || ec == asio::error::shut_down)
        return Kind::closed;
    if (ec.category() == http::make_error_code(http::error::bad_version).category()) return Kind::malformed;
    return Kind::other;
}

std::string host_of(const tcp::endpoint& endpoint) {
    const auto address = endpoint.address();
    const std::string text = address.to_string();
    return (address.is_v6() ? "[" + text + "]" : text) + ":" + std::to_string(endpoint.port());
}
}  // namespace

const char* to_string(HttpError::Kind kind) noexcept {
    switch (kind) {
        case Kind::timeout: return "timeout";
        case Kind::refused: return "refused";
        case Kind::unreachable: return "unreachable";
        case Kind::closed: return "closed";
        case Kind::malformed: return "malformed";
        case Kind::other: return "other";
    }
    return "other";
}

const char* to_string(HttpError::Stage stage) noexcept {
    switch (stage) {
        case Stage::resolve: return "resolve";
        case Stage::connect: return "connect";
        case Stage::write: return "write";
        case Stage::read: return "read";
    }
    return "read";
}

std::string HttpError::what() const {
    if (kind == Kind::timeout)
        return stage == Stage::resolve || stage == Stage::connect ? "timed out connecting"
                                                                  : "timed out waiting for the answer";
    return std::string(to_string(stage)) + ": " + code.message();
}

struct HttpClient::Impl : std::enable_shared_from_this<Impl> {
    Impl(asio::io_context& io, std::optional<HttpTarget> t, tcp::endpoint e, HttpClientOptions o)
        : io(io), target(std::move(t)), endpoint(e), options(o), deadline(io), idle(io) {
        if (target) resolver.emplace(io);
        host = target ? target->host + ":" + target->port : host_of(endpoint);
    }

    void request(HttpRequest message, Callback callback) {
        const std::uint64_t gen = ++generation;
        busy = true;
        done = std::move(callback);
        idle.cancel();
        if (message.find(http::field::host) == message.end()) message.set(http::field::host, host);
        auto exchange = std::make_shared<Exchange>(std::move(message));
        reused = connected;
        deadline.expires_after(options.timeout);
        deadline.async_wait([self = shared_from_this(), gen](boost::system::error_code ec) {
            if (ec || gen != self->generation) return;
            self->fail(HttpError{Kind::timeout, self->stage, {}});
        });
        if (connected)
            write(gen, connection, std::move(exchange));
        else
            connect(gen, std::move(exchange));
    }

    void connect(std::uint64_t gen, std::shared_ptr<Exchange> exchange) {
        drop();
        auto conn = std::make_shared<Connection>(io);
        connection = conn;
        if (!target) {
            stage = Stage::connect;
            conn->socket.async_connect(
                endpoint, [self = shared_from_this(), gen, conn, exchange](boost::system::error_code ec) mutable {
                    self->connected_or_failed(gen, ec, std::move(conn), std::move(exchange));
                });
            return;
        }
        stage = Stage::resolve;
        resolver->async_resolve(
            target->host, target->port,
            [self = shared_from_this(), gen, conn, exchange](boost::system::error_code ec,
                                                             tcp::resolver::results_type results) mutable {
                if (gen != self->generation) return;
                if (ec) return self->fail(HttpError{kind_of(Stage::resolve, ec), Stage::resolve, ec});
                self->stage = Stage::connect;
                asio::async_connect(conn->socket, results,
                                    [self, gen, conn, exchange](boost::system::error_code ec2, const tcp::endpoint&) {
                                        self->connected_or_failed(gen, ec2, conn, exchange);
                                    });
            });
    }

    void connected_or_failed(std::uint64_t gen, boost::system::error_code ec, std::shared_ptr<Connection> conn,
                             std::shared_ptr<Exchange> exchange) {
        if (gen != generation) return;
        if (ec) return fail(HttpError{kind_of(Stage::connect, ec), Stage::connect, ec});
        connected = true;
        if (on_connect) on_connect();
        if (gen != generation) return;  // the hook closed the client
        write(gen, std::move(conn), std::move(exchange));
    }

    void write(std::uint64_t gen, std::shared_ptr<Connection> conn, std::shared_ptr<Exchange> exchange) {
        stage = Stage::write;
        Connection& c = *conn;
        Exchange& x = *exchange;
        http::async_write(c.socket, x.request,
                          [self = shared_from_this(), gen, conn = std::move(conn), exchange = std::move(exchange)](
                              boost::system::error_code ec, std::size_t) mutable {
                              if (gen != self->generation) return;
                              if (ec) return self->fail(HttpError{kind_of(Stage::write, ec), Stage::write, ec});
                              self->read(gen, std::move(conn), std::move(exchange));
                          });
    }

    void read(std::uint64_t gen, std::shared_ptr<Connection> conn, std::shared_ptr<Exchange> exchange) {
        stage = Stage::read;
        exchange->parser.emplace();
        exchange->parser->body_limit(options.body_limit);
        Connection& c = *conn;
        Exchange& x = *exchange;
        http::async_read(c.socket, c.buffer, *x.parser,
                         [self = shared_from_this(), gen, conn, exchange](boost::system::error_code ec, std::size_t) {
                             if (gen != self->generation) return;
                             if (ec) return self->fail(HttpError{kind_of(Stage::read, ec), Stage::read, ec});
                             self->answered(exchange->parser->release());
                         });
    }

    void answered(HttpResponse response) {
        if (!response.keep_alive()) drop();
        HttpResult result;
        result.response = std::move(response);
        finish(std::move(result));
    }

    void fail(HttpError error) {
        drop();
        HttpResult result;
        result.error = error;
        finish(std::move(result));
    }

    void finish(HttpResult result) {
        const std::uint64_t gen = ++generation;
        busy = false;
        deadline.cancel();
        if (connected && options.idle_close != std::chrono::steady_clock::duration::zero()) {
            idle.expires_after(options.idle_close);
            idle.async_wait([weak = weak_from_this(), gen](boost::system::error_code ec) {
                auto self = weak.lock();
                if (ec || !self || gen != self->generation) return;  // a request came meanwhile
                self->drop();
            });
        }
        result.reused = reused;
        Callback callback = std::move(done);
        done = nullptr;
        if (callback) callback(std::move(result));
    }

    // Closes the connection; the operations on it complete aborted, and are ignored once the generation moved.
    void drop() {
        if (resolver) resolver->cancel();
        if (connection) {
            boost::system::error_code ignored;
            connection->socket.shutdown(tcp::socket::shutdown_both, ignored);
            connection->socket.close(ignored);
            connection.reset();
        }
        connected = false;
    }

    void close() {
        ++generation;
        busy = false;
        done = nullptr;
        deadline.cancel();
        idle.cancel();
        drop();
    }

    asio::io_context& io;
    const std::optional<HttpTarget> target;
    const tcp::endpoint endpoint;
    const HttpClientOptions options;
    std::string host;
    asio::steady_timer deadline;
    asio::steady_timer idle;
    std::optional<tcp::resolver> resolver;
    std::shared_ptr<Connection> connection;
    Callback done;
    std::function<void()> on_connect;
    std::uint64_t generation = 0;
    Stage stage = Stage::connect;
    bool connected = false;
    bool busy = false;
    bool reused = false;
};

HttpClient::HttpClient(asio::io_context& io, HttpTarget target, HttpClientOptions options)
    : impl_(std::make_shared<Impl>(io, std::move(target), tcp::endpoint{}, options)) {}

HttpClient::HttpClient(asio::io_context& io, tcp::endpoint endpoint, HttpClientOptions options)
    : impl_(std::make_shared<Impl>(io, std::nullopt, endpoint, options)) {}

HttpClient::~HttpClient() {
    close();
}

HttpClient::HttpClient(HttpClient&&) noexcept = default;

HttpClient& HttpClient::operator=(HttpClient&& other) noexcept {
    if (this != &other) {
        close();
        impl_ = std::move(other.impl_);
    }
    return *this;
}

void HttpClient::request(HttpRequest request, Callback done) {
    impl_->request(std::move(request), std::move(done));
}

void HttpClient::on_connect(std::function<void()> hook) {
    impl_->on_connect = std::move(hook);
}

void HttpClient::close() {
    if (impl_) impl_->close();
}

bool HttpClient::connected() const noexcept {
    return impl_ && impl_->connected;
}

bool HttpClient::busy() const noexcept {
    return impl_ && impl_->busy;
}

}  // namespace meshscope::net
