// The compute of one optimizer step: FLOPs per token of a model (matrix multiplies and the causal attention
// term), and the time one GPU spends on its share of the step: each GEMM and the attention core at the share of the
// dense bf16 peak published kernel measurements reach at its shape, times one calibration scalar per GPU type, or
// one flat efficiency for everything (docs/cost-model-compute.md).
#pragma once

#include <vector>

#include "meshscope/cost/inputs.h"
#include "meshscope/mesh/topology.h"

namespace meshscope::cost {

// Forward FLOPs per token, by part (2 FLOPs per multiply-accumulate).
struct ForwardFlops {
    double attention = 0;     // q, k, v, o projections (or MLA's LoRA projections) of every layer
    double core = 0;          // q k^T and the weighted sum over v, causal: each token attends to s/2 keys on average;
                              // linear-attention layers: the gated delta rule (linear_core_flops_per_token)
    double router = 0;        // the gate of every MoE layer
    double experts = 0;       // top-k routed experts and the shared experts of every MoE layer
    double dense_ffn = 0;     // the FFN of every dense layer
    double output_layer = 0;  // the vocabulary projection
    double mtp = 0;           // MTP modules: eh_proj, their transformer layer, their own output projection

    // What full recomputation runs again in backward: every transformer layer, not the output layers.
    double layers = 0;
    // What torchtitan's per-op selective checkpointing runs again: every second matmul of the attention
    // projections (half their FLOPs), the router and the routed experts whole (torch._grouped_mm is not saved), and
    // w3 of the dense and shared FFNs (a third of them); the attention kernel's output is saved.
    double per_op_recompute = 0;
    [[nodiscard]] double total() const noexcept {
        return attention + core + router + experts + dense_ffn + output_layer + mtp;
    }
};

// Forward FLOPs per token of one linear-attention layer's gated delta rule (the chunked form; its projections and
// conv1d count with the parameters).
[[nodiscard]] double linear_core_flops_per_token(const ModelSpec& model) noexcept;

[[nodiscard]] ForwardFlops forward_flops_per_token(const ModelSpec& model, const ParameterCounts& params,
                                                   std::int64_t seq) noexcept;

// One published kernel measurement: at `x` the kernel reached `share` of the GPU's dense bf16 peak. GEMM curve: x is
// the multiply-accumulates of one GEMM of one group (M x N x K; for an expert, tokens per expert x hidden x expert
// width). Attention curve: x is the sequence length. Sources: docs/cost-model-compute.md, "The curves".
struct KernelPoint {
    double x;
    double share;
};

// Hopper (H100, H200) bf16 measurements, ascending in x; other GPUs take the same shares of their own peak.
[[nodiscard]] const std::vector<KernelPoint>& gemm_curve();
[[nodiscard]] const std::vector<KernelPoint>& attention_curve();
// A curve read at x: linear in log2(x) between its points, flat beyond its first and last.
[[nodiscard]] double curve_share(const std::vector<KernelPoint>& curve, double x) noexcept;

// Each part's share of the peak at the layout's shapes (1 where the part is absent).
struct ShapeEfficiency {
    double tokens = 0;                 // tokens one rank's micro-batch holds: micro x seq / cp (M of the dense GEMMs)
    double expert_tokens = 0;          // tokens per routed expert per micro-batch: tokens x top-k x ep / experts
    double attention_projections = 1;  // M = tokens, N = K = hidden
    double router = 1;                 // tokens x hidden x experts
    double experts = 1;                // expert_tokens x hidden x expert width
    double shared = 1;                 // tokens x hidden x shared width (all shared experts of a layer together)
    double dense_ffn = 1;              // tokens x hidden x dense width
    double output_layer = 1;           // tokens / loss chunks x hidden x vocabulary
    double core = 1;                   // the attention curve at the sequence length
};
[[nodiscard]] ShapeEfficiency shape_efficiency(const CostInputs& in, const Topology& topology) noexcept;

struct ComputeCost {
    double model_flops_per_token = 0;     // forward and backward (3 x forward): what MFU counts
    double hardware_flops_per_token = 0;  // plus full recomputation's second forward of the layers
    double tokens_per_gpu = 0;            // tokens one GPU's share of a step stands for: micro x M x seq / cp
    // tokens_per_gpu x hardware FLOPs / (peak x efficiency); by shape, the sum over parts of their hardware FLOPs
    // over their own share, divided by peak x calibration.
    double seconds = 0;
    double efficiency = 0;  // the share of the peak the step's compute reaches: hardware FLOPs / (seconds x peak)
    bool by_shape = false;  // priced by the kernel curves (calibration > 0), not one flat efficiency
    ShapeEfficiency shape;  // each part's share at the layout's shapes (what prices the step when by_shape)
};

// `grad_accum` micro-batches of `micro_batch` sequences on each of dp ranks, the sequence split over cp: every GPU
// computes the same share, so the time depends on the layout only through the tokens per GPU.
[[nodiscard]] ComputeCost compute_cost(const CostInputs& in, const Topology& topology,
                                       std::int64_t grad_accum) noexcept;

}  // namespace meshscope::cost
