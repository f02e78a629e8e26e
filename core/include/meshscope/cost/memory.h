// Memory per GPU of one layout, by part, as FSDPTurbo shards it: non-expert parameters under the outer FSDP2 on
// the dp mesh, routed experts split over ep and sharded over efsdp (docs/cost-model-memory.md).
#pragma once

#include "meshscope/cost/inputs.h"
#include "meshscope/mesh/topology.h"

namespace meshscope::cost {

struct MemoryBreakdown {
    double params = 0;        // bytes per GPU: the sharded bf16 parameters
    double grads = 0;         // the sharded gradients
    double optimizer = 0;     // fp32 master copy and Adam's two moments, sharded
    double activations = 0;   // what one micro-batch keeps for backward
    double all_to_all = 0;    // send and receive buffers of the largest all-to-all (ep dispatch, Ulysses)
    double fsdp_buffers = 0;  // unsharded parameters of the layers in flight, the root held, one reduce buffer
    double usable = 0;        // memory less the reserve

    [[nodiscard]] double total() const noexcept {
        return params + grads + optimizer + activations + all_to_all + fsdp_buffers;
    }
    [[nodiscard]] double headroom() const noexcept { return usable - total(); }
    [[nodiscard]] bool fits() const noexcept { return total() <= usable; }
};

// Tokens one rank holds per micro-batch: Ulysses splits the sequence over cp.
[[nodiscard]] double tokens_per_rank(const TrainingSpec& training, std::int64_t cp) noexcept;

// Activation bytes one token keeps in one layer (MoE or dense; full attention, or linear attention where the
// model has it) until the layer's backward, by the recompute mode (full: the layer's input only). `ep` matters to
// torchtitan's per-op checkpointing alone, which saves the all-to-alls' outputs.
[[nodiscard]] double layer_activation_bytes_per_token(const ModelSpec& model, const TrainingSpec& training,
                                                      bool moe_layer) noexcept;
[[nodiscard]] double layer_activation_bytes_per_token(const ModelSpec& model, const TrainingSpec& training,
                                                      bool moe_layer, bool linear_attention_layer,
                                                      std::int64_t ep = 1) noexcept;

[[nodiscard]] MemoryBreakdown memory_per_gpu(const CostInputs& in, const Topology& topology) noexcept;

}  // namespace meshscope::cost
