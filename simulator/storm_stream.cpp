#include "storm_stream.h"

#include <nlohmann/json.hpp>

namespace meshscope::sim::storm {

namespace {
void add_if_ready(const nlohmann::json& change, std::string_view job, std::vector<std::int64_t>& out) {
    if (!change.is_object() || change.value("type", "") != "rank_changed") return;
    if (change.value("job", "") != job || change.value("state", "") != "ready") return;
    const auto rank = change.find("rank");
    if (rank != change.end() && rank->is_number_integer()) out.push_back(rank->get<std::int64_t>());
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
