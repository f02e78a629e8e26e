#include "connect_retry.h"

#include <algorithm>
#include <cstdio>

#include "communicator.h"
#include "plan_exchange.h"

namespace meshscope::probe {

std::string seconds_text(std::chrono::milliseconds timeout) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f s", static_cast<double>(timeout.count()) / 1000.0);
    return text;
}

int connect_together(KeyValue& kv, const std::string& prefix, std::size_t position,
                     const std::vector<std::int64_t>& members, std::chrono::milliseconds timeout, RetryPolicy policy,
                     const ConnectAttempt& attempt, const Sleep& sleep) {
    using std::chrono::milliseconds;
    using clock = std::chrono::steady_clock;
    const auto deadline = clock::now() + timeout;
    const auto left = [&] {
        return std::max(milliseconds{0}, std::chrono::duration_cast<milliseconds>(deadline - clock::now()));
    };
    const int attempts = std::max(policy.attempts, 1);
    std::string last_failure = "another member's connect failed";
    auto backoff = policy.backoff;
    for (int n = 1;; ++n) {
        const std::string attempt_prefix = prefix + ".t" + std::to_string(n);
        bool connected = true;
        try {
            attempt(attempt_prefix, left() / (attempts - n + 1));
        } catch (const ConnectFailed& e) {
            connected = false;
            last_failure = e.what();
        }
        // Every member's record of this attempt: all see the same records, so all make the same choice.
        kv.set(attempt_prefix + ".state." + std::to_string(position), connected ? "ok" : "failed");
        bool all_connected = connected;
        std::vector<std::int64_t> missing;
        for (std::size_t p = 0; p < members.size(); ++p) {
            if (p == position) continue;
            const auto state = kv.wait_get(attempt_prefix + ".state." + std::to_string(p), left());
            if (!state)
                missing.push_back(members[p]);
            else if (*state != "ok")
                all_connected = false;
        }
        if (!missing.empty()) {
            std::sort(missing.begin(), missing.end());
            throw NotFormed(ranks_text(missing) + " did not finish connecting within " + seconds_text(timeout),
                            missing);
        }
        if (all_connected) return n;
        if (n == attempts) throw ConnectFailed("after " + std::to_string(attempts) + " attempts: " + last_failure);
        sleep(std::min(backoff, left()));
        backoff *= 2;
    }
}

}  // namespace meshscope::probe
