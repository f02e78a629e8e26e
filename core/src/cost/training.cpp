#include "meshscope/cost/training.h"

#include <string>

namespace meshscope::cost {

const std::vector<RecomputeName>& recompute_names() {
    // The framework names are read from each framework's code: LlamaFactory v1 `enable_activation_checkpointing`
    // calls transformers' gradient_checkpointing_enable (every decoder layer checkpointed whole); torchtitan
    // `distributed/activation_checkpoint.py` (FullAC wraps each block, SelectiveAC is the per-op policy); NeMo
    // AutoModel `activation_checkpointing: true` wraps each block with checkpoint_wrapper; Megatron-LM
    // `--recompute-granularity full --recompute-method uniform --recompute-num-layers 1`, or `selective` with
    // `--recompute-modules` (default core_attn).
    static const std::vector<RecomputeName> names{
        {"none", Recompute::none, "no activation recomputation"},
        {"selective", Recompute::selective,
         "Megatron-Core --recompute-modules layernorm moe_act: norm outputs and SwiGLU products recomputed"},
        {"full", Recompute::full, "each layer's input kept, the whole layer recomputed in backward"},
        {"megatron-selective", Recompute::core_attention,
         "Megatron --recompute-granularity selective (core_attn): with flash attention, keeps what none keeps"},
        {"torchtitan-selective", Recompute::per_op,
         "torchtitan activation_checkpoint selective (per-op SAC): every second matmul, attention, top-k and "
         "all-to-all outputs saved, the rest recomputed"},
        {"llamafactory", Recompute::full, "LlamaFactory v1 enable_activation_checkpointing: true (its default)"},
        {"torchtitan-full", Recompute::full, "torchtitan activation_checkpoint full"},
        {"automodel-full", Recompute::full, "NeMo AutoModel distributed.activation_checkpointing: true or full"},
        {"megatron-full", Recompute::full,
         "Megatron --recompute-granularity full --recompute-method uniform --recompute-num-layers 1"},
        {"megatron-layernorm-moe-act", Recompute::selective,
         "Megatron --recompute-granularity selective --recompute-modules layernorm moe_act"},
    };
    return names;
}

std::string recompute_names_text() {
    std::string text;
    for (const auto& n : recompute_names()) text += (text.empty() ? "" : ", ") + std::string(n.name);
    return text;
}

std::string_view to_string(Recompute recompute) noexcept {
    for (const auto& n : recompute_names())
        if (n.mode == recompute) return n.name;
    return "none";
}

std::optional<Recompute> parse_recompute(std::string_view text) noexcept {
    for (const auto& n : recompute_names())
        if (text == n.name) return n.mode;
    return std::nullopt;
}

Expected<Recompute> read_recompute(std::string_view text) {
    if (const auto mode = parse_recompute(text)) return *mode;
    return ValueError("recompute must be one of " + recompute_names_text() + ", got '" + std::string(text) + "'");
}

std::string_view recompute_words(Recompute recompute) noexcept {
    switch (recompute) {
        case Recompute::none: return "no recompute";
        case Recompute::selective: return "selective recompute";
        case Recompute::full: return "full recompute";
        case Recompute::core_attention: return "Megatron selective recompute";
        case Recompute::per_op: return "torchtitan selective recompute";
    }
    return "no recompute";
}

double logits_bytes_per_entry(LossLogits loss) noexcept {
    switch (loss) {
        case LossLogits::fused: return 4.0;
        case LossLogits::fp32_eager: return 12.0;
    }
    return 4.0;
}

bool recomputes_layers(Recompute recompute) noexcept {
    return recompute == Recompute::full || recompute == Recompute::per_op;
}

Expected<TrainingSpec> TrainingSpec::make(std::int64_t seq, std::int64_t micro_batch, std::int64_t grad_accum,
                                          Recompute recompute, bool fp8_dispatch) {
    for (const auto& [name, value] :
         {std::pair{"seq", seq}, std::pair{"micro_batch", micro_batch}, std::pair{"grad_accum", grad_accum}})
        if (value < 1) return ValueError(std::string(name) + " must be positive, got " + std::to_string(value) + ".");
    TrainingSpec spec;
    spec.seq = seq;
    spec.micro_batch = micro_batch;
    spec.grad_accum = grad_accum;
    spec.recompute = recompute;
    spec.fp8_dispatch = fp8_dispatch;
    return spec;
}

Expected<std::int64_t> grad_accum_for(const TrainingSpec& training, std::int64_t dp) {
    if (training.global_batch <= 0) return training.grad_accum;
    const std::int64_t per_pass = dp * training.micro_batch;
    const std::string what = "global batch of " + std::to_string(training.global_batch) + " sequences is ";
    const std::string product = " dp x micro-batch (" + std::to_string(dp) + " x " +
                                std::to_string(training.micro_batch) + " = " + std::to_string(per_pass) + ")";
    if (training.global_batch < per_pass) return ValueError(what + "smaller than" + product);
    if (training.global_batch % per_pass != 0) return ValueError(what + "not a multiple of" + product);
    return training.global_batch / per_pass;
}

}  // namespace meshscope::cost
