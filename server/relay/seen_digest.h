// The ranks a relay heard from since its last digest whose events went no further: a heartbeat shed, a
// lifecycle body refused 503 + Retry-After (by expected wait, over the bounds, or unsent at 0.8 of its
// timeout), and whatever a relay below named in its own digest. Every `--seen-every-ms` the relay sends them
// upstream with its next batch as "seen" (meshscope/seen_ranks.h), so the collector knows them alive however
// many the relay holds back: proof of life sized to the ranks, not to a share of each batch.
// Network thread only; plain C++ (no Beast).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "meshscope/seen_ranks.h"

namespace meshscope::relay {

class SeenDigest {
public:
    // At most `limit` (job, rank) pairs wait; more are dropped until the next take() (a relay holding back
    // more ranks than that has bigger problems; the bound keeps its memory fixed).
    explicit SeenDigest(std::size_t limit = std::size_t{1} << 20) : limit_(limit) {}

    void add(std::string_view job, std::int64_t rank);
    void add(const SeenRanks& ranks);
    [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    // Up to `most` of the waiting pairs, sorted, taken out of the digest.
    [[nodiscard]] SeenRanks take(std::size_t most = static_cast<std::size_t>(-1));
    void clear();

private:
    std::size_t limit_;
    std::size_t size_ = 0;
    std::unordered_map<std::string, std::unordered_set<std::int64_t>> ranks_;
};

}  // namespace meshscope::relay
