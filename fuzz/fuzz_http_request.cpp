// libFuzzer target: the collector's HTTP request path, from raw bytes on a connection to the reply. Built only
// with -DMESHSCOPE_FUZZ_HTTP=ON, once server/ runs on Boost.Beast (docs/live-at-scale.md).
//
// The bytes go through Beast's http::request_parser<http::string_body> exactly as a connection feeds it (in
// chunks whose size the first input byte picks, so that split reads are covered), with the server's limits;
// a complete request is handed to the function that answers requests, which this target expects to be:
//
//   // server/http/request_handler.h
//   namespace meshscope::server {
//   using HttpRequest = boost::beast::http::request<boost::beast::http::string_body>;
//   using HttpResponse = boost::beast::http::response<boost::beast::http::string_body>;
//   // Routes one complete request (POST /api/v1/events, POST /api/v1/batches, GET /api/v1/jobs/...) and
//   // answers it through `reply` exactly once: inline for a refusal, or from a collector thread once the
//   // events are stored and ingested. No socket, no Asio executor needed.
//   void handle_request(Collector& collector, HttpRequest request, std::function<void(HttpResponse)> reply);
//   }
//
// Wiring after the merge: adjust the include and the call below if the landed handler differs, link the
// server library in fuzz/CMakeLists.txt (add_subdirectory(../server) with MESHSCOPE_FUZZ_HTTP, as core is),
// and add seeds under fuzz/corpus/fuzz_http_request/ (raw requests: see docs/collector.md).
//
// Checked for every request, beyond "no crash, no leak, no UB, no hang": the reply comes within 10 s, its
// status is one the API documents (200, 400, 404, 405, 408, 413, 415, 503), and its body is JSON.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <string>

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <nlohmann/json.hpp>

#include "collector/collector.h"
#include "http/request_handler.h"

namespace {
namespace http = boost::beast::http;
using meshscope::server::Collector;

// The server's own limits (docs/collector.md): a body of at most 1 MiB, headers of at most 16 KiB.
constexpr std::uint64_t body_limit = 1 << 20;
constexpr std::uint32_t header_limit = 16 * 1024;

[[noreturn]] void fail(const char* what) {
    std::fprintf(stderr, "fuzz_http_request: invariant broken: %s\n", what);
    std::abort();
}
void check(bool ok, const char* what) {
    if (!ok) fail(what);
}

// One collector for the whole run, on a database of its own in a fresh temporary directory: opening one
// per input would cost more than the request.
Collector& collector() {
    static const std::unique_ptr<Collector> instance = [] {
        char dir[] = "/tmp/meshscope-fuzz-http-XXXXXX";
        if (!mkdtemp(dir)) fail("mkdtemp");
        auto opened = Collector::open(
            {.database = std::string(dir) + "/history.db", .durability = meshscope::server::Durability::normal});
        if (!opened) fail("Collector::open");
        return std::move(opened).value();
    }();
    return *instance;
}

void check_reply(const meshscope::server::HttpResponse& response) {
    static constexpr unsigned documented[] = {200, 400, 404, 405, 408, 413, 415, 503};
    check(std::find(std::begin(documented), std::end(documented), response.result_int()) != std::end(documented),
          "a documented status");
    check(nlohmann::json::accept(response.body()), "the reply body is JSON");
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::size_t chunk = 1 + data[0] % 64;  // bytes a read hands the parser, as a socket would
    ++data;
    --size;

    http::request_parser<http::string_body> parser;
    parser.body_limit(body_limit);
    parser.header_limit(header_limit);
    parser.eager(true);
    boost::beast::error_code ec;
    std::size_t used = 0;
    std::string pending;  // bytes the parser has not consumed yet, plus the next read
    while (!parser.is_done()) {
        const std::size_t take = std::min(chunk, size - used);
        if (take == 0) {
            if (!pending.empty() || !parser.got_some()) return 0;  // the connection stopped mid-request
            parser.put_eof(ec);
            if (ec) return 0;
            break;
        }
        pending.append(reinterpret_cast<const char*>(data) + used, take);
        used += take;
        const std::size_t consumed = parser.put(boost::asio::buffer(pending), ec);
        if (ec == http::error::need_more) ec = {};
        if (ec) return 0;  // the server answers 400/413 itself and closes; nothing reaches the handler
        pending.erase(0, consumed);
    }
    if (!parser.is_done()) return 0;

    std::promise<meshscope::server::HttpResponse> replied;
    auto future = replied.get_future();
    auto once = std::make_shared<std::atomic<int>>(0);
    meshscope::server::handle_request(collector(), parser.release(),
                                      [&replied, once](meshscope::server::HttpResponse response) {
                                          check(once->fetch_add(1) == 0, "reply runs exactly once");
                                          replied.set_value(std::move(response));
                                      });
    check(future.wait_for(std::chrono::seconds(10)) == std::future_status::ready, "a reply within 10 s");
    check_reply(future.get());
    return 0;
}
