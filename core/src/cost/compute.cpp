// FLOPs per token as Megatron-LM's num_floating_point_operations counts them (2 FLOPs per weight per token for
// every matrix multiply, the causal attention term halved, backward twice the forward, full recomputation one more
// forward of the layers); norms, activations and the softmax are elementwise and left out.
#include "meshscope/cost/compute.h"

#include <algorithm>
#include <cmath>

namespace meshscope::cost {

namespace {
constexpr double hopper_bf16_peak_tflops = 989.0;  // H100 SXM and H200 dense bf16 (datasheets)
constexpr double share(double tflops) {
    return tflops / hopper_bf16_peak_tflops;
}
}  // namespace

const std::vector<KernelPoint>& gemm_curve() {
    // x: multiply-accumulates of one weight matrix of one group, M rows x hidden x width (a fused gate-and-up GEMM
    // of width 2f counts as two matrices of width f). docs/cost-model-compute.md, "The curves", cites each point.
    static const std::vector<KernelPoint> curve{
        // ByteDance-Seed/VeOmni pull 460, H100: H=2048, FFN=512, 512 experts, top-10, 32768 tokens (640 rows per
        // expert), torch._grouped_mm fused MoE forward, 180.67 TFLOP/s.
        {640.0 * 2048 * 512, share(180.67)},
        // tgale96/grouped_gemm pull 37, H100: Qwen3-30B-A3B's up_proj, 128 experts, K=2048, N=1536, 65536 tokens
        // uniform (512 per expert), CUTLASS SM90 cooperative, 160.5 TFLOPs.
        {512.0 * 2048 * 768, share(160.5)},
        // VeOmni pull 460, H100: H=2048, FFN=768, 128 experts, top-8, 32768 tokens (2048 rows per expert),
        // torch._grouped_mm fused MoE forward, 242.12 TFLOP/s.
        {2048.0 * 2048 * 768, share(242.12)},
        // tile-ai/TileOPs pull 1567, H200 (clock-bound near 1.4 GHz, the source says): GLM up, N=4096, K=6144,
        // 256 experts, torch._grouped_mm, at 1024, 2048, 4096 and 8192 rows per expert: 603, 624, 617, 597 TFLOPS.
        {1024.0 * 6144 * 2048, share(603)},
        {2048.0 * 6144 * 2048, share(624)},
        {4096.0 * 6144 * 2048, share(617)},
        {8192.0 * 6144 * 2048, share(597)},
    };
    return curve;
}

const std::vector<KernelPoint>& attention_curve() {
    // pytorch/benchmark commit ff65cb675209d2308f7d27c6920af8a32de9aa90 (pull 2391), H100, flash_v3 forward, head
    // dim 128, 16 heads, batch x sequence = 16k: TFLOPS at sequence 512 to 16384.
    static const std::vector<KernelPoint> curve{
        {512, share(430.32)},   {1024, share(517.099)}, {2048, share(565.544)},
        {4096, share(590.233)}, {8192, share(614.234)}, {16384, share(620.73)},
    };
    return curve;
}

double curve_share(const std::vector<KernelPoint>& curve, double x) noexcept {
    if (curve.empty()) return 1.0;
    if (!(x > curve.front().x)) return curve.front().share;
    if (x >= curve.back().x) return curve.back().share;
    for (std::size_t i = 1; i < curve.size(); ++i) {
        if (x > curve[i].x) continue;
        const auto& a = curve[i - 1];
        const auto& b = curve[i];
        const double t = std::log2(x / a.x) / std::log2(b.x / a.x);
        return a.share + t * (b.share - a.share);
    }
    return curve.back().share;
}

ShapeEfficiency shape_efficiency(const CostInputs& in, const Topology& topology) noexcept {
    const auto& m = in.model;
    const auto& t = in.training;
    ShapeEfficiency e;
    const auto h = static_cast<double>(m.hidden);
    const std::int64_t micro = t.shape_micro_batch > 0 ? t.shape_micro_batch : t.micro_batch;
    e.tokens = static_cast<double>(micro * t.seq) / static_cast<double>(std::max<std::int64_t>(topology.cp, 1));
    const auto gemm = [](double macs) { return curve_share(gemm_curve(), macs); };
    e.attention_projections = gemm(e.tokens * h * h);
    if (m.routed_experts > 0) {
        e.expert_tokens = e.tokens * static_cast<double>(m.top_k) *
                          static_cast<double>(std::max<std::int64_t>(topology.ep, 1)) /
                          static_cast<double>(m.routed_experts);
        e.router = gemm(e.tokens * h * static_cast<double>(m.routed_experts));
        e.experts = gemm(e.expert_tokens * h * static_cast<double>(m.expert_ffn));
    }
    if (m.shared_experts > 0)
        e.shared = gemm(e.tokens * h * static_cast<double>(m.shared_experts * m.shared_expert_ffn));
    if (m.dense_ffn > 0) e.dense_ffn = gemm(e.tokens * h * static_cast<double>(m.dense_ffn));
    e.output_layer = gemm(e.tokens / static_cast<double>(std::max<std::int64_t>(t.loss_chunks, 1)) * h *
                          static_cast<double>(m.vocab));
    e.core = curve_share(attention_curve(), static_cast<double>(t.seq));
    return e;
}

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
    const double peak = in.cluster.peak_tflops * 1e12;
    out.shape = shape_efficiency(in, topology);
    out.by_shape = in.cluster.calibration > 0;
    if (out.by_shape) {
        // Each part's hardware FLOPs (forward, backward twice the forward, and what recomputation repeats) at its
        // own share of the peak; MTP modules at the attention projections' share.
        const auto& p = in.params;
        const ShapeEfficiency& e = out.shape;
        const double moe = static_cast<double>(p.moe_layers);
        const double routed = moe * 2.0 * static_cast<double>(p.expert * p.top_k);
        const double shared = moe * 2.0 * static_cast<double>(p.shared);
        const bool full = t.recompute == Recompute::full;
        const bool per_op = t.recompute == Recompute::per_op;
        const double again = full ? 1.0 : 0.0;
        const double mtp_layers = f.layers - (f.attention + f.core + f.router + f.experts + f.dense_ffn);
        double weighted = (3.0 + again + (per_op ? 0.5 : 0.0)) * f.attention / e.attention_projections +
                          (3.0 + again) * f.core / e.core + (3.0 + again + (per_op ? 1.0 : 0.0)) * f.router / e.router +
                          (3.0 + again + (per_op ? 1.0 : 0.0)) * routed / e.experts +
                          (3.0 + again + (per_op ? 1.0 / 3.0 : 0.0)) * shared / e.shared +
                          (3.0 + again + (per_op ? 1.0 / 3.0 : 0.0)) * f.dense_ffn / e.dense_ffn +
                          3.0 * f.output_layer / e.output_layer +
                          (3.0 * f.mtp + again * mtp_layers) / e.attention_projections;
        const double denominator = peak * in.cluster.calibration;
        out.seconds = denominator > 0 ? out.tokens_per_gpu * weighted / denominator : 0.0;
    } else {
        const double flops_per_second = peak * in.cluster.efficiency;
        out.seconds = flops_per_second > 0 ? out.tokens_per_gpu * out.hardware_flops_per_token / flops_per_second : 0.0;
    }
    if (out.seconds > 0 && peak > 0)
        out.efficiency = out.tokens_per_gpu * out.hardware_flops_per_token / (out.seconds * peak);
    return out;
}

}  // namespace meshscope::cost
