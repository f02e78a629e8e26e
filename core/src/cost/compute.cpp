// FLOPs per token as Megatron-LM's num_floating_point_operations counts them (2 FLOPs per weight per token for
// every matrix multiply, the causal attention term halved, backward twice the forward, full recomputation one more
// forward of the layers); norms, activations and the softmax are elementwise and left out.
#include "meshscope/cost/compute.h"

#include <algorithm>

namespace meshscope::cost {

double linear_core_flops_per_token(const ModelSpec& m) noexcept {
    // transformers' torch_chunk_gated_delta_rule per value head and chunk of C tokens (q and k repeated to the
    // value heads): k_beta k^T and q k^T (2 C^2 dk each), the two triangular solves (C^2 dv and C^2 dk), the
    // state read k_cumdecay S and q S (2 C dk dv each), the intra-chunk attention times v_new (2 C^2 dv) and the
    // state update k^T v_new (2 C dk dv). Per token: C (5 dk + 3 dv) + 6 dk dv.
    const auto& a = m.linear;
    const auto c = static_cast<double>(a.chunk);
    const auto dk = static_cast<double>(a.key_head_dim);
    const auto dv = static_cast<double>(a.value_head_dim);
    return static_cast<double>(a.value_heads) * (c * (5.0 * dk + 3.0 * dv) + 6.0 * dk * dv);
}

ForwardFlops forward_flops_per_token(const ModelSpec& m, const ParameterCounts& p, std::int64_t seq) noexcept {
    const auto s = static_cast<double>(seq);
    const auto h = static_cast<double>(m.hidden);
    const auto moe = static_cast<double>(p.moe_layers);
    const auto dense = static_cast<double>(p.dense_layers);
    // q k^T: q_width multiply-accumulates per key; the weighted sum: attention_out_width per key; s/2 keys per
    // query on average under the causal mask, 2 FLOPs each: s (q_width + out_width) per token and layer.
    const double core_per_layer = s * static_cast<double>(m.q_width() + m.attention_out_width());
    const double attention_per_layer = 2.0 * static_cast<double>(p.attention);
    const auto linear = static_cast<double>(p.linear_layers);
    const auto full = moe + dense - linear;
    const double router_per_layer = 2.0 * static_cast<double>(p.router);
    const double experts_per_layer = 2.0 * static_cast<double>(p.expert * p.top_k + p.shared);
    const double dense_per_layer = 2.0 * static_cast<double>(p.dense_ffn);
    const double output = 2.0 * static_cast<double>(p.output_layer);

    ForwardFlops f;
    f.attention = 2.0 * static_cast<double>(p.all_attention());
    f.core = full * core_per_layer + linear * linear_core_flops_per_token(m);
    f.router = moe * router_per_layer;
    f.experts = moe * experts_per_layer;
    f.dense_ffn = dense * dense_per_layer;
    f.output_layer = output;
    // An MTP module: eh_proj (2h -> h), one layer of the last layer's kind, and the shared output head again.
    const double mtp_layer =
        attention_per_layer + core_per_layer + (p.mtp_is_moe ? router_per_layer + experts_per_layer : dense_per_layer);
    f.mtp = static_cast<double>(p.mtp_modules) * (2.0 * 2.0 * h * h + mtp_layer + output);
    f.layers =
        f.attention + f.core + f.router + f.experts + f.dense_ffn + static_cast<double>(p.mtp_modules) * mtp_layer;
    f.per_op_recompute = 0.5 * f.attention + f.router + moe * 2.0 * static_cast<double>(p.expert * p.top_k) +
                         (moe * 2.0 * static_cast<double>(p.shared) + f.dense_ffn) / 3.0;
    return f;
}

ComputeCost compute_cost(const CostInputs& in, const Topology& topology, std::int64_t grad_accum) noexcept {
    const auto& t = in.training;
    const ForwardFlops f = forward_flops_per_token(in.model, in.params, t.seq);
    ComputeCost out;
    out.model_flops_per_token = 3.0 * f.total();
    out.hardware_flops_per_token = out.model_flops_per_token + (t.recompute == Recompute::full     ? f.layers
                                                                : t.recompute == Recompute::per_op ? f.per_op_recompute
                                                                                                   : 0.0);
    out.tokens_per_gpu = static_cast<double>(t.micro_batch * grad_accum * t.seq) /
                         static_cast<double>(std::max<std::int64_t>(topology.cp, 1));
    const double flops_per_second = in.cluster.peak_tflops * 1e12 * in.cluster.efficiency;
    out.seconds = flops_per_second > 0 ? out.tokens_per_gpu * out.hardware_flops_per_token / flops_per_second : 0.0;
    return out;
}

}  // namespace meshscope::cost
