// HttpOptions: where the collector listens and what it lets one client cost (docs/collector.md,
// docs/live-at-scale.md). Plain std types: server/ links no Qt.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace meshscope::cost {
struct LoadedClusterProfile;
}

namespace meshscope::server {

class Collector;
class TourJobRunner;

// Makes the runner of the tours' simulated jobs (POST /api/v1/tours/NAME/job, tour_api.h) for the collector it is
// given. The collector links no simulator: whoever embeds it (app/demo, for `meshscope serve` and the dashboard)
// gives one. Empty: that route answers 501.
using TourJobRunnerFactory = std::function<std::unique_ptr<TourJobRunner>(Collector&)>;

struct ConnectionLimits {
    // Open connections (HTTP and WebSocket) beyond this are answered 503 + Retry-After and closed.
    // 0: the soft RLIMIT_NOFILE once raised to the hard limit, less a reserve (default_max_connections()).
    std::size_t max_connections = 0;
    std::size_t max_body_bytes = std::size_t{1} << 20;  // 1 MiB; larger bodies get 413
    std::size_t max_header_bytes = 64 * 1024;           // request line + headers; more gets 431
    // A chunk-size line with its extensions, or a chunked body's trailers, must fit in a connection's read buffer of
    // this many bytes (at least max_header_bytes); more gets 400 (http_wire.h, read_buffer_bytes).
    std::size_t read_buffer_bytes = 64 * 1024;
    int read_timeout_ms = 10000;  // a started request must arrive within this (408)
    int idle_timeout_ms = 60000;  // keep-alive connections idle longer are closed
};

struct HttpOptions {
    std::string address = "127.0.0.1";  // an IP address ("::1", "0.0.0.0" ...)
    std::uint16_t port = 7077;          // 0: any free port (CollectorService::port() tells it)
    std::string token;                  // required as "Authorization: Bearer <token>" when not empty
    // Without a token: Host names besides the loopback ones and `address` that requests may carry
    // (serve --allow-host; browser_guard.h).
    std::vector<std::string> allowed_hosts;
    ConnectionLimits limits;
    std::size_t max_stream_backlog_bytes = 8 << 20;  // a WebSocket subscriber further behind is dropped
    // The stream's recent messages, kept so that a subscriber reconnecting with ?since=N&epoch=E gets what
    // it missed (docs/collector.md): at most this many messages and bytes, the oldest leaving first.
    std::size_t stream_resume_messages = 1024;
    std::size_t stream_resume_bytes = std::size_t{32} << 20;
    // A subscriber that authenticates with its first message (a browser) must send it within this.
    int stream_auth_timeout_ms = 10000;
    // PEM files: with both set the collector speaks only TLS (https:// and wss://).
    std::string tls_cert;
    std::string tls_key;
    TourJobRunnerFactory tour_jobs;
    // The user's cluster profile (serve --cluster-profile FILE): GET /api/v1/advise prices with its constants.
    std::shared_ptr<const cost::LoadedClusterProfile> cluster_profile;
};

// File descriptors kept back from connections: the database, its WAL, the listening socket, logs.
inline constexpr std::size_t reserved_descriptors = 64;

// The descriptor limit raised to the hard limit (net/descriptor_limit.h) less reserved_descriptors (at least 1):
// the default --max-connections.
std::size_t default_max_connections();

}  // namespace meshscope::server
