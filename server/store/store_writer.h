// StoreWriter: the one thread that writes the history. Requests arriving together are committed in one
// transaction (group commit), so a burst of small requests costs one fsync, not one each; each request's
// callback runs after its events are durable, which is when the collector may acknowledge them.
#pragma once

#include <array>
#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "event_store.h"
#include "worker_thread.h"

namespace meshscope::server {

// Commit latencies, for /metrics (a Prometheus histogram).
struct CommitStats {
    static constexpr std::array<double, 8> bounds = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 1.0};
    std::array<std::uint64_t, bounds.size()> buckets{};  // cumulative counts are computed when printed
    std::uint64_t commits = 0;
    std::uint64_t events = 0;      // stored (copies of stored events not counted)
    std::uint64_t duplicates = 0;  // not stored: already were (EventStore::append)
    std::uint64_t failures = 0;
    double seconds = 0;
    double max_seconds = 0;
};

class StoreWriter {
public:
    // Called on the writer thread; error is set when the transaction failed (nothing was stored).
    using Done = std::function<void(const std::optional<Error>& error)>;
    // The same for events, with the indices (in order) of those not stored because they were already
    // (EventStore::append): empty when the transaction failed.
    using EventsDone = std::function<void(const std::optional<Error>& error, std::vector<std::size_t> duplicates)>;

    explicit StoreWriter(std::unique_ptr<EventStore> store);
    ~StoreWriter() = default;  // commits what was submitted, then stops
    StoreWriter(const StoreWriter&) = delete;
    StoreWriter& operator=(const StoreWriter&) = delete;

    void submit(std::vector<StoredEvent> events, EventsDone done);
    // A job's imported records, committed in their own transaction after the group's events.
    void submit(StoredRecords records, Done done);
    [[nodiscard]] CommitStats stats() const;
    [[nodiscard]] const std::string& path() const noexcept { return path_; }

private:
    struct Request {
        std::vector<StoredEvent> events;
        EventsDone done;
        std::optional<StoredRecords> records;
        Done records_done;
    };
    void commit(std::deque<Request>& group);

    std::unique_ptr<EventStore> store_;
    std::string path_;
    mutable std::mutex stats_mutex_;
    CommitStats stats_;
    std::vector<StoredEvent> events_;      // the writer thread's: one group's events, its capacity kept
    std::vector<std::size_t> duplicates_;  // and the indices in events_ of those already stored
    net::WorkerThread<Request> worker_;    // ms-store: no bound, a gather window, drains at stop (last: uses the above)
};

}  // namespace meshscope::server
