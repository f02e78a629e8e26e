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

}  // namespace meshscope::cost
