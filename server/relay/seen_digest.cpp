#include "seen_digest.h"

#include <algorithm>
#include <iterator>

namespace meshscope::relay {

void SeenDigest::add(std::string_view job, std::int64_t rank) {
    if (size_ >= limit_ || rank < 0 || job.empty()) return;
    auto it = ranks_.find(std::string(job));
    if (it == ranks_.end()) it = ranks_.emplace(std::string(job), std::unordered_set<std::int64_t>{}).first;
    if (it->second.insert(rank).second) ++size_;
}

void SeenDigest::add(const SeenRanks& ranks) {
    for (const auto& [job, list] : ranks)
        for (const std::int64_t rank : list) add(job, rank);
}

SeenRanks SeenDigest::take(std::size_t most) {
    SeenRanks out;
    for (auto job = ranks_.begin(); job != ranks_.end() && most > 0;) {
        auto& set = job->second;
        std::vector<std::int64_t> list;
        list.reserve(std::min(most, set.size()));
        for (auto rank = set.begin(); rank != set.end() && most > 0; --most) {
            list.push_back(*rank);
            rank = set.erase(rank);
            --size_;
        }
        std::sort(list.begin(), list.end());
        out.emplace(job->first, std::move(list));
        job = set.empty() ? ranks_.erase(job) : std::next(job);
    }
    return out;
}

void SeenDigest::clear() {
    ranks_.clear();
    size_ = 0;
}

}  // namespace meshscope::relay
