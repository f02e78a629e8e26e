// RankQueue: the reporter's bounded queue. Events wait per rank; a sender takes all pending events of one
// rank at a time (a request carries one rank's events, in order), and no two senders hold the same rank,
// so each rank's events reach the collector in the order they were enqueued. Not thread-safe: the
// Reporter guards it with its mutex.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace meshscope::client {

class RankQueue {
public:
    struct Batch {
        std::int64_t rank = 0;
        std::vector<std::string> events;
        std::size_t bytes = 0;
    };

    RankQueue(std::size_t max_events, std::size_t max_bytes) : max_events_(max_events), max_bytes_(max_bytes) {}

    // False (and nothing stored) when the event would exceed the bounds; events in flight count too.
    bool push(std::int64_t rank, std::string event);
    // The oldest waiting rank's pending events, at most max_events / max_bytes of them (always at least
    // one). The rank is in flight until complete().
    std::optional<Batch> take(std::size_t max_events, std::size_t max_bytes);
    // delivered: the batch left the queue (acknowledged or refused for good); else its events go back in
    // front of the rank's newer ones, for a retry.
    void complete(Batch batch, bool delivered);
    // Removes everything not in flight; returns how many events that was.
    std::size_t clear_waiting();

    [[nodiscard]] std::size_t events() const noexcept { return events_; }  // waiting + in flight
    [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }
    [[nodiscard]] bool has_waiting() const noexcept { return !ready_.empty(); }

private:
    struct Entry {
        std::deque<std::string> events;
        bool in_flight = false;
        bool listed = false;  // in ready_
    };
    void list(std::int64_t rank, Entry& entry);

    std::size_t max_events_;
    std::size_t max_bytes_;
    std::size_t events_ = 0;
    std::size_t bytes_ = 0;
    std::unordered_map<std::int64_t, Entry> ranks_;
    std::deque<std::int64_t> ready_;  // ranks with waiting events and none in flight, oldest first
};

}  // namespace meshscope::client
