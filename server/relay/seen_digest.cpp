#include "seen_digest.h"

#include <algorithm>
#include <iterator>

namespace meshscope::relay {

void SeenDigest::add(std::string_view job, std::int64_t rank, Clock::time_point until, bool held) {
    if (rank < 0 || job.empty()) return;
    auto it = jobs_.find(std::string(job));
    if (it == jobs_.end()) {
        if (size_ >= limit_ || jobs_.size() >= job_limit_) return;
        it = jobs_.emplace(std::string(job), std::unordered_map<std::int64_t, Entry>{}).first;
    }
    auto& ranks = it->second;
    if (const auto at = ranks.find(rank); at != ranks.end()) {
        Entry& e = at->second;
        e.until = std::max(e.until, until);
        if (held && !e.held && e.round == round_) {  // newly held: name it again in this round
            e.round = 0;
            ++unnamed_;
        }
        e.held = e.held || held;
        return;
    }
    if (size_ >= limit_) return;
    ranks.emplace(rank, Entry{until, held, 0});
    ++size_;
    ++unnamed_;
}

void SeenDigest::add(const SeenRanks& seen, const SeenRanks& held, Clock::time_point until) {
    for (const auto& [job, list] : seen)
        for (const std::int64_t rank : list) add(job, rank, until, false);
    for (const auto& [job, list] : held)
        for (const std::int64_t rank : list) add(job, rank, until, true);
}

void SeenDigest::forget(std::string_view job, std::int64_t rank) {
    const auto it = jobs_.find(std::string(job));
    if (it == jobs_.end()) return;
    const auto at = it->second.find(rank);
    if (at == it->second.end()) return;
    if (at->second.round != round_) --unnamed_;
    it->second.erase(at);
    --size_;
    if (it->second.empty()) jobs_.erase(it);
}

void SeenDigest::start_round(Clock::time_point now) {
    ++round_;
    for (auto job = jobs_.begin(); job != jobs_.end();) {
        auto& ranks = job->second;
        for (auto at = ranks.begin(); at != ranks.end();) {
            if (at->second.round != 0 && at->second.until <= now) {
                at = ranks.erase(at);
                --size_;
            } else {
                ++at;
            }
        }
        job = ranks.empty() ? jobs_.erase(job) : std::next(job);
    }
    unnamed_ = size_;
}

SeenDigest::Named SeenDigest::take(std::size_t most) {
    Named out;
    for (auto& [job, ranks] : jobs_) {
        if (most == 0 || unnamed_ == 0) break;
        std::vector<std::int64_t> seen, held;
        for (auto& [rank, e] : ranks) {
            if (most == 0) break;
            if (e.round == round_) continue;
            e.round = round_;
            --unnamed_;
            --most;
            seen.push_back(rank);
            if (e.held) held.push_back(rank);
        }
        std::sort(seen.begin(), seen.end());
        std::sort(held.begin(), held.end());
        if (!seen.empty()) out.seen.emplace(job, std::move(seen));
        if (!held.empty()) out.held.emplace(job, std::move(held));
    }
    return out;
}

void SeenDigest::clear() {
    jobs_.clear();
    size_ = 0;
    unnamed_ = 0;
}

}  // namespace meshscope::relay
