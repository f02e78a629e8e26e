// libFuzzer target: the collector's HTTP request path, from the bytes a connection receives to the response
// it writes. The pieces are the server's own (server/http/beast_request.h, api_router.h): Beast's
// request_parser with the server's limits, the request the router sees, the router (ApiRouter) on a real
// Collector with a SQLite database in a temporary directory, and the response written for its reply.
//
// The first input byte configures the connection: bits 0-5 the size of each read (1-64 bytes, as a socket
// hands them over, so that split reads are covered), bit 6 a collector started with a token (401 paths),
// bit 7 tight limits (`meshscope serve --max-body 4096`, headers of 1 KiB, a read buffer of 2 KiB) so that 413, 431
// and the bound on chunk extensions and trailers (400) are reached with small inputs; without it the defaults
// (1 MiB body, 64 KiB headers and read buffer). The rest is what the client sends: up to four requests on one
// keep-alive connection. The received bytes wait in a buffer as bounded as the session's (a chunk-size line or
// trailers that do not fit: buffer_overflow), a Transfer-Encoding other than chunked is refused once the header
// is read (501), and HEAD is answered as GET without the body, as HttpSession does.
//
// Checked for every request, beyond "no crash, no leak, no UB, no hang": the router replies exactly once and
// within 10 s; the status is one the API documents; an API reply's body is JSON (the error replies an
// object with a string "error"); only an upgrade on /api/v1/stream is accepted as a stream; and the written
// response parses back with the same status and body.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <memory>
#include <string>

#include <boost/asio/buffer.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>

#include "collector/collector.h"
#include "http/api_router.h"
#include "http/beast_request.h"
#include "http/static_assets.h"
#include "http/url_parts.h"

