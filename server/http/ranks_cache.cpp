#include "ranks_cache.h"

#include <algorithm>

namespace meshscope::server {

std::optional<std::string> RanksCache::page(const Monitor& monitor, const std::string& job, std::size_t offset,
                                            std::optional<std::size_t> limit) {
    if (!monitor.job(job)) {
        jobs_.erase(job);  // removed from the monitor: forget its rows
        return std::nullopt;
    }
    std::vector<RankState> ranks = monitor.ranks(job);
    Rows& cached = jobs_[job];
    cached.rows.resize(ranks.size());
    cached.states.resize(ranks.size());
    last_rebuilt_ = 0;
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        if (!cached.rows[i].empty() && cached.states[i] == ranks[i]) continue;
        cached.rows[i] = to_json(ranks[i]).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        cached.states[i] = std::move(ranks[i]);
        ++last_rebuilt_;
    }
    const std::size_t total = cached.rows.size();
    const std::size_t begin = std::min(offset, total);
    const std::size_t end = limit ? begin + std::min(*limit, total - begin) : total;
    std::size_t bytes = 32;
    for (std::size_t i = begin; i < end; ++i) bytes += cached.rows[i].size() + 1;
    std::string body;
    body.reserve(bytes);
    body += "{\"ranks\":[";
    for (std::size_t i = begin; i < end; ++i) {
        if (i > begin) body += ',';
        body += cached.rows[i];
    }
    body += "],\"total\":" + std::to_string(total) + "}";
    return body;
}

}  // namespace meshscope::server
