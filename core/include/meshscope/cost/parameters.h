// Parameter counts of a ModelSpec, by the parts that FSDPTurbo shards differently: routed experts (split over
// ep, sharded over efsdp) and everything else (the outer FSDP2 on the dp mesh).
#pragma once

#include <cstdint>

#include "meshscope/cost/model_spec.h"

namespace meshscope::cost {

struct ParameterCounts {
    // One layer's parts.
    std::int64_t attention = 0;         // projections (and q/k or LoRA norms) of a full-attention layer
    std::int64_t linear_attention = 0;  // a linear-attention layer's (Gated DeltaNet) in its place
    std::int64_t layer_norms = 0;       // input and post-attention RMSNorm
    std::int64_t router = 0;            // gate of a MoE layer
    std::int64_t expert = 0;            // one routed expert
    std::int64_t shared = 0;            // all shared experts of a MoE layer
    std::int64_t dense_ffn = 0;         // FFN of a dense layer
    // The model's parts.
    std::int64_t moe_layers = 0;
    std::int64_t dense_layers = 0;
    std::int64_t linear_layers = 0;  // layers with linear_attention instead of attention (MoE or dense alike)
    std::int64_t routed_experts = 0;
    std::int64_t top_k = 0;
    std::int64_t embedding = 0;     // input embedding plus output head unless tied
    std::int64_t output_layer = 0;  // one vocabulary x hidden matrix (lm_head; the embedding too when tied)
    std::int64_t final_norm = 0;
    std::int64_t mtp_modules = 0;
    bool mtp_is_moe = false;
    std::int64_t mtp_glue = 0;  // per MTP module: eh_proj and its norms (embedding and head are shared)

    // The larger of the two attention kinds: what the largest layer of a kind holds.
    [[nodiscard]] std::int64_t largest_attention() const noexcept {
        return linear_layers > 0 && linear_attention > attention ? linear_attention : attention;
    }
    // Every layer's attention, full and linear.
    [[nodiscard]] std::int64_t all_attention() const noexcept {
        return (moe_layers + dense_layers - linear_layers) * attention + linear_layers * linear_attention;
    }
    [[nodiscard]] std::int64_t dense_layer() const noexcept { return largest_attention() + layer_norms + dense_ffn; }
    [[nodiscard]] std::int64_t moe_layer_non_expert() const noexcept {
        return largest_attention() + layer_norms + router + shared;
    }
    [[nodiscard]] std::int64_t moe_layer_experts() const noexcept { return expert * routed_experts; }
    // The main model, as model cards count it (MTP modules left out).
    [[nodiscard]] std::int64_t total() const noexcept;
    [[nodiscard]] std::int64_t active() const noexcept;
    // MTP modules: trained, so they take memory, but not part of the published totals.
    [[nodiscard]] std::int64_t mtp() const noexcept;
    [[nodiscard]] std::int64_t trained() const noexcept { return total() + mtp(); }
    // Routed experts of every MoE layer, MTP included: what FSDPTurbo hands to EP and EFSDP.
    [[nodiscard]] std::int64_t routed_expert_params() const noexcept;
    [[nodiscard]] std::int64_t non_expert_params() const noexcept { return trained() - routed_expert_params(); }
    // LlamaFactory's FSDP2 units (fsdp2.py prepare_model): one per decoder layer, the input embedding on its own
    // when untied, and the root (output layer, final norm, MTP glue), which FSDP2 does not reshard after forward.
    [[nodiscard]] std::int64_t embedding_unit() const noexcept { return embedding - output_layer; }
    [[nodiscard]] std::int64_t root_unit() const noexcept { return output_layer + final_norm + mtp_modules * mtp_glue; }
    [[nodiscard]] std::int64_t fsdp_units() const noexcept {
        return moe_layers + dense_layers + mtp_modules + (embedding_unit() > 0 ? 1 : 0) + 1;
    }
};

[[nodiscard]] ParameterCounts count_parameters(const ModelSpec& model) noexcept;

}  // namespace meshscope::cost
