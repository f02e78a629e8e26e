// The ranks a relay vouches for: heard from, alive, and with events that went no further (a heartbeat shed, a
// lifecycle body refused 503 + Retry-After by expected wait, over the bounds, or unsent at 0.8 of its timeout),
// plus whatever a relay below named in its own digest. Each is vouched for until it is due back (its
// Retry-After, jittered as the reporters do, plus its timeout): a rank told to come back in 60 s is silent for
// up to 90 s, longer than the collector's --stale-after, and still healthy. Every `--seen-every-ms` a digest
// round names them all upstream with the relay's next batches as "seen", and those whose lifecycle events wait
// in their reporters also as "held" (meshscope/seen_ranks.h): proof of life sized to the ranks, not to a share
// of each batch. A rank whose body is taken for the collector again is forgotten (its events are on their way).
// Network thread only; plain C++ (no Beast).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "meshscope/monitor/seen_ranks.h"

namespace meshscope::relay {

class SeenDigest {
public:
    using Clock = std::chrono::steady_clock;

    // At most `limit` ranks in at most `job_limit` jobs are vouched for; more are dropped (the bounds keep the
    // relay's memory fixed whatever a batch from below names: docs/collector.md, "Limits and security"). 1,024
    // jobs: the collector's --max-jobs.
    explicit SeenDigest(std::size_t limit = std::size_t{1} << 20, std::size_t job_limit = 1024)
        : limit_(limit), job_limit_(job_limit) {}

    // `rank` of `job` is alive at least until `until`; `held`: lifecycle events of it wait in its reporter.
    void add(std::string_view job, std::int64_t rank, Clock::time_point until, bool held);
    // What a relay below named, vouched for until `until`.
    void add(const SeenRanks& seen, const SeenRanks& held, Clock::time_point until);
    // The rank is back (a body of it was taken for the collector): no longer vouched for.
    void forget(std::string_view job, std::int64_t rank);
    // A new digest round at `now`: ranks past their `until` (named at least once) go, the others are due again.
    void start_round(Clock::time_point now);
    // A rank not yet named in this round.
    [[nodiscard]] bool due() const noexcept { return unnamed_ > 0; }
    struct Named {
        SeenRanks seen;  // every rank named (the held ones too)
        SeenRanks held;  // of those, the ones whose lifecycle events wait
    };
    // Up to `most` ranks not yet named in this round, sorted; they are named.
    [[nodiscard]] Named take(std::size_t most = static_cast<std::size_t>(-1));
    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
    void clear();

private:
    struct Entry {
        Clock::time_point until;
        bool held = false;
        std::uint64_t round = 0;  // the round it was last named in (0: never)
    };
    std::size_t limit_;
    std::size_t job_limit_;
    std::size_t size_ = 0;
    std::size_t unnamed_ = 0;  // entries whose round is not round_
    std::uint64_t round_ = 1;
    std::unordered_map<std::string, std::unordered_map<std::int64_t, Entry>> jobs_;
};

}  // namespace meshscope::relay
