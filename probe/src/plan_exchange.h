// Before any group is created the ranks exchange their plans: every rank publishes its own, rank 0 gathers
// them and publishes who holds which, and every rank stops with the same message naming the ranks whose plan
// differs (vLLM and SGLang users asked for exactly this instead of a 30-minute NCCL hang).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "communicator.h"
#include "key_value.h"
#include "meshscope/mesh/plan.h"

namespace meshscope::probe {

// What must be identical on every rank: the topology, the creation order and the world size.
struct PlanKey {
    std::int64_t dp = 1, cp = 1, ep = 1, world = 1;
    CreationOrder order = CreationOrder::torch29;
    [[nodiscard]] static PlanKey of(const Plan& plan);
    [[nodiscard]] std::string text() const;  // "(dp, cp, ep) = (4, 2, 2), torch29"
    [[nodiscard]] std::string json() const;
    [[nodiscard]] static std::optional<PlanKey> parse(const std::string& json);
    friend bool operator==(const PlanKey&, const PlanKey&) = default;
};

struct PlanVerdict {
    std::map<std::int64_t, PlanKey> plans;  // every rank that published, by rank
    std::vector<std::int64_t> never;        // ranks that did not publish within the timeout
    PlanKey reference;                      // the plan most ranks hold (a tie: the lowest rank's)
    std::vector<std::int64_t> differing;    // ranks whose plan is not the reference, sorted

    [[nodiscard]] bool agreed() const { return never.empty() && differing.empty(); }
    // One line, the same on every rank: "ranks' plans differ: rank 6 has (dp, cp, ep) = (4, 2, 4), torch29;
    // ranks 0-5, 7 have (dp, cp, ep) = (4, 2, 2), torch29" or "ranks 3, 5 never published a plan within 5.0 s".
    [[nodiscard]] std::string message(std::chrono::milliseconds timeout) const;
    [[nodiscard]] std::string json() const;
    [[nodiscard]] static std::optional<PlanVerdict> parse(const std::string& json);
};

// Rank 0 gathers (waiting up to `timeout` for every rank), the others wait for its verdict. Throws
// std::runtime_error when rank 0's verdict does not arrive in time.
[[nodiscard]] PlanVerdict exchange_plans(KeyValue& store, const Plan& plan, std::int64_t rank, std::int64_t world,
                                         std::chrono::milliseconds timeout);

// The verdict from every rank's plan (rank 0's job; a pure function for tests).
[[nodiscard]] PlanVerdict judge_plans(std::map<std::int64_t, PlanKey> plans, std::int64_t world);

// The first of this rank's groups (creation order) that cannot form because a member's own plan puts it in a
// different group at that creation index (or it never published one); `missing` of the result names them.
struct UnformableGroup {
    GroupSpec group;
    std::vector<std::int64_t> missing;
};
[[nodiscard]] std::optional<UnformableGroup> first_unformable_group(const PlanVerdict& verdict, std::int64_t rank);

// "rank 5", "ranks 0-3, 7" (the monitor's notation).
[[nodiscard]] std::string ranks_text(const std::vector<std::int64_t>& ranks);

}  // namespace meshscope::probe
