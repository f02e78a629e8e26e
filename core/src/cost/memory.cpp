// Memory per GPU. Sharding from LlamaFactory's fsdpturbo.py (outer FSDP2 on the dp mesh, experts on ep and
// efsdp); activations counted tensor by tensor in the manner of Korthikanti et al. 2022 (arXiv 2205.05198,
// section 4) for SwiGLU experts, flash attention and RMSNorm; the output layer as Megatron-LM's
// theoretical_memory_usage.py counts it. docs/cost-model-memory.md has every term.
#include "meshscope/cost/memory.h"

#include <algorithm>
#include <vector>

namespace meshscope::cost {

namespace {
// Per token: what one MTP module adds around its transformer layer (concatenated enorm/hnorm outputs into
// eh_proj, their inputs) and its own output layer.
double mtp_glue_activation_bytes(const ModelSpec& m, const TrainingSpec& t) {
    return 4.0 * static_cast<double>(m.hidden) * t.activation_bytes + 4.0 * static_cast<double>(m.hidden + m.vocab);
}

// Per token at the loss's peak: token ids (int64), the output layer's input, 4h bytes as Megatron-LM counts it, and
// what the loss holds per vocabulary entry: 4 bytes fused (Megatron's 4V, the logits and their gradient in bf16), 12
// for an eager cross_entropy over logits.float() (torchtitan's train.py at pytorch/torchtitan@9dec370a, lines
// 131-134 and 303-308: the fp32 log-probabilities log_softmax saves, their gradient from nll_loss and the gradient
// log_softmax's backward returns, all alive in that backward; the bf16 logits are deleted before it). With the loss
// in chunks (torchtitan's ChunkedLossWrapper) one chunk's share of those is held, and the detached final hidden
// states with their accumulated gradient (2h values) for the decoder's backward.
double head_activation_bytes(const ModelSpec& m, const TrainingSpec& t) {
    const auto chunks = static_cast<double>(std::max<std::int64_t>(t.loss_chunks, 1));
    const double chunked = t.loss_chunks > 1 ? 2.0 * static_cast<double>(m.hidden) * t.activation_bytes : 0.0;
    const double per_chunk =
        4.0 * static_cast<double>(m.hidden) + logits_bytes_per_entry(t.loss) * static_cast<double>(m.vocab);
    return 8.0 + per_chunk / chunks + chunked;
}
// What a layer keeps per token: values in the activation dtype, and other bytes (fp32 statistics, indices).
struct Kept {
    double values = 0;
    double bytes = 0;
};

// Everything a layer's backward reads, less what Megatron-Core's layernorm and moe_act recomputation drops (norm
// outputs and activation-function outputs) when `drop_norm_act` is set; core attention is flash attention, which
// keeps no score matrix anyway.
Kept kept_by_backward(const ModelSpec& m, bool moe_layer, bool linear_attention_layer, bool drop_norm_act) {
    const double keep = drop_norm_act ? 0.0 : 1.0;
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
    return {values, fp32_bytes};
}

// torchtitan's per-op selective checkpointing (SelectiveAC in torchtitan/distributed/activation_checkpoint.py,
// read at pytorch/torchtitan@b5bcd76c): inside each checkpointed block it saves the outputs of the ops in
// PyTorch's compute-intensive list (mm, addmm, bmm, flash and efficient attention) except every second matmul,
// of cudnn/flex attention, topk and the all-to-alls, and recomputes the rest. The router's matmul is forced to
// recompute and uncounted; the experts' torch._grouped_mm is not in the list, so the routed experts are
// recomputed whole, and neither is a linear-attention kernel. Matmuls counted per block in forward order (q, k
// and v fused into one, torchtitan's Qwen3 default; Qwen3.5's q carries its output gate): attention [qkv, o_proj]
// (latent: [wq_a, wq_b, wkv_a, wkv_b, wo]; Gated DeltaNet: [in_proj_qkv, in_proj_z, in_proj_b, in_proj_a,
// out_proj]), then the dense or shared FFN [w1, w3, w2]; the first, third, ... are saved.
Kept kept_per_op(const ModelSpec& m, bool moe_layer, bool linear_attention_layer, std::int64_t ep) {
    const auto h = static_cast<double>(m.hidden);
    std::vector<double> matmuls;
    if (linear_attention_layer) {
        const auto& a = m.linear;
        matmuls.insert(matmuls.end(), {static_cast<double>(a.conv_dim()), static_cast<double>(a.value_dim()),
                                       static_cast<double>(a.value_heads), static_cast<double>(a.value_heads)});
    } else if (m.attention == AttentionKind::latent) {
        const auto& a = m.latent;
        const auto heads = static_cast<double>(a.heads);
        if (a.q_lora_rank > 0) matmuls.push_back(static_cast<double>(a.q_lora_rank));
        matmuls.push_back(heads * static_cast<double>(a.qk_nope_head_dim + a.qk_rope_head_dim));
        matmuls.push_back(static_cast<double>(a.kv_lora_rank + a.qk_rope_head_dim));
        matmuls.push_back(heads * static_cast<double>(a.qk_nope_head_dim + a.v_head_dim));
    } else {
        const double gate = m.standard.output_gate ? static_cast<double>(m.q_width()) : 0.0;
        matmuls.push_back(static_cast<double>(m.q_width() + m.k_width() + m.v_width()) + gate);
    }
    matmuls.push_back(h);  // o_proj
    const auto ffn = static_cast<double>(moe_layer ? m.shared_experts * m.shared_expert_ffn : m.dense_ffn);
    if (ffn > 0) matmuls.insert(matmuls.end(), {ffn, ffn, h});
    Kept out;
    out.values = h;  // the block's input, which the checkpoint keeps
    for (std::size_t i = 0; i < matmuls.size(); i += 2) out.values += matmuls[i];
    if (!linear_attention_layer) {
        out.values += static_cast<double>(m.attention_out_width());  // the attention kernel's output
        out.bytes = 4.0 * static_cast<double>(m.query_heads());      // and its log-sum-exp
    }
    if (moe_layer) {
        const auto k = static_cast<double>(m.top_k);
        out.bytes += k * (4.0 + 8.0);  // topk: fp32 scores and int64 indices
        // The dispatch and combine all-to-alls' outputs: every routed copy of the token, there and back.
        if (ep > 1) out.values += 2.0 * k * h;
    }
    return out;
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
                                        bool linear_attention_layer, std::int64_t ep) noexcept {
    Kept kept;
    switch (t.recompute) {
        case Recompute::none:
        case Recompute::core_attention: kept = kept_by_backward(m, moe_layer, linear_attention_layer, false); break;
        case Recompute::selective: kept = kept_by_backward(m, moe_layer, linear_attention_layer, true); break;
        case Recompute::full: kept.values = static_cast<double>(m.hidden); break;
        case Recompute::per_op: kept = kept_per_op(m, moe_layer, linear_attention_layer, ep); break;
    }
    return kept.values * t.activation_bytes + kept.bytes;
}

namespace {
// Activation bytes per token of every transformer layer together (MTP modules included), and of the largest one.
struct LayerActivations {
    double all = 0;
    double largest = 0;
};

LayerActivations layer_activations(const ModelSpec& m, const ParameterCounts& p, const TrainingSpec& t,
                                   std::int64_t ep) {
    const std::int64_t moe_layers = p.moe_layers + (p.mtp_is_moe ? p.mtp_modules : 0);
    const std::int64_t dense_layers = p.dense_layers + (p.mtp_is_moe ? 0 : p.mtp_modules);
    LayerActivations out;
    auto add = [&](std::int64_t count, bool moe, bool linear) {
        if (count <= 0) return;
        const double bytes = layer_activation_bytes_per_token(m, t, moe, linear, ep);
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
        head_activation_bytes(m, t) + static_cast<double>(p.mtp_modules) * mtp_glue_activation_bytes(m, t);
    const double kept_in_layers = layer_activations(m, p, t, topology.ep).all;
    if (recomputes_layers(t.recompute)) {
        // Backward recomputes one layer at a time and holds that layer's full set meanwhile; it starts after the
        // output layer's backward has freed the logits, so the two do not add up.
        TrainingSpec none = t;
        none.recompute = Recompute::none;
        const double one_layer = layer_activations(m, p, none, topology.ep).largest;
        out.activations = tokens * (kept_in_layers + std::max(one_layer, outside_layers));
    } else {
        out.activations = tokens * (kept_in_layers + outside_layers);
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

    // FSDP2 units in flight. While the activations peak (the start of backward and the last layers' recompute) it
    // holds two layers unsharded (the one computing and the one prefetched), one layer's unsharded gradient in bf16
    // with its fp32 copy for the reduce-scatter, and the root (output layer, final norm, MTP glue), which it does
    // not reshard after forward. The untied input embedding is gathered only at the ends of the step, the first
    // forward unit and the last gradient to reduce, when almost no activation is held: that phase counts only
    // where it needs more than the peak's activations, all-to-all and buffers together.
    const double experts_local = static_cast<double>(p.moe_layer_experts()) / static_cast<double>(topology.ep);
    double layer = 0;
    if (moe_layers > 0) layer = static_cast<double>(p.moe_layer_non_expert()) + experts_local;
    if (dense_layers > 0) layer = std::max(layer, static_cast<double>(p.dense_layer()));
    const auto root = static_cast<double>(p.root_unit());
    const auto embedding = static_cast<double>(p.embedding_unit());
    const double at_peak = (2.0 * layer + root) * t.param_bytes + layer * (t.grad_bytes + t.reduce_bytes);
    const double at_ends =
        (layer + embedding + root) * t.param_bytes + std::max(layer, embedding) * (t.grad_bytes + t.reduce_bytes);
    out.fsdp_buffers = std::max(at_peak, at_ends - out.activations - out.all_to_all);
    return out;
}

}  // namespace meshscope::cost
