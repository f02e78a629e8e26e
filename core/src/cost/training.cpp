#include "meshscope/cost/training.h"

#include <string>

namespace meshscope::cost {

std::string_view to_string(Recompute recompute) noexcept {
    switch (recompute) {
        case Recompute::none: return "none";
        case Recompute::selective: return "selective";
        case Recompute::full: return "full";
    }
    return "none";
}

std::optional<Recompute> parse_recompute(std::string_view text) noexcept {
    for (Recompute r : {Recompute::none, Recompute::selective, Recompute::full})
        if (text == to_string(r)) return r;
    return std::nullopt;
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
