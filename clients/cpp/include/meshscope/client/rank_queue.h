// RankQueue: the reporter's bounded queue. Events wait per rank; a sender takes all pending events of one
// rank at a time (a request carries one rank's events, in order), and no two senders hold the same rank,
// so each rank's events reach the collector in the order they were enqueued. Not thread-safe: the
// Reporter guards it with its mutex.
//
// The bounds exist for heartbeats, which come forever; lifecycle events (`launch` .. `ready`, `error`,
// `exit`, anything that is not a heartbeat) are what the collector needs to name a rank, and are never
// dropped to make room: an event that would pass a bound first evicts the oldest waiting heartbeats (of
// any rank); a heartbeat that still does not fit is refused; a lifecycle event that still does not fit
// is kept beyond the bound and counted (over_bound). A batch that was not delivered comes back without
// its heartbeats: a heartbeat that did not get through is not retried, the next one follows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace meshscope::client {

enum class EventKind : std::uint8_t { lifecycle, heartbeat };

class RankQueue {
public:
    struct Batch {
        std::int64_t rank = 0;
        std::vector<std::string> events;
        std::vector<EventKind> kinds;     // of each event
        std::vector<std::uint64_t> seqs;  // push order of each event
        std::size_t bytes = 0;
    };

    RankQueue(std::size_t max_events, std::size_t max_bytes) : max_events_(max_events), max_bytes_(max_bytes) {}

    // False (and nothing stored) only for a heartbeat that does not fit even after evicting older ones;
    // events in flight count towards the bounds too.
    bool push(std::int64_t rank, std::string event, EventKind kind = EventKind::lifecycle);
    // The oldest waiting rank's pending events, at most max_events / max_bytes of them (always at least
    // one). The rank is in flight until complete().
    std::optional<Batch> take(std::size_t max_events, std::size_t max_bytes);
    // delivered: the batch left the queue (acknowledged or refused for good); else its lifecycle events go
    // back in front of the rank's newer ones, for a retry, and its heartbeats are dropped. Returns how
    // many heartbeats were dropped.
    std::size_t complete(Batch batch, bool delivered);
    // Removes everything not in flight; returns how many events that was.
    std::size_t clear_waiting();

    [[nodiscard]] std::size_t events() const noexcept { return events_; }  // waiting + in flight
    [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }
    [[nodiscard]] bool has_waiting() const noexcept { return !ready_.empty(); }
    [[nodiscard]] std::uint64_t heartbeats_evicted() const noexcept { return heartbeats_evicted_; }
    [[nodiscard]] std::uint64_t over_bound() const noexcept { return over_bound_; }

private:
    struct Item {
        std::string json;
        EventKind kind = EventKind::lifecycle;
        std::uint64_t seq = 0;
    };
    struct Entry {
        std::deque<Item> events;  // waiting, by seq
        bool in_flight = false;
        bool listed = false;  // in ready_
    };
    void list(std::int64_t rank, Entry& entry);
    bool evict_oldest_heartbeat();

    std::size_t max_events_;
    std::size_t max_bytes_;
    std::size_t events_ = 0;
    std::size_t bytes_ = 0;
    std::uint64_t next_seq_ = 0;
    std::uint64_t heartbeats_evicted_ = 0;
    std::uint64_t over_bound_ = 0;
    std::unordered_map<std::int64_t, Entry> ranks_;
    std::deque<std::int64_t> ready_;                               // ranks with waiting events, none in flight
    std::set<std::pair<std::uint64_t, std::int64_t>> heartbeats_;  // waiting heartbeats (seq, rank), oldest first
};

}  // namespace meshscope::client
