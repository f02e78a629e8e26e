#include "store_writer.h"

#include "thread_name.h"

#include <chrono>

namespace meshscope::server {

namespace {
constexpr auto gather_window = std::chrono::milliseconds(20);
}  // namespace

StoreWriter::StoreWriter(std::unique_ptr<EventStore> store) : store_(std::move(store)), path_(store_->path()) {
    thread_ = std::thread([this] {
        net::name_this_thread("ms-store");
        run();
    });
}

StoreWriter::~StoreWriter() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void StoreWriter::submit(std::vector<StoredEvent> events, Done done) {
    bool wake = false;
    {
        std::lock_guard lock(mutex_);
        pending_.push_back({std::move(events), std::move(done)});
        // Only when the writer waits for work: a wake-up for every request of a gather window (a futex call and
        // two context switches each, to find the window still open) cost more than the commit.
        wake = idle_;
    }
    if (wake) wake_.notify_one();
}

CommitStats StoreWriter::stats() const {
    std::lock_guard lock(mutex_);
    return stats_;
}

void StoreWriter::run() {
    std::vector<Request> group;
    std::vector<StoredEvent> events;
    for (;;) {
        {
            std::unique_lock lock(mutex_);
            idle_ = true;
            wake_.wait(lock, [&] { return stopping_ || !pending_.empty(); });
            idle_ = false;
            if (pending_.empty()) return;  // stopping, and everything submitted was committed
            // Gather what arrives in the next few milliseconds into the same commit: a commit's cost is
            // mostly per commit (fsync, WAL pages of the rows it touches), not per event, so steady
            // heartbeats of thousands of ranks cost far less in fewer, larger commits.
            // (A relay waits for its batch's commit before it sends the next: a longer window for heartbeats
            // alone was tried and slowed the relays' drain; docs/benchmarks.md.)
            wake_.wait_for(lock, gather_window, [&] { return stopping_; });
            group.assign(std::make_move_iterator(pending_.begin()), std::make_move_iterator(pending_.end()));
            pending_.clear();
        }
        events.clear();
        for (Request& r : group)
            for (StoredEvent& e : r.events) events.push_back(std::move(e));
        const auto start = std::chrono::steady_clock::now();
        const std::optional<Error> error = store_->append(events);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        {
            std::lock_guard lock(mutex_);
            if (error) {
                ++stats_.failures;
            } else {
                ++stats_.commits;
                stats_.events += events.size();
                stats_.seconds += seconds;
                stats_.max_seconds = std::max(stats_.max_seconds, seconds);
                for (std::size_t i = 0; i < CommitStats::bounds.size(); ++i)
                    if (seconds <= CommitStats::bounds[i]) {
                        ++stats_.buckets[i];
                        break;
                    }
            }
        }
        for (Request& r : group)
            if (r.done) r.done(error);
        group.clear();
        // After the answers, so that no request waits for it. A failed fold keeps the log: the summaries
        // readers see are the same, and it is tried again after the next commit.
        if (store_->logged_heartbeats() >= heartbeat_fold_rows) (void)store_->fold_heartbeats();
    }
}

}  // namespace meshscope::server
