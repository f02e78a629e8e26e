#include "meshscope/monitor/seen_ranks.h"

#include <algorithm>

namespace meshscope {

namespace {
void sort_unique(std::vector<std::int64_t>& ranks) {
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
}
}  // namespace

Expected<SeenRanks> seen_ranks_from_json(const nlohmann::json& value, std::string_view field) {
    const auto bad = [field] {
        std::string message = "\"";  // appended, not concatenated: GCC 12 -O3 warns (-Wrestrict) on the latter
        message.append(field).append(R"(" must be {"<job>": [<rank>, ...]})");
        return ValueError(message);
    };
    if (!value.is_object()) return bad();
    SeenRanks seen;
    for (const auto& [job, ranks] : value.items()) {
        if (job.empty() || !ranks.is_array()) return bad();
        std::vector<std::int64_t> list;
        list.reserve(ranks.size());
        for (const auto& rank : ranks) {
            if (!rank.is_number_integer() || rank.get<std::int64_t>() < 0) return bad();
            list.push_back(rank.get<std::int64_t>());
        }
        sort_unique(list);
        if (!list.empty()) seen.emplace(job, std::move(list));
    }
    return seen;
}

nlohmann::json to_json(const SeenRanks& seen) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [job, ranks] : seen) out[job] = ranks;
    return out;
}

void merge_seen(SeenRanks& into, const SeenRanks& more) {
    for (const auto& [job, ranks] : more) {
        auto& list = into[job];
        list.insert(list.end(), ranks.begin(), ranks.end());
        sort_unique(list);
    }
}

std::size_t seen_count(const SeenRanks& seen) noexcept {
    std::size_t n = 0;
    for (const auto& [job, ranks] : seen) n += ranks.size();
    return n;
}

}  // namespace meshscope
