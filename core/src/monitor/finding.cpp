#include "meshscope/monitor/finding.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace meshscope {

namespace {
constexpr std::array<std::string_view, finding_kind_count> kind_names = {
    "verdict",
    "topology_mismatch",
    "group_disagreement",
    "missing_rank",
    "duplicate_rank",
    "straggler",
    "stale_rank",
    "rank_error",
    "reinit_mismatch",
    "slow_group",
    "communicator_not_formed",
    "creation_order_mismatch",
    "collective_mismatch",
    "collective_stuck",
    "peer_unreachable",
};
}  // namespace

std::string_view to_string(FindingKind kind) noexcept {
    return kind_names[static_cast<std::size_t>(kind)];
}

std::optional<FindingKind> parse_finding_kind(std::string_view text) noexcept {
    for (std::size_t i = 0; i < kind_names.size(); ++i)
        if (kind_names[i] == text) return static_cast<FindingKind>(i);
    return std::nullopt;
}

nlohmann::json to_json(const Finding& finding) {
    nlohmann::json j = {{"id", finding.id},
                        {"kind", to_string(finding.kind)},
                        {"ranks", finding.ranks},
                        {"message", finding.message},
                        {"fix", finding.fix}};
    if (!finding.sources.empty()) {
        j["sources"] = finding.sources;
        j["from"] = sources_line(finding.sources);
    }
    return j;
}

std::string sources_line(const std::vector<std::string>& sources) {
    if (sources.empty()) return {};
    std::string line = "From: ";
    const std::size_t shown = std::min(sources.size(), max_sources_shown);
    for (std::size_t i = 0; i < shown; ++i) line += (i ? ", " : "") + sources[i];
    if (sources.size() > shown) line += " and " + std::to_string(sources.size() - shown) + " more";
    return line;
}

}  // namespace meshscope
