// The cost of one layout: memory per GPU by part, and per mesh dim the collectives of one optimizer step with
// their bytes on the wire per rank, the link they cross and their time. Plain structs: what the CLI prints,
// meshscope.advice/1 carries and the planner's Cost panel draws.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "meshscope/cost/compute.h"
#include "meshscope/cost/inputs.h"
#include "meshscope/cost/memory.h"
#include "meshscope/cost/mesh_dims.h"
#include "meshscope/mesh/dim_collectives.h"
#include "meshscope/mesh/plan.h"
#include "meshscope/mesh/topology.h"

namespace meshscope::cost {

enum class LinkKind { intra_node, inter_node };
[[nodiscard]] std::string_view to_string(LinkKind link) noexcept;

struct CollectiveCost {
    Collective collective = Collective::all_reduce;
    double bytes = 0;        // the operation's size S, summed over one step's calls (nccl-tests' "size")
    std::int64_t calls = 0;  // launches per step
    double bus_factor = 0;   // nccl-tests: 2(n-1)/n all-reduce, (n-1)/n the others
    double wire_bytes = 0;   // bytes * bus_factor: what each rank moves over its link
    double seconds = 0;      // calls * (base + steps * hop latency) + wire_bytes / bus bandwidth
};

struct DimCost {
    std::string mesh;
    std::string dim;
    std::int64_t size = 1;
    LinkKind link = LinkKind::intra_node;
    std::int64_t nodes = 1;                   // nodes a group spans
    std::vector<CollectiveCost> collectives;  // in dim_collectives order; empty for a dim that carries none
    double wire_bytes = 0;
    double seconds = 0;
    double exposed_seconds = 0;  // what the step waits for after overlap (docs/cost-model.md, "Overlap")
};

// One optimizer step of a layout: compute plus the communication compute does not hide.
struct StepCost {
    std::int64_t grad_accum = 1;  // micro-batches per step on this layout
    double tokens = 0;            // tokens per optimizer step, all ranks
    ComputeCost compute;
    double exposed_seconds = 0;  // sum of the dims' exposed_seconds
    double seconds = 0;          // compute.seconds + exposed_seconds
    double tokens_per_second_per_gpu = 0;
    double mfu = 0;  // model FLOPs (no recomputation) per second over the dense bf16 peak
};

struct LayoutCost {
    Topology topology;
    std::int64_t micro_batch = 1;  // the training knobs this layout was costed with
    Recompute recompute = Recompute::selective;
    // When the advisor chose the knobs (KnobSearch, advice.h): why, against the knobs given, e.g. "micro-batch 4,
    // full recompute: 12% faster than micro-batch 1, no recompute (1.52 s against 1.71 s a step)". Empty otherwise.
    std::string knobs;
    MemoryBreakdown memory;
    std::vector<DimCost> dims;
    double seconds = 0;  // communication per step, nothing overlapped
    double intra_node_seconds = 0;
    double inter_node_seconds = 0;
    StepCost step;
};

// The size S and launches per step of one collective on one dim (0, 0 when the dim does not carry it).
struct Payload {
    double bytes = 0;
    std::int64_t calls = 0;
};
[[nodiscard]] Payload payload(const CostInputs& in, const Topology& topology, std::string_view dim,
                              Collective collective) noexcept;

// Time of one collective on a group of `group_size` ranks over `nodes` nodes: per launch NCCL's base latency plus
// one hop per ring step (nodes - 1 of them per pass over the network, the rest over NVLink, as NCCL's tuning model
// splits them), and the bytes at the bottleneck's bandwidth (the network's when nodes > 1).
[[nodiscard]] double collective_seconds(Collective collective, std::int64_t group_size, std::int64_t nodes,
                                        double wire_bytes, std::int64_t calls, const ClusterSpec& cluster) noexcept;

// The overlap rules (docs/cost-model.md, "Overlap"): FSDP's all-gathers and reduce-scatters (dp, efsdp) run behind
// compute except the step's first all-gather and last reduce-scatter; the ep all-to-all is exposed unless
// overlap_a2a, then it too runs behind compute; cp's and expert_cp's collectives are exposed. What runs behind
// compute and exceeds it is exposed, shared among those dims by their time. Sets each dim's exposed_seconds and
// returns their sum.
[[nodiscard]] double apply_overlap(std::vector<DimCost>& dims, double compute_seconds, bool overlap_a2a) noexcept;

// Communication, compute and step time with in.training.grad_accum micro-batches per step.
[[nodiscard]] LayoutCost cost_layout(const CostInputs& in, const Topology& topology, const std::vector<MeshDim>& dims);
// The layout of a plan, links from the plan's own placement analysis.
[[nodiscard]] LayoutCost cost_plan(const CostInputs& in, const Plan& plan);

}  // namespace meshscope::cost
