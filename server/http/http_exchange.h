// One HTTP request as the API router sees it, and the answer it gives: plain values, so that routing and
// the handlers do not depend on the HTTP engine (Beast lives in http_server.cpp and stream_session.cpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace meshscope::server {

struct HttpRequest {
    std::string method;  // "GET", "POST" ...
    std::string target;  // path and query as sent: "/api/v1/jobs/j%201/ranks?offset=10"
    std::string authorization;
    bool upgrade_websocket = false;     // "Upgrade: websocket"
    std::string websocket_protocols;    // Sec-WebSocket-Protocol as sent: "meshscope.v1, meshscope.bearer.<token>"
    std::optional<std::string> host;    // the Host header, when sent
    std::optional<std::string> origin;  // the Origin header (browsers), when sent
    std::string content_type;           // Content-Type as sent ("" when none)
    std::string content_encoding;       // Content-Encoding as sent ("" when none)
    std::string body;
};

// How a WebSocket subscriber (GET /api/v1/stream) starts, read from its upgrade request by the router.
struct StreamStart {
    bool authenticate_first = false;   // no token in the request: the first message must carry it
    bool refuse = false;               // a wrong meshscope.bearer.<token>: upgraded, told, closed (1008)
    std::string protocol;              // the subprotocol the upgrade answers ("meshscope.v1" or none)
    std::optional<std::string> since;  // ?since=N as sent: resume after message N of ...
    std::string epoch;                 // ... ?epoch=E, this collector process's stream
};

struct HttpReply {
    int status = 200;
    std::string body;
    std::string content_type = "application/json";
    std::vector<std::pair<std::string, std::string>> headers;  // extra headers (Allow, Retry-After ...)
    bool close = false;                                        // the connection closes after this answer
    bool head = false;  // the answer to HEAD: the GET answer's headers, Content-Length included, without its body
    bool accept_stream = false;  // not an answer: accept the WebSocket upgrade (GET /api/v1/stream)
    StreamStart stream;          // with accept_stream
};

// Carried by every answer of the collector (API, errors, refusals, the WebSocket upgrade, the pages): the
// page may run only its own scripts and styles and talk only to its own origin, and the browser must not
// guess a content type (docs/collector.md).
inline constexpr std::string_view content_security_policy =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; "
    "worker-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";
inline constexpr std::string_view content_type_options = "nosniff";

// {"error": message} with `status`, plus the given headers.
[[nodiscard]] HttpReply error_reply(int status, std::string_view message,
                                    std::vector<std::pair<std::string, std::string>> headers = {});

}  // namespace meshscope::server
