// HttpClient: one kept-alive HTTP/1.1 connection to one server, carrying one request at a time, on the caller's
// io_context (the relay's connections to its upstream, every simulated rank of the storm). The HTTP mechanics
// are here; what to send, when, and what an answer or a failure means (batching, admission, Retry-After, pacing,
// counting) stay with the user.
//   - connect: to a given endpoint, or to host:port resolved again at every connect; a connection is opened
//     when a request finds none (the first one, or after a close by either side) and kept open after an answer
//     unless the server says `Connection: close`
//   - deadline: `timeout` covers the whole request: resolve, connect, write and the complete answer; when it
//     passes the connection is closed and the request fails with timeout
//   - idle close: with `idle_close`, a connection nobody used for that long is closed (the next request opens
//     a new one)
//   - result: exactly one callback per request, on the io_context's thread, with the server's answer (status,
//     headers, body) or a typed HttpError; after a failure the connection is closed. The callback may send the
//     next request at once.
//   - close() (and the destructor) closes the connection; a request in flight is abandoned: its callback is
//     never called
//
//   net::HttpClient client(io, {.host = "127.0.0.1", .port = "8080"}, {.timeout = 10s});
//   client.request(std::move(post), [](net::HttpResult result) {
//       if (result.error) ... result.error->kind, result.error->what()
//       else ... result.response.result_int(), result.response.body()
//   });
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/system/error_code.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace meshscope::net {

using HttpRequest = boost::beast::http::request<boost::beast::http::string_body>;
using HttpResponse = boost::beast::http::response<boost::beast::http::string_body>;

struct HttpError {
    enum class Kind {
        timeout,      // the request's deadline passed
        refused,      // nothing listens there (ECONNREFUSED)
        unreachable,  // the name did not resolve, or no route to the host
        closed,       // the server closed or reset the connection before the answer was complete
        malformed,    // the answer is not HTTP/1.1, or larger than body_limit
        other,        // any other socket error (code says which)
    };
    enum class Stage { resolve, connect, write, read };  // where the request was when it failed

    Kind kind = Kind::other;
    Stage stage = Stage::connect;
    boost::system::error_code code;  // the socket's error; none for a timeout

    // "connect: Connection refused", "read: end of stream", "timed out connecting",
    // "timed out waiting for the answer" (write or read).
    [[nodiscard]] std::string what() const;
};

[[nodiscard]] const char* to_string(HttpError::Kind kind) noexcept;
[[nodiscard]] const char* to_string(HttpError::Stage stage) noexcept;

struct HttpResult {
    std::optional<HttpError> error;  // none: `response` is the server's complete answer
    HttpResponse response;
    bool reused = false;  // sent on a connection an earlier request opened (a failure may be the server's idle close)
};

struct HttpTarget {
    std::string host;  // a name or an address, resolved at every connect
    std::string port;
};

struct HttpClientOptions {
    std::chrono::steady_clock::duration timeout = std::chrono::seconds(10);
    std::chrono::steady_clock::duration idle_close{};  // zero: an idle connection stays open
    std::size_t body_limit = 8u << 20;                 // a larger answer fails as malformed
};

class HttpClient {
public:
    using Callback = std::function<void(HttpResult)>;

    HttpClient(boost::asio::io_context& io, HttpTarget target, HttpClientOptions options = {});
    HttpClient(boost::asio::io_context& io, boost::asio::ip::tcp::endpoint endpoint, HttpClientOptions options = {});
    ~HttpClient();
    HttpClient(HttpClient&&) noexcept;
    HttpClient& operator=(HttpClient&&) noexcept;

    // Sends `request` (a Host header is added when it has none), connecting first when no connection is open.
    // One request at a time: call again from the callback, not before.
    void request(HttpRequest request, Callback done);
    // Called each time a connection opens, on the io_context's thread, before the request is written.
    void on_connect(std::function<void()> hook);
    void close();

    [[nodiscard]] bool connected() const noexcept;  // a connection is open (the next request reuses it)
    [[nodiscard]] bool busy() const noexcept;       // a request is in flight

    struct Impl;

private:
    std::shared_ptr<Impl> impl_;
};

}  // namespace meshscope::net
