// Reporter: sends meshscope.event/1 events from a C++ process (a training rank, the NCCL probe, the
// simulator) to a collector. It must never take the job down: enqueue() never blocks on the network and
// never throws; the queue is bounded for heartbeats, and never drops a lifecycle event to make room (see
// rank_queue.h); a background thread batches each rank's pending events into one request, and
// shutdown() returns within its time limit whatever the network does. Plain C++20 + libcurl: no Qt, no
// core.
//
// When the collector cannot take a request: a 503 / 429 with `Retry-After: S` (seconds or an HTTP-date)
// is retried after S x U(1, 1.5); no answer, a reset, a 5xx without Retry-After, 408 or 429 without it
// are retried with jittered exponential backoff (initial_backoff doubling up to max_backoff, times
// U(0.5, 1.5)), so that thousands of ranks do not come back in lockstep; any other 4xx is final. The
// heartbeats of a request that was not delivered are dropped, not retried (the next one follows).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace meshscope::client {

struct ReporterOptions {
    std::string url;    // the collector, "http://127.0.0.1:7077" (events go to <url>/api/v1/events)
    std::string token;  // sent as "Authorization: Bearer <token>" when not empty
    // "meshscope": meshscope.event/1 to <url>/api/v1/events. "otlp": OTLP/HTTP JSON logs to <url>/v1/logs, one log
    // record per event (docs/protocol.md, "OTLP logs"), e.g. to a node-local OpenTelemetry Collector
    // (http://127.0.0.1:4318); a partial success counts its refused records as rejected. Empty:
    // $MESHSCOPE_PROTOCOL, else "meshscope". Any other value: nothing is sent (enqueue() drops every event,
    // stats().last_error says why).
    std::string protocol;
    // For an https:// url: the PEM file of the CAs to trust (a self-signed collector's certificate).
    // Empty: $MESHSCOPE_CA_FILE when set, else the system's CAs. Verification is never turned off.
    std::string ca_file;
    std::size_t max_queue_events = 65536;      // events held (queued + in flight); beyond: heartbeats go first
    std::size_t max_queue_bytes = 64u << 20;   // the same bound in bytes
    std::size_t max_batch_events = 256;        // events of one rank in one request
    std::size_t max_batch_bytes = 512u << 10;  // and their size (the collector refuses > 1 MiB)
    int connections = 1;                       // sender threads, each with one keep-alive connection
    std::chrono::milliseconds connect_timeout{2000};
    std::chrono::milliseconds request_timeout{10000};
    std::chrono::milliseconds initial_backoff{250};    // first retry after no answer / a 5xx, before jitter
    std::chrono::milliseconds max_backoff{5000};       // the doubling stops here (MESHSCOPE_BACKOFF_MAX_S)
    std::chrono::milliseconds shutdown_timeout{2000};  // what the destructor allows for delivery
};

struct ReporterStats {
    // enqueued = acknowledged + rejected + heartbeats_evicted + heartbeats_refused + abandoned + pending
    std::uint64_t enqueued = 0;            // accepted by enqueue()
    std::uint64_t dropped = 0;             // refused by enqueue(): a heartbeat with no room, or after shutdown
    std::uint64_t acknowledged = 0;        // stored by the collector (it answered 2xx)
    std::uint64_t duplicates = 0;          // of those acknowledged, events the collector already had (stored once)
    std::uint64_t rejected = 0;            // refused by the collector (4xx): never retried
    std::uint64_t heartbeats_evicted = 0;  // waiting heartbeats removed to make room for newer events
    std::uint64_t heartbeats_refused = 0;  // heartbeats of requests not delivered (503, no answer): not retried
    std::uint64_t over_bound = 0;          // lifecycle events kept beyond the queue's bounds
    std::uint64_t abandoned = 0;           // still unsent when shutdown() ran out of time
    std::uint64_t requests = 0;            // HTTP requests that got an answer
    std::uint64_t failures = 0;            // requests that failed (network error, 5xx, 408, 429) and were retried
    std::size_t pending = 0;               // events queued or in flight now
    std::string last_error;                // the latest failure or refusal, for logs
};

class Reporter {
public:
    explicit Reporter(ReporterOptions options);
    ~Reporter();  // shutdown(options.shutdown_timeout)
    Reporter(const Reporter&) = delete;
    Reporter& operator=(const Reporter&) = delete;

    // Queues one event (a JSON object, serialized) of `rank`; its top-level "phase" says whether it is a
    // heartbeat. Returns false when it was dropped (a heartbeat with no room, or after shutdown). Never
    // blocks on I/O, never throws.
    bool enqueue(std::int64_t rank, std::string event_json) noexcept;
    // Waits until every queued event was acknowledged or rejected; false on timeout.
    bool flush(std::chrono::milliseconds timeout) noexcept;
    // Stops taking events, gives pending ones until `timeout` to be delivered, then aborts what is in
    // flight and joins the sender threads. Idempotent; bounded by timeout plus a few milliseconds.
    void shutdown(std::chrono::milliseconds timeout) noexcept;

    [[nodiscard]] ReporterStats stats() const noexcept;

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace meshscope::client
