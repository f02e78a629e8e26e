// One HTTP request as the API router sees it, and the answer it gives: plain values, so that routing and
// the handlers do not depend on the HTTP engine (Beast lives in http_server.cpp and stream_session.cpp).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace meshscope::server {

struct HttpRequest {
    std::string method;  // "GET", "POST" ...
    std::string target;  // path and query as sent: "/api/v1/jobs/j%201/ranks?offset=10"
    std::string authorization;
    bool upgrade_websocket = false;  // "Upgrade: websocket"
    std::string body;
};

struct HttpReply {
    int status = 200;
    std::string body;
    std::string content_type = "application/json";
    std::vector<std::pair<std::string, std::string>> headers;  // extra headers (Allow, Retry-After ...)
    bool close = false;                                        // the connection closes after this answer
    bool accept_stream = false;  // not an answer: accept the WebSocket upgrade (GET /api/v1/stream)
};

// On every answer of the collector (the web page is served from it): no script, style or connection but the
// collector's own, no inline script, no framing, and no content-type sniffing.
inline constexpr std::string_view content_security_policy =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

// {"error": message} with `status`, plus the given headers.
[[nodiscard]] HttpReply error_reply(int status, std::string_view message,
                                    std::vector<std::pair<std::string, std::string>> headers = {});

}  // namespace meshscope::server
