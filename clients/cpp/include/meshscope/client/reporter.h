// Reporter: sends meshscope.event/1 events from a C++ process (a training rank, the NCCL probe, the
// simulator) to a collector. It must never take the job down: enqueue() never blocks on the network and
// never throws; the queue is bounded (events beyond it are dropped and counted); a background thread
// batches each rank's pending events into one request, retries failures with backoff, and shutdown()
// returns within its time limit whatever the network does. Plain C++20 + libcurl: no Qt, no core.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace meshscope::client {

struct ReporterOptions {
    std::string url;                       // the collector, "http://127.0.0.1:7077" (events go to <url>/api/v1/events)
    std::string token;                     // sent as "Authorization: Bearer <token>" when not empty
    std::size_t max_queue_events = 65536;  // events held (queued + in flight); beyond: dropped
    std::size_t max_queue_bytes = 64u << 20;   // the same bound in bytes
    std::size_t max_batch_events = 256;        // events of one rank in one request
    std::size_t max_batch_bytes = 512u << 10;  // and their size (the collector refuses > 1 MiB)
    int connections = 1;                       // sender threads, each with one keep-alive connection
    std::chrono::milliseconds connect_timeout{2000};
    std::chrono::milliseconds request_timeout{10000};
    std::chrono::milliseconds initial_backoff{50};
    std::chrono::milliseconds max_backoff{2000};
    std::chrono::milliseconds shutdown_timeout{2000};  // what the destructor allows for delivery
};

struct ReporterStats {
    std::uint64_t enqueued = 0;      // accepted by enqueue()
    std::uint64_t dropped = 0;       // refused by enqueue() because the queue was full or closed
    std::uint64_t acknowledged = 0;  // stored by the collector (it answered 2xx)
    std::uint64_t rejected = 0;      // refused by the collector (4xx): never retried
    std::uint64_t abandoned = 0;     // still unsent when shutdown() ran out of time
    std::uint64_t requests = 0;      // HTTP requests that got an answer
    std::uint64_t failures = 0;      // requests that failed (network error, 5xx, 408, 429) and were retried
    std::size_t pending = 0;         // events queued or in flight now
    std::string last_error;          // the latest failure or refusal, for logs
};

class Reporter {
public:
    explicit Reporter(ReporterOptions options);
    ~Reporter();  // shutdown(options.shutdown_timeout)
    Reporter(const Reporter&) = delete;
    Reporter& operator=(const Reporter&) = delete;

    // Queues one event (a JSON object, serialized) of `rank`. Returns false when it was dropped
    // (queue full, or after shutdown). Never blocks on I/O, never throws.
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