namespace {
namespace http = boost::beast::http;
using namespace meshscope::server;

[[noreturn]] void fail(const char* what) {
    std::fprintf(stderr, "fuzz_http_request: invariant broken: %s\n", what);
    std::abort();
}
void check(bool ok, const char* what) {
    if (!ok) fail(what);
}

// One collector for the whole run, in a fresh directory under TMPDIR (scripts/fuzz.sh points it at its own
// work directory): opening one per input would cost more than the request. Small shedding watermarks are
// not set: the defaults are what `meshscope serve` runs with.
Collector& collector() {
    static const std::unique_ptr<Collector> instance = [] {
        std::string dir = (std::filesystem::temp_directory_path() / "meshscope-fuzz-http-XXXXXX").string();
        if (!mkdtemp(dir.data())) fail("mkdtemp");
        auto opened = Collector::open({.database = dir + "/history.db", .durability = Durability::normal});
        if (!opened) fail("Collector::open");
        return std::move(opened).value();
    }();
    return *instance;
}

ConnectionLimits limits(bool tight) {
    ConnectionLimits limits;  // the server's defaults
    if (tight) {
        limits.max_body_bytes = 4096;
        limits.max_header_bytes = 1024;
        limits.read_buffer_bytes = 2048;
    }
    return limits;
}

ApiRouter& router(bool with_token, bool tight) {
    static ApiRouter* routers[2][2] = {};
    ApiRouter*& router = routers[with_token][tight];
    if (!router) {
        HttpOptions options;
        options.token = with_token ? "fuzz-token" : "";
        options.limits = limits(tight);
        static std::vector<std::unique_ptr<ApiRouter>> kept;  // live as long as the collector
        kept.push_back(std::make_unique<ApiRouter>(collector(), options));
        router = kept.back().get();
    }
    return *router;
}

bool documented(int status) {
    static constexpr int statuses[] = {200, 400, 401, 403, 404, 405, 408, 413, 431, 501, 503};
    return std::find(std::begin(statuses), std::end(statuses), status) != std::end(statuses);
}

// The reply as HttpSession::answer writes it, read back by a client's parser.
void check_written(const HttpReply& reply) {
    const std::string bytes = wire_response(reply);
    http::response_parser<http::string_body> parser;
    parser.eager(true);
    parser.skip(reply.head);  // an answer to HEAD: Content-Length without the body
    parser.body_limit(bytes.size());
    boost::beast::error_code ec;
    parser.put(boost::asio::buffer(bytes), ec);
    check(!ec && parser.is_done(), "the written response parses back");
    check(parser.get().result_int() == static_cast<unsigned>(reply.status), "the written status");
    if (reply.head) {
        check(parser.get().body().empty() && bytes.ends_with("\r\n\r\n"), "no body after HEAD's headers");
        check(parser.content_length() == reply.body.size(), "HEAD's Content-Length is the GET answer's");
    } else {
        check(parser.get().body() == reply.body, "the written body");
    }
    check(parser.get().keep_alive() == !reply.close, "the written Connection");
    check(parser.get()["Content-Security-Policy"] == content_security_policy, "the written CSP");
}

void check_reply(const HttpRequest& request, const HttpReply& reply) {
    // MESHSCOPE_FUZZ_VERBOSE=1 prints each answer (to see which routes a seed reaches).
    static const bool verbose = std::getenv("MESHSCOPE_FUZZ_VERBOSE") != nullptr;
    if (verbose)
        std::fprintf(stderr, "%s %s -> %d%s %.100s\n", request.method.c_str(), request.target.c_str(), reply.status,
                     reply.accept_stream ? " (stream)" : "", reply.body.c_str());
    const UrlParts url = split_target(request.target);
    if (reply.accept_stream) {
        check(url.path == "/api/v1/stream" && request.upgrade_websocket && request.method == "GET",
              "only a GET upgrade on /api/v1/stream becomes a stream");
        return;
    }
    check(documented(reply.status), "a documented status");
    if (url.path == "/metrics" && reply.status == 200) {
        check(reply.content_type.starts_with("text/plain"), "/metrics is text");
    } else if (is_page_path(url.path) && reply.status == 200) {
        // the web page's own files (whatever their type), exactly as embedded
        const HttpReply file = page_reply(url.path);
        check(reply.content_type == file.content_type && reply.body == file.body, "a page path answers its file");
    } else {
        check(reply.content_type == "application/json", "an API reply is JSON");
        const auto body = nlohmann::json::parse(reply.body, nullptr, false);
        check(!body.is_discarded(), "the reply body is JSON");
        if (reply.status != 200)
            check(body.is_object() && body.contains("error") && body["error"].is_string(),
                  "an error reply is {\"error\": text}");
    }
    check_written(reply);
}

// Hands one request to the router and waits for its one reply.
HttpReply route(ApiRouter& router, HttpRequest request) {
    struct Pending {
        std::promise<HttpReply> promise;
        std::atomic<int> replies{0};
    };
    auto pending = std::make_shared<Pending>();
    auto replied = pending->promise.get_future();
    router.handle(std::move(request), [pending](HttpReply reply) {
        check(pending->replies.fetch_add(1) == 0, "reply runs exactly once");
        pending->promise.set_value(std::move(reply));
    });
    check(replied.wait_for(std::chrono::seconds(10)) == std::future_status::ready, "a reply within 10 s");
    return replied.get();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::size_t chunk = 1 + (data[0] & 63);  // bytes a read hands the parser, as a socket would
    const bool with_token = data[0] & 64;
    const bool tight = data[0] & 128;
    ++data;
    --size;
    const ConnectionLimits connection = limits(tight);
    ApiRouter& api = router(with_token, tight);

    std::size_t used = 0;
    std::string pending;  // received, not consumed by the parser yet (HttpSession's flat_buffer, as bounded)
    const std::size_t buffer_limit = read_buffer_limit(connection);
    for (int served = 0; served < 4; ++served) {
        RequestParser parser;
        limit_parser(parser, connection);
        parser.eager(true);
        boost::beast::error_code ec;
        bool header_judged = false;
        while (!parser.is_done()) {
            if (!pending.empty()) {
                const std::size_t consumed = parser.put(boost::asio::buffer(pending), ec);
                pending.erase(0, consumed);
                if (ec == http::error::need_more) ec = {};
                if (ec) break;
                if (parser.is_header_done() && !header_judged) {
                    header_judged = true;
                    // HttpSession::on_header: refused before the body is read, and the connection closed.
                    if (const auto refusal = header_refusal(parser)) {
                        check(refusal->status == 501, "a header refusal is 501");
                        check_reply(HttpRequest{}, *refusal);
                        return 0;
                    }
                }
                if (parser.is_done() || consumed > 0) continue;
            }
            // Beast's read: a full buffer that the parser needs more of is buffer_overflow.
            if (pending.size() >= buffer_limit) {
                ec = http::error::buffer_overflow;
                break;
            }
            const std::size_t take = std::min({chunk, size - used, buffer_limit - pending.size()});
            if (take == 0) {
                // The client stopped sending: as Beast's read does at EOF, end_of_stream before the first
                // byte of a request (put_eof requires got_some()), else let the parser decide.
                if (!parser.got_some()) {
                    ec = http::error::end_of_stream;
                    break;
                }
                parser.put_eof(ec);
                if (!ec) check(parser.is_done(), "put_eof without an error finishes the message");
                break;
            }
            pending.append(reinterpret_cast<const char*>(data) + used, take);
            used += take;
        }
        if (ec) {
            // HttpSession::refuse: answer and close, or close quietly when nobody is there to tell.
            if (const auto reply = refusal_reply(ec, connection)) {
                check(reply->status == 400 || reply->status == 413 || reply->status == 431, "a refusal is 400/413/431");
                check_reply(HttpRequest{}, *reply);
            }
            return 0;
        }
        if (!parser.is_done()) return 0;
        if (!header_judged) {
            if (const auto refusal = header_refusal(parser)) {
                check(refusal->status == 501, "a header refusal is 501");
                check_reply(HttpRequest{}, *refusal);
                return 0;
            }
        }
        auto& message = parser.get();
        const bool keep_alive = message.keep_alive();
        const bool head = message.method() == http::verb::head;
        HttpRequest request = router_request(message);
        check(!head || request.method == "GET", "HEAD is routed as GET");
        const HttpRequest sent = request;
        HttpReply reply = route(api, std::move(request));
        reply.head = head && !reply.accept_stream;
        check_reply(sent, reply);
        if (reply.accept_stream || reply.close || !keep_alive) return 0;  // the connection leaves HTTP or closes
    }
    return 0;
}
