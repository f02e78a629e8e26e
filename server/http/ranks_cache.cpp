#include "ranks_cache.h"

#include <algorithm>
#include <map>
#include <utility>

namespace meshscope::server {

namespace {
std::string dump(const RankState& state) {
    return to_json(state).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The row of a rank that never reported and has no hang position, as dump() writes it, split around its rank
// number: such rows differ only in the rank and the findings that name it. Keys are sorted ("findings", "rank",
// "state", "timings"), so "rank":0 appears once, after '{' or ','.
std::pair<std::string, std::string> pending_template(const RankState& pending) {
    RankState zero = pending;
    zero.rank = 0;
    const std::string row = dump(zero);
    static constexpr std::string_view key = "\"rank\":0";
    std::size_t at = row.find(key);
    while (at != std::string::npos && at > 0 && row[at - 1] != '{' && row[at - 1] != ',') at = row.find(key, at + 1);
    const std::size_t split = at + key.size() - 1;
    return {row.substr(0, split), row.substr(split + 1)};
}
}  // namespace

std::size_t RanksCache::kept(const std::string& job) const {
    const auto it = jobs_.find(job);
    return it == jobs_.end() ? 0 : it->second.size();
}

std::optional<std::string> RanksCache::page(const Monitor& monitor, const std::string& job, std::size_t offset,
                                            std::optional<std::size_t> limit) {
    const auto total = monitor.rank_count(job);
    if (!total) {
        jobs_.erase(job);  // removed from the monitor: forget its rows
        return std::nullopt;
    }
    // Rows of jobs the monitor forgot (finished jobs make room for new ones) go as well, so the cache holds the
    // live jobs' reporting ranks at most.
    if (jobs_.size() > 16)
        std::erase_if(jobs_, [&](const auto& entry) { return entry.first != job && !monitor.rank_count(entry.first); });
    std::vector<RankState> ranks = monitor.ranks(job, offset, std::min(limit.value_or(max_page), max_page));
    auto& cached = jobs_[job];
    last_rebuilt_ = 0;
    std::map<std::vector<FindingKind>, std::pair<std::string, std::string>> pending;  // by the findings naming it
    std::string body = "{\"ranks\":[";
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        RankState& state = ranks[i];
        if (i > 0) body += ',';
        // A rank the records place (a hang position) has its own row, however it was seen.
        if (!state.first_seen && !state.position) {
            auto it = pending.find(state.findings);
            if (it == pending.end()) it = pending.emplace(state.findings, pending_template(state)).first;
            body.append(it->second.first).append(std::to_string(state.rank)).append(it->second.second);
            continue;
        }
        Row& row = cached[state.rank];
        if (row.row.empty() || !(row.state == state)) {
            row.row = dump(state);
            row.state = std::move(state);
            ++last_rebuilt_;
        }
        body += row.row;
    }
    body += "],\"total\":" + std::to_string(*total) + "}";
    return body;
}

}  // namespace meshscope::server
