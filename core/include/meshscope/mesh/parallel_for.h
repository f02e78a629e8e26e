// The one parallel loop of MeshScope's programs: the records a job leaves read file by file, a Flight Recorder
// job's groups judged group by group, a collector's history parsed window by window.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <type_traits>
#include <vector>

namespace meshscope {

// The threads a loop of `count` items runs on: the machine's cores, at most `most`, never more than the items,
// at least 1 (the calling thread).
[[nodiscard]] inline std::size_t parallel_threads(std::size_t count, std::size_t most) noexcept {
    const std::size_t cores = std::max<std::size_t>(1, std::thread::hardware_concurrency());
    return std::max<std::size_t>(1, std::min({cores, most, count}));
}

// Calls body(i) once for every i in [0, count) on `threads` threads, the calling thread among them, each taking
// the next index as it finishes one (items of unequal cost balance themselves); returns when every call has
// returned. body may take the worker too, body(i, worker): 0 on the calling thread, 1 and up on the helpers, always
// below `threads`, so that a loop keeps one buffer per worker. body must not throw (an exception on a helper thread
// would end the process): catch inside it.
template <class Body>
void parallel_for(std::size_t count, std::size_t threads, Body&& body) {
    std::atomic<std::size_t> next{0};
    const auto work = [&](std::size_t worker) {
        for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < count;) {
            if constexpr (std::is_invocable_v<Body&, std::size_t, std::size_t>)
                body(i, worker);
            else
                body(i);
        }
    };
    std::vector<std::jthread> helpers;
    const std::size_t helper_count = std::min(threads, count) > 1 ? std::min(threads, count) - 1 : 0;
    helpers.reserve(helper_count);
    for (std::size_t t = 0; t < helper_count; ++t) helpers.emplace_back(work, t + 1);
    work(0);
}  // the jthreads join here

}  // namespace meshscope
