// Counts follow the Hugging Face modeling code of each family (q/k/v/o without bias, SwiGLU experts with
// gate, up and down projections, RMSNorm weights) and match Megatron-LM's theoretical_memory_usage.py term by
// term (docs/cost-model.md, "Parameters").
#include "meshscope/cost/parameters.h"

namespace meshscope::cost {

namespace {
std::int64_t attention_params(const ModelSpec& m) {
    const std::int64_t h = m.hidden;
    if (m.attention == AttentionKind::latent) {
        const auto& a = m.latent;
        const std::int64_t qk_head = a.qk_nope_head_dim + a.qk_rope_head_dim;
        const std::int64_t q = a.q_lora_rank > 0 ? h * a.q_lora_rank + a.q_lora_rank + a.q_lora_rank * a.heads * qk_head
                                                 : h * a.heads * qk_head;
        const std::int64_t kv = h * (a.kv_lora_rank + a.qk_rope_head_dim) + a.kv_lora_rank +
                                a.kv_lora_rank * a.heads * (a.qk_nope_head_dim + a.v_head_dim);
        return q + kv + a.heads * a.v_head_dim * h;
    }
    const auto& a = m.standard;
    const std::int64_t q = a.heads * a.head_dim;
    const std::int64_t kv = a.kv_heads * a.head_dim;
    // With the output gate q_proj is twice as wide (Qwen3_5MoeAttention: h -> heads * head_dim * 2).
    return h * (q * (a.output_gate ? 2 : 1) + 2 * kv) + q * h + (a.qk_norm ? 2 * a.head_dim : 0);
}

// Qwen3_5MoeGatedDeltaNet: in_proj_qkv (h -> 2 key_dim + value_dim), in_proj_z (h -> value_dim), in_proj_b and
// in_proj_a (h -> value_heads each), conv1d (depthwise, no bias: conv_dim x kernel), dt_bias and A_log
// (value_heads each), the gated RMSNorm's weight (value_head_dim), out_proj (value_dim -> h).
std::int64_t linear_attention_params(const ModelSpec& m) {
    const auto& a = m.linear;
    const std::int64_t h = m.hidden;
    return h * a.conv_dim() + h * a.value_dim() + 2 * h * a.value_heads + a.conv_dim() * a.conv_kernel +
           2 * a.value_heads + a.value_head_dim + a.value_dim() * h;
}

// SwiGLU: gate and up (h x f each) and down (f x h).
std::int64_t swiglu(std::int64_t hidden, std::int64_t ffn) {
    return 3 * hidden * ffn;
}
}  // namespace

ParameterCounts count_parameters(const ModelSpec& m) noexcept {
    ParameterCounts c;
    c.attention = attention_params(m);
    c.linear_attention = m.linear_layer_count() > 0 ? linear_attention_params(m) : 0;
    c.linear_layers = m.linear_layer_count();
    c.layer_norms = 2 * m.hidden;
    c.router = m.routed_experts > 0 ? m.hidden * m.routed_experts : 0;
    c.expert = swiglu(m.hidden, m.expert_ffn);
    c.shared = m.shared_experts * swiglu(m.hidden, m.shared_expert_ffn) + (m.shared_expert_gate ? m.hidden : 0);
    c.dense_ffn = swiglu(m.hidden, m.dense_ffn);
    c.moe_layers = m.routed_experts > 0 ? m.moe_layer_count() : 0;
    c.dense_layers = m.layers - c.moe_layers;
    c.routed_experts = m.routed_experts;
    c.top_k = m.top_k;
    c.embedding = m.vocab * m.hidden * (m.tied_embeddings ? 1 : 2);
    c.output_layer = m.vocab * m.hidden;
    c.final_norm = m.hidden;
    c.mtp_modules = m.mtp_layers;
    c.mtp_is_moe = m.last_layer_is_moe();
    // DeepSeek-V3's MTP module: enorm and hnorm, eh_proj (2h -> h), its shared_head's norm.
    c.mtp_glue = 2 * m.hidden * m.hidden + 3 * m.hidden;
    return c;
}

std::int64_t ParameterCounts::total() const noexcept {
    return all_attention() + moe_layers * (layer_norms + router + shared + moe_layer_experts()) +
           dense_layers * (layer_norms + dense_ffn) + embedding + final_norm;
}

std::int64_t ParameterCounts::active() const noexcept {
    return all_attention() + moe_layers * (layer_norms + router + shared + top_k * expert) +
           dense_layers * (layer_norms + dense_ffn) + embedding + final_norm;
}

std::int64_t ParameterCounts::mtp() const noexcept {
    const std::int64_t layer = mtp_is_moe ? moe_layer_non_expert() + moe_layer_experts() : dense_layer();
    return mtp_modules * (layer + mtp_glue);
}

std::int64_t ParameterCounts::routed_expert_params() const noexcept {
    return (moe_layers + (mtp_is_moe ? mtp_modules : 0)) * moe_layer_experts();
}

}  // namespace meshscope::cost
