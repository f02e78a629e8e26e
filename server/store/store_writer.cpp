#include "store_writer.h"

#include <algorithm>
#include <chrono>

namespace meshscope::server {

namespace {
constexpr auto gather_window = std::chrono::milliseconds(20);
// A commit of heartbeats alone gathers this long (a lifecycle event arriving ends the wait): nobody waits on a
// heartbeat's answer (the reporters send them from a background thread and never retry one), and a commit
// costs mostly per commit, so 16,384 ranks heartbeating every 5 s make 10 commits a second instead of 50.
constexpr auto heartbeat_gather_window = std::chrono::milliseconds(100);
}  // namespace

StoreWriter::StoreWriter(std::unique_ptr<EventStore> store) : store_(std::move(store)), path_(store_->path()) {
    thread_ = std::thread([this] { run(); });
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
    const bool lifecycle = std::any_of(events.begin(), events.end(), [](const StoredEvent& e) { return !e.heartbeat; });
    bool wake = false;
    {
        std::lock_guard lock(mutex_);
        pending_.push_back({std::move(events), std::move(done)});
        lifecycle_pending_ = lifecycle_pending_ || lifecycle;
        // Only when the writer waits for this: a wake-up for every request of a gather window (a futex call and
        // two context switches each, to find the window still open) was most of the writer's steady cost.
        wake = idle_ || (lifecycle && heartbeats_waiting_);
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
            const auto first = std::chrono::steady_clock::now();
            wake_.wait_for(lock, gather_window, [&] { return stopping_; });
            if (!lifecycle_pending_ && !stopping_) {
                heartbeats_waiting_ = true;
                wake_.wait_until(lock, first + heartbeat_gather_window,
                                 [&] { return stopping_ || lifecycle_pending_; });
                heartbeats_waiting_ = false;
            }
            group.assign(std::make_move_iterator(pending_.begin()), std::make_move_iterator(pending_.end()));
            pending_.clear();
            lifecycle_pending_ = false;
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
    }
}

}  // namespace meshscope::server
