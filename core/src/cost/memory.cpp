// Memory per GPU. Sharding from LlamaFactory's fsdpturbo.py (outer FSDP2 on the dp mesh, experts on ep and
// efsdp); activations counted tensor by tensor in the manner of Korthikanti et al. 2022 (arXiv 2205.05198,
// section 4) for SwiGLU experts, flash attention and RMSNorm; the output layer as Megatron-LM's
// theoretical_memory_usage.py counts it. docs/cost-model.md has every term.
#include "meshscope/cost/memory.h"

#include <algorithm>

namespace meshscope::cost {

namespace {
// Per token: what one MTP module adds around its transformer layer (concatenated enorm/hnorm outputs into
// eh_proj, their inputs) and its own output layer.
double mtp_glue_activation_bytes(const ModelSpec& m, const TrainingSpec& t) {
    return 4.0 * static_cast<double>(m.hidden) * t.activation_bytes + 4.0 * static_cast<double>(m.hidden + m.vocab);
}

// Per token: token ids (int64) and the output layer's input and logits, 4(h + V) bytes as Megatron counts them.
double head_activation_bytes(const ModelSpec& m) {
    return 8.0 + 4.0 * static_cast<double>(m.hidden + m.vocab);
}
}  // namespace

double tokens_per_rank(const TrainingSpec& training, std::int64_t cp) noexcept {
    return static_cast<double>(training.seq) * static_cast<double>(training.micro_batch) /
           static_cast<double>(std::max<std::int64_t>(cp, 1));
}

double layer_activation_bytes_per_token(const ModelSpec& m, const TrainingSpec& t, bool moe_layer) noexcept {
    return layer_activation_bytes_per_token(m, t, moe_layer, false);
}

double layer_activation_bytes_per_token(const ModelSpec& m, const TrainingSpec& t, bool moe_layer,
                                        bool linear_attention_layer) noexcept {
    // Selective recomputation (Megatron-Core's layernorm and moe_act modules; core attention is flash attention,
    // which keeps no score matrix anyway) drops norm outputs and activation-function outputs.
    const double keep = t.recompute == Recompute::selective ? 0.0 : 1.0;
    const auto h = static_cast<double>(m.hidden);
    double values = 0;
    double fp32_bytes = 0;
    values += h + keep * h;  // attention norm input and output
    if (linear_attention_layer) {
        // Gated DeltaNet: in_proj_qkv's output (the conv1d input) and the conv1d output (q, k, v of the delta
        // rule), z, b and a, the delta rule's output (the gated norm's input) and the gated norm's output
        // (out_proj's input); g and beta in fp32. The chunk kernel recomputes its per-chunk states in backward.
        const auto& a = m.linear;
        values += 2.0 * static_cast<double>(a.conv_dim()) + static_cast<double>(a.value_dim()) +
                  2.0 * static_cast<double>(a.value_heads) + static_cast<double>(a.value_dim()) +
                  keep * static_cast<double>(a.value_dim());
        fp32_bytes += 2.0 * 4.0 * static_cast<double>(a.value_heads);
    } else {
        // q, k, v and the attention output (inputs of flash attention and o_proj).
        values += static_cast<double>(m.q_width() + m.k_width() + m.v_width() + m.attention_out_width());
        if (m.attention == AttentionKind::standard && m.standard.qk_norm)
            values += static_cast<double>(m.q_width() + m.k_width());  // q and k before their RMSNorm
        if (m.attention == AttentionKind::standard && m.standard.output_gate)
            values += static_cast<double>(m.q_width()) +
                      keep * static_cast<double>(m.attention_out_width());  // the gate, the gated output
        if (m.attention == AttentionKind::latent) {
            const auto& a = m.latent;
            if (a.q_lora_rank > 0) values += static_cast<double>(a.q_lora_rank) * (1.0 + keep);
            values +=
                static_cast<double>(a.kv_lora_rank + a.qk_rope_head_dim) + keep * static_cast<double>(a.kv_lora_rank);
        }
        fp32_bytes += 4.0 * static_cast<double>(m.query_heads());  // flash attention's log-sum-exp
    }
    // FFN: norm input and output.
    values += h + keep * h;
    if (moe_layer) {
        const auto k = static_cast<double>(m.top_k);
        const auto f = static_cast<double>(m.expert_ffn);
        // Each routed copy: expert input, gate and up outputs, their SwiGLU product; and the expert output the
        // weighted combine keeps.
        values += k * (h + 2.0 * f + keep * f) + k * h;
        const auto fs = static_cast<double>(m.shared_experts * m.shared_expert_ffn);
        values += 2.0 * fs + keep * fs;
        fp32_bytes += 4.0 * static_cast<double>(m.routed_experts);  // router logits
    } else {
        const auto f = static_cast<double>(m.dense_ffn);
        values += 2.0 * f + keep * f;
    }
    return values * t.activation_bytes + fp32_bytes;
}

namespace {
// Activation bytes per token of every transformer layer together (MTP modules included), and of the largest one.
struct LayerActivations {
    double all = 0;
    double largest = 0;
};

LayerActivations layer_activations(const ModelSpec& m, const ParameterCounts& p, const TrainingSpec& t) {
    const std::int64_t moe_layers = p.moe_layers + (p.mtp_is_moe ? p.mtp_modules : 0);
    const std::int64_t dense_layers = p.dense_layers + (p.mtp_is_moe ? 0 : p.mtp_modules);
    LayerActivations out;
    auto add = [&](std::int64_t count, bool moe, bool linear) {
        if (count <= 0) return;
        const double bytes = layer_activation_bytes_per_token(m, t, moe, linear);
        out.all += static_cast<double>(count) * bytes;
        out.largest = std::max(out.largest, bytes);
    };
    // Linear-attention layers among the MoE and dense layers, by their indices.
    std::int64_t linear_moe = 0, linear_dense = 0;
    for (const auto i : m.linear_layers) {
        if (std::find(m.dense_layers.begin(), m.dense_layers.end(), i) != m.dense_layers.end() || m.routed_experts == 0)
            ++linear_dense;
        else
            ++linear_moe;
    }
    add(moe_layers - linear_moe, true, false);
    add(linear_moe, true, true);
    add(dense_layers - linear_dense, false, false);
    add(linear_dense, false, true);
    return out;
}
}  // namespace

MemoryBreakdown memory_per_gpu(const CostInputs& in, const Topology& topology) noexcept {
    const auto& m = in.model;
    const auto& t = in.training;
    const auto& p = in.params;
    MemoryBreakdown out;
    out.usable = in.cluster.usable_bytes();

    // Every parameter is sharded over dp ranks: non-experts by the outer FSDP2 on the dp mesh; experts over
    // ep * efsdp = dp when ep > 1, or by the same outer FSDP2 when ep = 1. cp ranks hold copies.
    const double dp = static_cast<double>(topology.dp);
    const double shard = static_cast<double>(p.trained()) / dp;
    out.params = shard * t.param_bytes;
    out.grads = shard * t.grad_bytes;
    out.optimizer = shard * t.optimizer_bytes;

    const double tokens = tokens_per_rank(t, topology.cp);
    const std::int64_t moe_layers = p.moe_layers + (p.mtp_is_moe ? p.mtp_modules : 0);
    const std::int64_t dense_layers = p.dense_layers + (p.mtp_is_moe ? 0 : p.mtp_modules);
    const double outside_layers =
        head_activation_bytes(m) + static_cast<double>(p.mtp_modules) * mtp_glue_activation_bytes(m, t);
    if (t.recompute == Recompute::full) {
        // Only each layer's input is kept; backward recomputes one layer at a time with everything it keeps.
        TrainingSpec none = t;
        none.recompute = Recompute::none;
        const double one_layer = layer_activations(m, p, none).largest;
        out.activations = tokens * (static_cast<double>(moe_layers + dense_layers) * static_cast<double>(m.hidden) *
                                        t.activation_bytes +
                                    one_layer + outside_layers);
    } else {
        out.activations = tokens * (layer_activations(m, p, t).all + outside_layers);
    }

    // The largest all-to-all in flight: ep's combine (bf16 both ways; the fp8 dispatch is smaller), or
    // Ulysses' q, k and v exchange.
    double ep_buffers = 0, cp_buffers = 0;
    if (topology.ep > 1 && moe_layers > 0)
        ep_buffers =
            2.0 * tokens * static_cast<double>(m.top_k * m.hidden) * std::max(t.dispatch_bytes(), t.activation_bytes);
    if (topology.cp > 1)
        cp_buffers = 2.0 * tokens * static_cast<double>(m.q_width() + m.k_width() + m.v_width()) * t.activation_bytes;
    out.all_to_all = std::max(ep_buffers, cp_buffers);

    // FSDP2 holds two units unsharded (the one computing and the one prefetched: two layers, or a layer and the
    // input embedding), and for one unit the unsharded gradient in bf16 with its fp32 copy for the reduce-scatter;
    // the root (output layer, final norm, MTP glue) stays gathered from forward to backward.
    const double experts_local = static_cast<double>(p.moe_layer_experts()) / static_cast<double>(topology.ep);
    double layer = 0;
    if (moe_layers > 0) layer = static_cast<double>(p.moe_layer_non_expert()) + experts_local;
    if (dense_layers > 0) layer = std::max(layer, static_cast<double>(p.dense_layer()));
    const double largest = std::max(layer, static_cast<double>(p.embedding_unit()));
    out.fsdp_buffers = (layer + largest) * t.param_bytes + largest * (t.grad_bytes + t.reduce_bytes) +
                       static_cast<double>(p.root_unit()) * t.param_bytes;
    return out;
}

}  // namespace meshscope::cost
