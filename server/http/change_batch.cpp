#include "change_batch.h"

#include <algorithm>
#include <set>
#include <utility>

namespace meshscope::server {

std::vector<const Change*> collapse_changes(const std::vector<Change>& changes) {
    std::vector<const Change*> kept;
    kept.reserve(changes.size());
    std::set<std::pair<std::string_view, std::int64_t>> ranks_seen;  // walking backwards: the last one wins
    for (auto it = changes.rbegin(); it != changes.rend(); ++it) {
        if (it->kind == ChangeKind::rank_changed && !ranks_seen.emplace(it->job, it->rank).second) continue;
        kept.push_back(&*it);
    }
    std::reverse(kept.begin(), kept.end());
    return kept;
}

std::shared_ptr<const std::string> changes_message(const std::vector<Change>& changes, std::uint64_t seq) {
    const auto kept = collapse_changes(changes);
    if (kept.empty()) return nullptr;
    std::string text = R"({"type":"changes","seq":)" + std::to_string(seq) + R"(,"changes":[)";
    for (std::size_t i = 0; i < kept.size(); ++i) {
        if (i) text += ',';
        text += to_json(*kept[i]).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    text += "]}";
    return std::make_shared<const std::string>(std::move(text));
}

}  // namespace meshscope::server
