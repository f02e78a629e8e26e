#include "plan_exchange.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "group_schedule.h"
#include "meshscope/mesh/json_limits.h"

namespace meshscope::probe {

namespace {
std::string seconds_text(std::chrono::milliseconds t) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f s", static_cast<double>(t.count()) / 1000.0);
    return buffer;
}

std::optional<Plan> plan_of(const PlanKey& key) {
    auto topology = Topology::make(key.dp, key.cp, key.ep);
    if (!topology) return std::nullopt;
    auto plan = Plan::make(*topology, std::max<std::int64_t>(key.world, 1), key.order);
    if (!plan) return std::nullopt;
    return std::move(*plan);
}
}  // namespace

std::string ranks_text(const std::vector<std::int64_t>& sorted_ranks) {
    std::string out = sorted_ranks.size() == 1 ? "rank " : "ranks ";
    for (std::size_t i = 0; i < sorted_ranks.size();) {
        std::size_t j = i;
        while (j + 1 < sorted_ranks.size() && sorted_ranks[j + 1] == sorted_ranks[j] + 1) ++j;
        if (i) out += ", ";
        out += std::to_string(sorted_ranks[i]);
        if (j > i) out += "-" + std::to_string(sorted_ranks[j]);
        i = j + 1;
    }
    return out;
}

PlanKey PlanKey::of(const Plan& plan) {
    PlanKey k;
    k.dp = plan.topology().dp;
    k.cp = plan.topology().cp;
    k.ep = plan.topology().ep;
    k.world = plan.topology().world();
    k.order = plan.order();
    return k;
}

std::string PlanKey::text() const {
    return "(dp, cp, ep) = (" + std::to_string(dp) + ", " + std::to_string(cp) + ", " + std::to_string(ep) + "), " +
           std::string(to_string(order));
}

std::string PlanKey::json() const {
    return nlohmann::json{{"dp", dp}, {"cp", cp}, {"ep", ep}, {"world", world}, {"order", to_string(order)}}.dump();
}

std::optional<PlanKey> PlanKey::parse(const std::string& text) {
    const auto j = parse_json_bounded(text);
    if (!j.is_object()) return std::nullopt;
    PlanKey k;
    for (auto [name, slot] :
         {std::pair{"dp", &k.dp}, std::pair{"cp", &k.cp}, std::pair{"ep", &k.ep}, std::pair{"world", &k.world}}) {
        if (!j.contains(name) || !j[name].is_number_integer()) return std::nullopt;
        *slot = j[name].get<std::int64_t>();
    }
    if (!j.contains("order") || !j["order"].is_string()) return std::nullopt;
    const auto order = parse_creation_order(j["order"].get<std::string>());
    if (!order) return std::nullopt;
    k.order = *order;
    return k;
}

PlanVerdict judge_plans(std::map<std::int64_t, PlanKey> plans, std::int64_t world) {
    PlanVerdict v;
    v.plans = std::move(plans);
    for (std::int64_t r = 0; r < world; ++r)
        if (!v.plans.count(r)) v.never.push_back(r);
    // The reference: the plan most ranks hold; a tie goes to the lowest rank's (map order visits it first).
    std::vector<std::pair<PlanKey, std::int64_t>> counts;
    for (const auto& [rank, key] : v.plans) {
        auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == key; });
        if (it == counts.end())
            counts.emplace_back(key, 1);
        else
            ++it->second;
    }
    std::int64_t best = 0;
    for (const auto& [key, n] : counts)
        if (n > best) {
            best = n;
            v.reference = key;
        }
    for (const auto& [rank, key] : v.plans)
        if (!(key == v.reference)) v.differing.push_back(rank);
    return v;
}

