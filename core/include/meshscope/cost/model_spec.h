// ModelSpec: the shape of a transformer that decides what training it costs: attention (standard or
// multi-head latent), routed and shared experts, dense FFN layers, multi-token prediction, vocabulary.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace meshscope::cost {

enum class AttentionKind { standard, latent };

// Grouped-query attention: q, k, v and o projections without bias (Qwen3, Mixtral).
struct StandardAttention {
    std::int64_t heads = 0;
    std::int64_t kv_heads = 0;
    std::int64_t head_dim = 0;
    bool qk_norm = false;  // Qwen3's per-head RMSNorm on q and k
    friend bool operator==(const StandardAttention&, const StandardAttention&) = default;
};

// Multi-head latent attention (DeepSeek-V2/V3): q and kv go through low-rank projections.
struct LatentAttention {
    std::int64_t heads = 0;
    std::int64_t q_lora_rank = 0;  // 0: q is one full projection
    std::int64_t kv_lora_rank = 0;
    std::int64_t qk_nope_head_dim = 0;
    std::int64_t qk_rope_head_dim = 0;
    std::int64_t v_head_dim = 0;
    friend bool operator==(const LatentAttention&, const LatentAttention&) = default;
};

struct ModelSpec {
    std::string name;
    std::int64_t layers = 0;
    std::int64_t hidden = 0;
    std::int64_t vocab = 0;
    bool tied_embeddings = false;
    AttentionKind attention = AttentionKind::standard;
    StandardAttention standard;
    LatentAttention latent;
    std::int64_t routed_experts = 0;
    std::int64_t top_k = 0;
    std::int64_t expert_ffn = 0;             // intermediate size of one routed expert (SwiGLU)
    std::int64_t shared_experts = 0;         // always-on experts of every MoE layer
    std::int64_t shared_expert_ffn = 0;      // intermediate size of one shared expert
    std::int64_t dense_ffn = 0;              // intermediate size of the FFN of a dense layer
    std::vector<std::int64_t> dense_layers;  // indices of layers with a dense FFN instead of experts
    std::int64_t mtp_layers = 0;             // multi-token-prediction modules (DeepSeek-V3: 1)

    [[nodiscard]] std::int64_t dense_layer_count() const noexcept {
        return static_cast<std::int64_t>(dense_layers.size());
    }
    [[nodiscard]] std::int64_t moe_layer_count() const noexcept { return layers - dense_layer_count(); }
    // MTP modules repeat the last layer's kind (DeepSeek-V3 report, section 2.2; Megatron's estimator too).
    [[nodiscard]] bool last_layer_is_moe() const noexcept;
    // Query heads, and the key/value heads Ulysses splits across cp (latent attention expands kv per head).
    [[nodiscard]] std::int64_t query_heads() const noexcept;
    [[nodiscard]] std::int64_t key_value_heads() const noexcept;
    // Per token, the widths of q, k, v and the attention output that flash attention keeps and Ulysses moves.
    [[nodiscard]] std::int64_t q_width() const noexcept;
    [[nodiscard]] std::int64_t k_width() const noexcept;
    [[nodiscard]] std::int64_t v_width() const noexcept;
    [[nodiscard]] std::int64_t attention_out_width() const noexcept;

    friend bool operator==(const ModelSpec&, const ModelSpec&) = default;
};

}  // namespace meshscope::cost
