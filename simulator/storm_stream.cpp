#include "storm_stream.h"

#include <nlohmann/json.hpp>

#include "meshscope/monitor/monitor.h"

namespace meshscope::sim::storm {

namespace {
// Core's reader: a change it refuses, or one of a newer collector's names (which reads as not ready), is no ready rank.
void add_if_ready(const nlohmann::json& value, std::string_view job, std::vector<std::int64_t>& out) {
    UnknownNames unknown;
    const auto change = change_from_json(value, &unknown);
    if (change && change->kind == ChangeKind::rank_changed && unknown.type.empty() && change->job == job &&
        change->state == RankStateKind::ready)
        out.push_back(change->rank);
}
}  // namespace

std::vector<std::int64_t> ready_ranks_in_message(std::string_view message, std::string_view job) {
    std::vector<std::int64_t> out;
    // Most messages are other phases: skip them without parsing.
    if (message.find("\"ready\"") == std::string_view::npos) return out;
    const auto doc = nlohmann::json::parse(message, nullptr, false);
    if (!doc.is_object()) return out;
    if (doc.value("type", "") == "changes") {
        const auto changes = doc.find("changes");
        if (changes != doc.end() && changes->is_array())
            for (const auto& change : *changes) add_if_ready(change, job, out);
    } else {
        add_if_ready(doc, job, out);
    }
    return out;
}

}  // namespace meshscope::sim::storm
