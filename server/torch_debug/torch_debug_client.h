// A client of torch's debug server (torch.distributed.debug.start_debug_server, torch 2.15): its front end on rank 0
// serves each page as HTML built from every rank's worker server. `/fr_trace_json?backend=B` is one section per
// rank, `<h2>Rank N: WORKER-URL</h2>` and then either `<pre>` + that rank's Flight Recorder JSON (json.dumps, indent
// 2, not HTML-escaped) + `</pre>`, or `<p>Failed to fetch: status=S</p>` + `<pre>` + the front end's reason +
// `</pre>` (408 for a worker's timeout, 503 for a refused connection). This client asks for it with plain POSIX
// sockets and poll(2) (ras::connect_socket, ras::wait_socket), every wait bounded by the timeout and stopped at once
// by a RasStop, the page bounded by a byte cap; each failure is a ras::RasClientError naming host:port on one line.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ras/ras_client.h"

namespace meshscope::torch_debug {

// One rank's section of the front end's page.
struct PageRank {
    std::int64_t rank = 0;
    std::string worker;  // the worker's URL the front end fetched it from ("http://node0:41213/handler/...")
    int status = 200;    // the front end's fetch: 200, or what it reported (408 timeout, 503 refused, ...)
    std::string text;    // the rank's Flight Recorder JSON (200), else the front end's reason
};

// GET path from host:port over HTTP/1.0 (one connection, closed by the server after the answer): the body of a
// 200 answer. timeout bounds the connection, then the whole answer; max_reply its bytes. Errors (RasClientError):
//   cannot connect to 127.0.0.1:25999: Connection refused
//   127.0.0.1:25999: no answer to GET /fr_trace_json within 30 s
//   127.0.0.1:25999 answered HTTP 404 to GET /fr_trace_json: "Handler not found: /fr_trace_json"
//   127.0.0.1:25999 is not an HTTP server: it answered "CLIENT PROTOCOL 2" to GET /fr_trace_json
//   127.0.0.1:25999: the answer to GET /fr_trace_json is larger than 268435456 bytes; stopped reading
//   127.0.0.1:25999 closed the connection mid-reply (after 100 of 12799 bytes of GET /fr_trace_json)
[[nodiscard]] std::string http_get(const std::string& host, const std::string& port, const std::string& path,
                                   std::chrono::milliseconds timeout, std::size_t max_reply, const ras::RasStop* stop);

// The sections of a front-end page (ranks in page order). RasClientError when it has none:
//   127.0.0.1:25999: the answer to GET /fr_trace_json is not torch's debug-server page (no "Rank N:" section)
// or when one is cut short ("... section "Rank 3" ends before its </pre>").
[[nodiscard]] std::vector<PageRank> read_page(std::string_view html, const std::string& where, const std::string& what);

}  // namespace meshscope::torch_debug
