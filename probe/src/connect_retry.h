// A group's members connect together, and retry together: a gloo TCP pair refused, reset or closed under load
// (a crowded loopback, an ASan build) fails one attempt, and every member then tries again under a fresh store
// prefix after a backoff, so no member meets another's stale address. The members agree through the job's
// key-value store: after each attempt a member records whether it connected and waits for every member's record;
// all connected ends it, any failure sends all to the next attempt. Bounded in attempts and by the deadline.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "key_value.h"

namespace meshscope::probe {

struct RetryPolicy {
    int attempts = 3;                        // attempts in all (1: no retry)
    std::chrono::milliseconds backoff{100};  // before the second attempt; doubled before each later one
};

// What an attempt throws for a failure a fresh attempt can cure (the transport's I/O errors).
class ConnectFailed : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// One attempt: connects the group under `prefix` (every member's addresses go there), giving the transport's
// connects `budget` at most. Throws ConnectFailed to be retried; anything else ends the retries at once.
using ConnectAttempt = std::function<void(const std::string& prefix, std::chrono::milliseconds budget)>;
using Sleep = std::function<void(std::chrono::milliseconds)>;

// "60.0 s": a timeout as the probe's messages give it.
[[nodiscard]] std::string seconds_text(std::chrono::milliseconds timeout);

// The member at `position` of `members` (ranks, for the names of the missing) connects its group under
// `prefix`: attempt n uses prefix + ".tN" and gets an equal share of the time left to `timeout` over the
// attempts left. Returns the attempts it took. Throws ConnectFailed (its text names the attempts and the last
// failure) when the last attempt fails, NotFormed naming the members whose record of an attempt never came
// within `timeout`, and whatever `attempt` throws other than ConnectFailed.
int connect_together(KeyValue& kv, const std::string& prefix, std::size_t position,
                     const std::vector<std::int64_t>& members, std::chrono::milliseconds timeout, RetryPolicy policy,
                     const ConnectAttempt& attempt, const Sleep& sleep);

}  // namespace meshscope::probe
