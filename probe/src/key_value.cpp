#include "key_value.h"

#include <algorithm>
#include <thread>

namespace meshscope::probe {

std::optional<std::string> KeyValue::wait_get(const std::string& key, std::chrono::milliseconds timeout) {
    using clock = std::chrono::steady_clock;
    const auto deadline = clock::now() + timeout;
    // Short polls first (a group forms in milliseconds on one host), then at most 5 a second per rank.
    std::chrono::milliseconds pause{5};
    for (;;) {
        if (auto value = try_get(key)) return value;
        const auto now = clock::now();
        if (now >= deadline) return std::nullopt;
        std::this_thread::sleep_for(
            std::min<clock::duration>(pause, std::chrono::duration_cast<clock::duration>(deadline - now)));
        pause = std::min(pause * 2, std::chrono::milliseconds{200});
    }
}

}  // namespace meshscope::probe
