// The relay's admission control (docs/live-at-scale.md, "Why the storm cannot collapse"): a rank's body is
// taken only when the relay expects to have the collector's answer for it before the rank stops waiting.
// The expected wait is the bodies ahead of it divided by the measured upstream drain rate (bodies answered
// per second of round trip, times the batches allowed in flight), and never less than the age of the
// oldest batch still out when every slot is taken (an upstream that has not answered for 3 s will not
// answer a new body in less). A body that would wait too long is answered 503 + Retry-After at once: the
// refused bodies are given return times one after another at the drain rate, behind the backlog, plus up
// to a second of jitter, so they come back no faster than the collector takes them. Heartbeats are shed
// at a fifth of the rank's timeout, lifecycle events at half: heartbeats go first.
// Plain C++ (no Beast): tested on its own with explicit clocks.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace meshscope::relay {

// How long the rank waits for its answer, from the MeshScope-Timeout request header (seconds, decimal:
// "5", "0.5"), clamped to [0.001, 600]; nullopt when absent or unreadable (the relay's --rank-timeout).
[[nodiscard]] std::optional<double> parse_rank_timeout(std::string_view value);

// The share of a rank's timeout a body may expect to wait and still be taken, and after which a queued body
// is answered 503 unsent (the rank still waits for that answer: it gets a Retry-After, not a timeout).
inline constexpr double heartbeat_wait_share = 0.2;
inline constexpr double lifecycle_wait_share = 0.5;
inline constexpr double queued_wait_share = 0.8;

class Admission {
public:
    explicit Admission(int max_in_flight, int max_retry_after_s = 60, std::uint64_t seed = 0x6d657368)
        : max_in_flight_(max_in_flight < 1 ? 1 : max_in_flight), max_retry_after_s_(max_retry_after_s), random_(seed) {}

    // A batch of `bodies` was answered `seconds` after it was sent. Older batches weigh less (x0.7 each),
    // so the rate follows a collector that slows down within a few batches; big batches weigh more.
    void answered(std::int64_t bodies, double seconds);
    // Bodies per second the upstream takes; 0 while no batch has been answered.
    [[nodiscard]] double drain_rate() const;

    // Seconds a body queued now waits for its answer: `ahead` bodies before it (queued and in flight),
    // `stalled_s` the age of the oldest batch out when every in-flight slot is taken (else 0).
    [[nodiscard]] double expected_wait(std::int64_t ahead, double stalled_s) const;

    // The Retry-After (whole seconds, 1 ..max_retry_after_s) for a body refused at `now_s` (any monotonic
    // seconds) when a body queued now would wait `wait_s`: the next free return time at the drain rate.
    [[nodiscard]] int retry_after(double wait_s, double now_s);

private:
    int max_in_flight_;
    int max_retry_after_s_;
    double bodies_ = 0;     // decayed sums over answered batches
    double seconds_ = 0;    //
    double horizon_s_ = 0;  // the return time given to the last refused body
    std::mt19937_64 random_;
};

// Who sent a body: the (job, rank) of each of its events (one event, an array or NDJSON, as the collector reads
// it), and whether they are all heartbeats. Nothing for a body the collector will refuse.
using Senders = std::vector<std::pair<std::string, std::int64_t>>;  // (job, rank)
struct BodySenders {
    Senders ranks;
    bool heartbeats_only = false;
};
[[nodiscard]] BodySenders body_senders(std::string_view body);
// Cheap first: a body without the word "heartbeat" is not made of heartbeats (most lifecycle bodies).
[[nodiscard]] inline bool may_be_heartbeats(std::string_view body) {
    return body.find("heartbeat") != std::string_view::npos;
}

}  // namespace meshscope::relay
