#include "store_writer.h"

#include <chrono>

namespace meshscope::server {

namespace {
// Gather what arrives in the next few milliseconds into the same commit: a commit's cost is mostly per commit
// (fsync, WAL pages of the rows it touches), not per event, so steady heartbeats of thousands of ranks cost far
// less in fewer, larger commits. (A relay waits for its batch's commit before it sends the next: a longer window
// for heartbeats alone was tried and slowed the relays' drain; docs/benchmarks.md.)
constexpr auto gather_window = std::chrono::milliseconds(20);
}  // namespace

StoreWriter::StoreWriter(std::unique_ptr<EventStore> store)
    : store_(std::move(store)),
      path_(store_->path()),
      worker_({.name = "ms-store", .gather = gather_window}, [this](std::deque<Request>& group) { commit(group); }) {}

void StoreWriter::submit(std::vector<StoredEvent> events, EventsDone done) {
    worker_.post({std::move(events), std::move(done), std::nullopt, {}});
}

void StoreWriter::submit(StoredRecords records, Done done) {
    worker_.post({{}, {}, std::move(records), std::move(done)});
}

CommitStats StoreWriter::stats() const {
    std::lock_guard lock(stats_mutex_);
    return stats_;
}

void StoreWriter::commit(std::deque<Request>& group) {
    events_.clear();
    for (Request& r : group)
        for (StoredEvent& e : r.events) events_.push_back(std::move(e));
    const auto start = std::chrono::steady_clock::now();
    duplicates_.clear();
    const std::optional<Error> error = store_->append(events_, &duplicates_);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    {
        std::lock_guard lock(stats_mutex_);
        if (error) {
            ++stats_.failures;
        } else {
            ++stats_.commits;
            stats_.events += events_.size() - duplicates_.size();
            stats_.duplicates += duplicates_.size();
            stats_.seconds += seconds;
            stats_.max_seconds = std::max(stats_.max_seconds, seconds);
            for (std::size_t i = 0; i < CommitStats::bounds.size(); ++i)
                if (seconds <= CommitStats::bounds[i]) {
                    ++stats_.buckets[i];
                    break;
                }
        }
    }
    // Each request gets the indices of its own copies, counted from its first event.
    std::size_t first = 0;
    auto copy = duplicates_.begin();
    for (Request& r : group) {
        if (r.records) {
            const std::optional<Error> own = store_->put_records(*r.records);
            if (r.records_done) r.records_done(own);
            continue;
        }
        const std::size_t end = first + r.events.size();
        std::vector<std::size_t> own;
        for (; !error && copy != duplicates_.end() && *copy < end; ++copy) own.push_back(*copy - first);
        first = end;
        if (r.done) r.done(error, std::move(own));
    }
    group.clear();
    // After the answers, so that no request waits for it. A failed fold keeps the log: the summaries
    // readers see are the same, and it is tried again after the next commit.
    if (store_->logged_heartbeats() >= heartbeat_fold_rows) (void)store_->fold_heartbeats();
}

}  // namespace meshscope::server