std::string PlanVerdict::message(std::chrono::milliseconds timeout) const {
    std::string out;
    if (!differing.empty()) {
        // Each distinct plan with its holders, the differing ones first.
        std::vector<std::pair<PlanKey, std::vector<std::int64_t>>> holders;
        for (const auto& [rank, key] : plans) {
            auto it = std::find_if(holders.begin(), holders.end(), [&](const auto& h) { return h.first == key; });
            if (it == holders.end())
                holders.push_back({key, {rank}});
            else
                it->second.push_back(rank);
        }
        std::stable_partition(holders.begin(), holders.end(), [&](const auto& h) { return !(h.first == reference); });
        out = "the ranks' plans differ: ";
        for (std::size_t i = 0; i < holders.size(); ++i) {
            const auto& [key, ranks] = holders[i];
            out += (i ? "; " : "") + ranks_text(ranks) + (ranks.size() == 1 ? " has " : " have ") + key.text();
        }
    }
    if (!never.empty()) {
        if (!out.empty()) out += "; ";
        out += ranks_text(never) + " never published a plan within " + seconds_text(timeout);
    }
    return out;
}

std::string PlanVerdict::json() const {
    nlohmann::json plans_json = nlohmann::json::object();
    for (const auto& [rank, key] : plans) plans_json[std::to_string(rank)] = nlohmann::json::parse(key.json());
    return nlohmann::json{{"plans", plans_json}, {"never", never}}.dump();
}

std::optional<PlanVerdict> PlanVerdict::parse(const std::string& text) {
    const auto j = parse_json_bounded(text);
    if (!j.is_object() || !j.contains("plans") || !j["plans"].is_object() || !j.contains("never")) return std::nullopt;
    std::map<std::int64_t, PlanKey> plans;
    for (const auto& [rank, key] : j["plans"].items()) {
        const auto k = PlanKey::parse(key.dump());
        if (!k) return std::nullopt;
        plans[std::stoll(rank)] = *k;
    }
    const auto never = j["never"].get<std::vector<std::int64_t>>();
    const std::int64_t world = static_cast<std::int64_t>(plans.size() + never.size());
    return judge_plans(std::move(plans), world);
}

PlanVerdict exchange_plans(KeyValue& store, const Plan& plan, std::int64_t rank, std::int64_t world,
                           std::chrono::milliseconds timeout) {
    store.set("plan." + std::to_string(rank), PlanKey::of(plan).json());
    if (rank == 0) {
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        std::map<std::int64_t, PlanKey> plans;
        for (std::int64_t r = 0; r < world; ++r) {
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            const auto text = store.wait_get("plan." + std::to_string(r), std::max(left, std::chrono::milliseconds{0}));
            if (!text) continue;
            if (const auto key = PlanKey::parse(*text)) plans[r] = *key;
        }
        PlanVerdict verdict = judge_plans(std::move(plans), world);
        store.set("plans", verdict.json());
        return verdict;
    }
    // Rank 0 may wait a whole timeout for a missing rank before it publishes.
    const auto text = store.wait_get("plans", timeout * 2);
    if (!text) throw std::runtime_error("rank 0 did not publish the ranks' plans within " + seconds_text(timeout * 2));
    auto verdict = PlanVerdict::parse(*text);
    if (!verdict) throw std::runtime_error("rank 0 published unreadable plans");
    return std::move(*verdict);
}

std::optional<UnformableGroup> first_unformable_group(const PlanVerdict& verdict, std::int64_t rank) {
    const auto mine = verdict.plans.find(rank);
    if (mine == verdict.plans.end()) return std::nullopt;
    const auto plan = plan_of(mine->second);
    if (!plan) return std::nullopt;
    std::map<std::int64_t, std::vector<GroupSpec>> schedules;  // members' schedules under their own plans
    for (const GroupSpec& g : rank_schedule(*plan, rank)) {
        UnformableGroup u{g, {}};
        for (const auto m : g.members) {
            if (m == rank) continue;
            const auto theirs = verdict.plans.find(m);
            bool joins = false;
            if (theirs != verdict.plans.end()) {
                if (!schedules.count(m)) {
                    const auto their_plan = plan_of(theirs->second);
                    schedules[m] = their_plan && m < their_plan->topology().world() ? rank_schedule(*their_plan, m)
                                                                                    : std::vector<GroupSpec>{};
                }
                for (const GroupSpec& t : schedules[m])
                    if (t.creation == g.creation && t.members == g.members) joins = true;
            }
            if (!joins) u.missing.push_back(m);
        }
        if (!u.missing.empty()) return u;
    }
    return std::nullopt;
}

}  // namespace meshscope::probe
