#include "meshscope/monitor/rank_state.h"

#include <nlohmann/json.hpp>

namespace meshscope {

namespace {
constexpr std::array<std::string_view, rank_state_kind_count> state_names = {
    "pending", "initializing", "ready", "failed", "stale", "exited",
};
}  // namespace

std::string_view to_string(RankStateKind state) noexcept {
    return state_names[static_cast<std::size_t>(state)];
}

std::optional<RankStateKind> parse_rank_state_kind(std::string_view text) noexcept {
    for (std::size_t i = 0; i < state_names.size(); ++i)
        if (state_names[i] == text) return static_cast<RankStateKind>(i);
    return std::nullopt;
}

nlohmann::json to_json(const RankState& s) {
    nlohmann::json j = {{"rank", s.rank}, {"state", to_string(s.state)}};
    if (s.host) j["host"] = *s.host;
    if (s.pid) j["pid"] = *s.pid;
    if (s.local_rank) j["local_rank"] = *s.local_rank;
    if (s.device) j["device"] = *s.device;
    if (s.device_uuid) j["device_uuid"] = *s.device_uuid;
    if (s.phase) j["phase"] = to_string(*s.phase);
    if (s.status) j["status"] = to_string(*s.status);
    if (s.world_size) j["world_size"] = *s.world_size;
    if (s.topology) j["topology"] = to_json(*s.topology);
    if (!s.meshes.empty()) {
        auto meshes = nlohmann::json::array();
        for (const auto& [name, mesh] : s.meshes)
            meshes.push_back({{"name", name}, {"dim_names", mesh.dim_names}, {"shape", mesh.shape}});
        j["meshes"] = std::move(meshes);
    }
    if (!s.groups.empty()) j["groups"] = s.groups;
    if (s.error) j["error"] = {{"type", s.error->type}, {"message", s.error->message}};
    auto timings = nlohmann::json::object();
    for (std::size_t p = 0; p < phase_count; ++p) {
        const PhaseTiming& t = s.timings[p];
        if (!t.seen()) continue;
        auto& entry = timings[std::string(to_string(static_cast<Phase>(p)))] = nlohmann::json::object();
        if (t.started) entry["started"] = *t.started;
        if (t.done) entry["done"] = *t.done;
        if (t.failed) entry["failed"] = *t.failed;
        if (const auto d = t.duration()) entry["duration"] = *d;
    }
    j["timings"] = std::move(timings);
    if (s.first_seen) j["first_seen"] = *s.first_seen;
    if (s.last_seen) j["last_seen"] = *s.last_seen;
    if (s.last_ts) j["last_ts"] = *s.last_ts;
    j["events"] = s.events;
    auto kinds = nlohmann::json::array();
    for (const FindingKind k : s.findings) kinds.push_back(to_string(k));
    j["findings"] = std::move(kinds);
    if (s.position) j["position"] = to_json(*s.position);
    return j;
}

}  // namespace meshscope
