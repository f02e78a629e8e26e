// Every valid (dp, cp, ep) of a world size, costed: those that fit ranked by communication time per step, the
// others with the reason they were left out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "meshscope/cost/layout_cost.h"

namespace meshscope::cost {

struct ExcludedLayout {
    Topology topology;
    std::string reason;  // an exact message: LlamaFactory's own where it has one
};

struct Advice {
    std::int64_t world = 0;
    std::vector<LayoutCost> ranked;  // fits; by seconds, then memory, then cp, then ep
    std::vector<ExcludedLayout> excluded;
    [[nodiscard]] std::size_t considered() const noexcept { return ranked.size() + excluded.size(); }
};

// Why a layout cannot run this model, before costing it: experts not divisible by ep, or attention heads not
// divisible by cp (Ulysses), with the texts of plan.h and LlamaFactory's sequence_parallel.py.
[[nodiscard]] std::optional<std::string> layout_problem(const ModelSpec& model, const Topology& topology);

// "needs 93.1 GiB per GPU; 72.0 GiB usable (80 GiB less the 10% reserve)"
[[nodiscard]] std::string does_not_fit(const MemoryBreakdown& memory, const ClusterSpec& cluster);

// ValueError for a world below 1 or above max_world_size, or a gpus_per_node below 1 (the texts of Placement).
[[nodiscard]] Expected<Advice> advise(const CostInputs& in, std::int64_t world);

}  // namespace meshscope::cost
