// ModelSpec: the shape of a transformer that decides what training it costs: attention (standard or
// multi-head latent, and linear-attention layers beside them), routed and shared experts, dense FFN layers,
// multi-token prediction, vocabulary.
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
    bool qk_norm = false;      // Qwen3's per-head RMSNorm on q and k
    bool output_gate = false;  // Qwen3.5's attn_output_gate: q_proj also yields a sigmoid gate on the output
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

// Gated DeltaNet (Qwen3.5's linear_attention layers, transformers' Qwen3_5MoeGatedDeltaNet): in_proj_qkv,
// in_proj_z, in_proj_b, in_proj_a, a depthwise causal conv1d over q, k and v, the chunked gated delta rule with a
// key_head_dim x value_head_dim state per value head, a gated RMSNorm and out_proj.
struct LinearAttention {
    std::int64_t key_heads = 0;    // linear_num_key_heads
    std::int64_t value_heads = 0;  // linear_num_value_heads
    std::int64_t key_head_dim = 0;
    std::int64_t value_head_dim = 0;
    std::int64_t conv_kernel = 0;  // linear_conv_kernel_dim
    std::int64_t chunk = 64;       // the chunk kernel's chunk size (FLA's and LlamaFactory's kernel_config default)
    [[nodiscard]] std::int64_t key_dim() const noexcept { return key_heads * key_head_dim; }
    [[nodiscard]] std::int64_t value_dim() const noexcept { return value_heads * value_head_dim; }
    [[nodiscard]] std::int64_t conv_dim() const noexcept { return 2 * key_dim() + value_dim(); }
    friend bool operator==(const LinearAttention&, const LinearAttention&) = default;
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
    LinearAttention linear;
    std::vector<std::int64_t> linear_layers;  // indices of layers with linear attention instead of `attention`
    std::int64_t routed_experts = 0;
    std::int64_t top_k = 0;
    std::int64_t expert_ffn = 0;             // intermediate size of one routed expert (SwiGLU)
    std::int64_t shared_experts = 0;         // always-on experts of every MoE layer
    std::int64_t shared_expert_ffn = 0;      // intermediate size of one shared expert
    bool shared_expert_gate = false;         // Qwen's sigmoid gate (h -> 1) on the shared expert's output
    std::int64_t dense_ffn = 0;              // intermediate size of the FFN of a dense layer
    std::vector<std::int64_t> dense_layers;  // indices of layers with a dense FFN instead of experts
    std::int64_t mtp_layers = 0;             // multi-token-prediction modules (DeepSeek-V3: 1)

    [[nodiscard]] std::int64_t dense_layer_count() const noexcept {
        return static_cast<std::int64_t>(dense_layers.size());
    }
    [[nodiscard]] std::int64_t moe_layer_count() const noexcept { return layers - dense_layer_count(); }
    [[nodiscard]] std::int64_t linear_layer_count() const noexcept {
        return static_cast<std::int64_t>(linear_layers.size());
    }
    [[nodiscard]] std::int64_t full_attention_layer_count() const noexcept { return layers - linear_layer_count(); }
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
