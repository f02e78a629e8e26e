// meshscope relay: the node-local relay between a node's ranks and the collector
// (docs/live-at-scale.md "Beyond one collector's connections: the node relay", docs/collector.md "Relay").
// Ranks POST /api/v1/events to it exactly as to the collector; it gathers their bodies for up to
// batch_ms (or batch_bodies), sends them upstream as one POST /api/v1/batches over a kept-alive
// connection, and answers each rank with its own result only once the upstream has answered, so an
// acknowledgement still means "stored by the collector". Its upstream may be another relay.
// Boost.Beast / Asio on one network thread of its own; no Qt.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "meshscope/mesh/error.h"

namespace meshscope::relay {

// http://HOST:PORT[/PREFIX]: where the batches go (PREFIX + "/api/v1/batches").
struct UpstreamUrl {
    std::string host;
    std::string port;
    std::string prefix;  // "" or "/something", never ending in '/'
};
// ValueError "--upstream must be http://HOST:PORT, got '{text}'".
[[nodiscard]] Expected<UpstreamUrl> parse_upstream_url(const std::string& text);

struct RelayOptions {
    std::string listen_host = "127.0.0.1";
    std::uint16_t listen_port = 7078;  // 0: any free port (Relay::port() says which)
    UpstreamUrl upstream;
    std::string token;  // required from ranks as "Authorization: Bearer <token>" when not empty
    // Without a token: Host names besides the loopback ones and listen_host that requests may carry, and only
    // requests without an Origin or with the relay's own (browser_guard.h; --allow-host).
    std::vector<std::string> allowed_hosts;
    std::string upstream_token;             // sent upstream as "Authorization: Bearer <token>" when not empty
    int max_connections = 1024;             // rank connections beyond this get 503 "too many connections"
    std::int64_t max_body_bytes = 1 << 20;  // a rank's body larger -> 413 (as the collector)
    int read_timeout_ms = 10000;            // a started request must arrive within this (408)
    int idle_timeout_ms = 60000;            // keep-alive rank connections idle longer are closed
    // A batch goes upstream when its first body has waited batch_ms, or it holds batch_bodies bodies or
    // batch_bytes bytes, whichever comes first.
    int batch_ms = 20;
    int batch_bodies = 512;
    // 512 KiB of bodies stay under the collector's 1 MiB body limit once JSON-escaped (mostly); a batch
    // the upstream still finds too large (413) is split.
    std::int64_t batch_bytes = 512 << 10;
    // Batches sent and not yet answered, one upstream connection each. 1 for a node relay: the collector
    // then holds one connection per node (16,384 for 131,072 ranks); while a batch is out the next one
    // fills. A relay at the top of a tree (few of them) may take more.
    int max_in_flight = 1;
    int upstream_timeout_ms = 10000;     // resolve + connect + send + answer of one batch
    int upstream_idle_close_ms = 30000;  // idle upstream connections are closed before the collector does
    // Bodies waiting (queued or in flight) beyond these: the rank gets 503 + Retry-After at once.
    std::int64_t max_waiting_bodies = 65536;
    std::int64_t max_waiting_bytes = 256 << 20;
    // How long a rank waits for its answer when its request does not say (MeshScope-Timeout): the reporters'
    // MESHSCOPE_TIMEOUT_S. Admission control keeps every body's wait here under it (admission.h).
    int rank_timeout_ms = 5000;
    int max_retry_after_s = 60;  // the longest Retry-After the relay's own refusals ask for
    // How often the ranks heard from whose events went no further (shed heartbeats, refused lifecycle bodies)
    // are named upstream as "seen" (seen_digest.h). Well under the collector's --stale-after (60 s).
    int seen_every_ms = 5000;
};

// Counters for tests and the start line; read from any thread.
struct RelayStats {
    std::int64_t bodies_received = 0;       // from ranks (each body of an incoming batch counts)
    std::int64_t batches_sent = 0;          // upstream requests, retries included
    std::int64_t bodies_refused_busy = 0;   // 503 at once: over the waiting bounds
    std::int64_t bodies_refused_wait = 0;   // 503 at once: would wait past lifecycle_wait_share of its timeout
    std::int64_t bodies_expired = 0;        // 503 unsent: still queued at queued_wait_share of its timeout
    std::int64_t bodies_deduplicated = 0;   // the same bytes while a copy waited: joined it, not sent again
    std::int64_t heartbeats_shed = 0;       // heartbeat-only bodies answered 503 (their ranks named as seen)
    std::int64_t seen_ranks_forwarded = 0;  // ranks named in "seen" digests the upstream took
    std::int64_t upstream_failures = 0;     // batches answered by no usable upstream answer
    std::int64_t waiting_bodies = 0;
    int connections = 0;
};

class Relay {
public:
    // Binds and listens on the caller's thread (so a taken port fails here), then runs on its own thread.
    // RuntimeError "cannot listen on HOST:PORT: <reason>".
    [[nodiscard]] static Expected<std::unique_ptr<Relay>> start(RelayOptions options);
    ~Relay();  // stop()
    Relay(const Relay&) = delete;
    Relay& operator=(const Relay&) = delete;

    [[nodiscard]] std::uint16_t port() const;
    [[nodiscard]] std::string url() const;  // http://HOST:PORT
    [[nodiscard]] RelayStats stats() const;
    // Stops accepting, sends what is queued, waits (bounded by upstream_timeout_ms) for the answers and
    // hands them to the ranks, then closes every connection. Idempotent.
    void stop();

    struct Impl;

private:
    explicit Relay(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

// The counters as GET /api/v1/relay answers them: {"bodies_received": n, ...} with RelayStats' names.
[[nodiscard]] std::string stats_json(const RelayStats& stats);

// The default --max-connections: the descriptor limit (raised, net/descriptor_limit.h) less a reserve for the
// upstream connections, the listening socket and the files the process opens.
[[nodiscard]] int default_max_connections(std::size_t open_file_limit);

}  // namespace meshscope::relay
