// Every valid (dp, cp, ep) of a world size, costed at one global batch: those that fit ranked by step time
// (compute plus exposed communication), the others with the reason they were left out.
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
    std::int64_t global_batch = 0;   // sequences per step every ranked layout runs
    std::vector<LayoutCost> ranked;  // fits; by step seconds, then memory, then cp, then ep
    std::vector<ExcludedLayout> excluded;
    std::string why;  // why the first beats the second (empty with fewer than two), and whether the margin is
                      // one the model can vouch for
    [[nodiscard]] std::size_t considered() const noexcept { return ranked.size() + excluded.size(); }
};

// The training knobs the advisor chooses per layout where the user left them free: the micro-batch (among
// micro_batches, each one whose micro-batches divide the layout's share of the global batch) and the
// recomputation (none, selective, full). Per layout the fastest that fits wins (ties: less memory); the knobs given
// in the training spec are what its sentence compares against (LayoutCost::knobs).
struct KnobSearch {
    bool micro_batch = false;
    bool recompute = false;
    std::vector<std::int64_t> micro_batches{1, 2, 4, 8, 16};
    [[nodiscard]] bool any() const noexcept { return micro_batch || recompute; }
};

// "micro-batch 4, full recompute": the knobs of a costed layout in words.
[[nodiscard]] std::string knobs_text(std::int64_t micro_batch, Recompute recompute);

// Why a layout cannot run this model, before costing it: experts not divisible by ep, or attention heads not
// divisible by cp (Ulysses), with the texts of plan.h and LlamaFactory's sequence_parallel.py.
[[nodiscard]] std::optional<std::string> layout_problem(const ModelSpec& model, const Topology& topology);

// "needs 93.1 GiB per GPU; 72.0 GiB usable (80 GiB less the 10% reserve)"
[[nodiscard]] std::string does_not_fit(const MemoryBreakdown& memory, const ClusterSpec& cluster);

// "dp 64, cp 1, ep 8 is 21% faster than dp 8, cp 8, ep 8 (1.52 s against 1.84 s a step): ..." naming the dims
// whose exposed time differs most, and why (a group inside a node against one across nodes, cp 1 against cp > 1).
[[nodiscard]] std::string why_faster(const LayoutCost& winner, const LayoutCost& runner_up);

// The global batch the advice fixes when the training spec gives none: world x micro_batch x grad_accum sequences,
// what cp 1 runs; every layout divides it.
[[nodiscard]] std::int64_t default_global_batch(const TrainingSpec& training, std::int64_t world) noexcept;

// ValueError for a world below 1 or above max_world_size, or a gpus_per_node below 1 (the texts of Placement).
// With a KnobSearch, each layout is costed at the knobs it searches (advice.h, KnobSearch) and a layout is left out
// only when none of them fits: "needs 80.3 GiB per GPU; 72.0 GiB usable (80 GiB less the 10% reserve) even at
// micro-batch 1, full recompute".
[[nodiscard]] Expected<Advice> advise(const CostInputs& in, std::int64_t world, const KnobSearch& search = {});

}  // namespace meshscope::cost
