// TrainingSpec: what one optimizer step of a run does: tokens per micro-batch, how many micro-batches,
// the dtypes FSDPTurbo and LlamaFactory use, and how much activation is recomputed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "meshscope/mesh/error.h"

namespace meshscope::cost {

// What activation recomputation keeps for backward. Each framework's own setting maps onto one of these by what
// it saves (docs/cost-model-memory.md, "Recomputation by framework"); recompute_names() lists the names.
enum class Recompute {
    none,       // every activation a layer's backward reads is kept
    selective,  // Megatron-Core `--recompute-modules layernorm moe_act`: norm outputs and SwiGLU products dropped
    full,       // each layer's input only; backward recomputes the layer (LlamaFactory, torchtitan `full`, ...)
    // Megatron `--recompute-granularity selective` with its default module, core_attn: recomputes the attention
    // scores, which flash attention never keeps, so it keeps what `none` keeps.
    core_attention,
    // torchtitan `selective` (per-op SAC): each layer's input and the outputs of every second matmul, the
    // attention kernel, top-k and the all-to-alls; the router's matmul and the experts' grouped GEMMs are
    // recomputed, so is everything elementwise.
    per_op,
};

// How the loss holds the logits, by the bytes per vocabulary entry and token alive at its peak
// (docs/cost-model-memory.md, "The output layer and the loss").
enum class LossLogits {
    // The logits and their gradient in the activation dtype, 4 V bytes a token: Megatron-LM's count, and a loss
    // torch.compile fuses (torchtitan with `compile.components` holding "loss", its default once compile is on).
    fused,
    // Eager `cross_entropy(logits.float(), labels)`, the bf16 logits freed before backward: 12 V bytes a token inside
    // log_softmax's backward (the fp32 log-probabilities it saved, their gradient, and the gradient it returns).
    // torchtitan's loss whenever it is not compiled: December 2024's train.py never compiled it.
    fp32_eager,
};

// Bytes per vocabulary entry and token that the loss holds at its peak: 4 fused, 12 fp32 eager.
[[nodiscard]] double logits_bytes_per_entry(LossLogits loss) noexcept;

// A name `--recompute` accepts, the mode it maps to, and what the framework means by it.
struct RecomputeName {
    std::string_view name;
    Recompute mode;
    std::string_view meaning;
};

// Every accepted name, the canonical one of each mode first: none, selective, full, megatron-selective,
// torchtitan-selective, then the framework aliases of full and selective.
[[nodiscard]] const std::vector<RecomputeName>& recompute_names();
// "none, selective, full, megatron-selective, ...": the list help texts and errors print.
[[nodiscard]] std::string recompute_names_text();

// The canonical name of a mode (the first of recompute_names() that maps to it).
[[nodiscard]] std::string_view to_string(Recompute recompute) noexcept;
// Any name of recompute_names(), exactly.
[[nodiscard]] std::optional<Recompute> parse_recompute(std::string_view text) noexcept;
// The same, or the one refusal every front end shows (the Planner's form, GET /api/v1/advise): ValueError
// `recompute must be one of none, selective, full, megatron-selective, ..., got 'some'`.
[[nodiscard]] Expected<Recompute> read_recompute(std::string_view text);
// "no recompute", "selective recompute", "full recompute", "Megatron selective recompute", "torchtitan selective
// recompute": the words the advisor's sentences use.
[[nodiscard]] std::string_view recompute_words(Recompute recompute) noexcept;
// Whether backward recomputes inside a layer, holding one layer's full set of activations meanwhile.
[[nodiscard]] bool recomputes_layers(Recompute recompute) noexcept;

struct TrainingSpec {
    std::int64_t seq = 4096;       // tokens per sequence
    std::int64_t micro_batch = 1;  // sequences per micro-batch per data-parallel rank
    std::int64_t grad_accum = 1;   // micro-batches per optimizer step (derived per layout when global_batch is set)
    // Sequences per optimizer step, fixed across layouts: each layout runs global_batch / (dp x micro_batch)
    // micro-batches. 0: the step runs grad_accum micro-batches on every layout (plan's cost of one layout).
    std::int64_t global_batch = 0;
    // The ep all-to-all runs behind other compute (DeepEP-style dispatchers, a second micro-batch's GEMMs) instead
    // of between the router and the expert GEMMs that wait for it.
    bool overlap_a2a = false;
    bool fp8_dispatch = false;  // tokens dispatched to experts in fp8 (1 byte, plus one fp32 scale per 128)
    Recompute recompute = Recompute::selective;
    // The loss computed over this many chunks of a micro-batch's tokens, each chunk's output layer, loss and backward
    // before the next (torchtitan's ChunkedLossWrapper, 8 in its Qwen3 configs): only one chunk's logits are held.
    // 1: the whole micro-batch's logits at once (LlamaFactory, Megatron's default).
    std::int64_t loss_chunks = 1;
    LossLogits loss = LossLogits::fused;
    // Sequences one forward pass holds, for the GEMMs' and attention's shapes only (compute by shape), when it differs
    // from micro_batch: a pipelined or distributed-optimizer run costed as one micro-batch holding the rank's share of
    // the step (its parameters cross the network once per step) still runs its kernels on micro-batches of this
    // many sequences (docs/cost-model-calibration.md, "How the rows are mapped"). 0: micro_batch.
    std::int64_t shape_micro_batch = 0;

    // Bytes per value. FSDPTurbo stores parameters in bf16 (FSDPTurboFSDP2Engine.shard_model); FSDP2 keeps the
    // sharded gradient in the parameter's dtype and reduces in fp32 (LlamaFactory's MixedPrecisionPolicy,
    // reduce_dtype=float32); Adam keeps an fp32 master copy and two fp32 moments (the optimizer).
    double param_bytes = 2;
    double grad_bytes = 2;
    double reduce_bytes = 4;
    double optimizer_bytes = 12;
    double activation_bytes = 2;

    // "seq must be positive, got 0." and the same for micro_batch and grad_accum.
    [[nodiscard]] static Expected<TrainingSpec> make(std::int64_t seq, std::int64_t micro_batch,
                                                     std::int64_t grad_accum, Recompute recompute,
                                                     bool fp8_dispatch = false);
    [[nodiscard]] double dispatch_bytes() const noexcept { return fp8_dispatch ? 1.0 + 4.0 / 128.0 : 2.0; }
    [[nodiscard]] std::int64_t tokens_per_step() const noexcept { return global_batch * seq; }
};

// Micro-batches per step of a layout with `dp` data-parallel ranks: grad_accum when no global batch is fixed, else
// global_batch / (dp x micro_batch). Errors (the reason a layout is excluded):
//   "global batch of 100 sequences is not a multiple of dp x micro-batch (8 x 1 = 8)"
//   "global batch of 4 sequences is smaller than dp x micro-batch (8 x 1 = 8)"
[[nodiscard]] Expected<std::int64_t> grad_accum_for(const TrainingSpec& training, std::int64_t dp);

}  // namespace meshscope::cost
