#include "meshscope/cost/cost_request.h"

#include <charconv>

#include "meshscope/cost/hf_config.h"
#include "meshscope/cost/presets.h"
#include "meshscope/mesh/plan_request.h"

namespace meshscope::cost {

namespace {
using Rejection = std::optional<CostRejection>;

CostRejection reject(CostField field, std::string message) {
    return {field, std::move(message)};
}

// A whole decimal integer of at least `least` (1, or 0 where 0 means the default).
Rejection read_count(CostField field, const std::string& text, std::int64_t least, std::int64_t& out) {
    const std::string name(to_string(field));
    if (auto error = parse_plan_integer(name, text, out)) return reject(field, *error);
    if (out >= least) return std::nullopt;
    return reject(field, name + (least == 1 ? " must be positive, got " : " must be at least 0, got ") + text + ".");
}

Expected<ModelSpec> read_model(const CostRequest& r) {
    if (!r.model_config.empty()) return load_hf_config(r.model_config);
    if (r.model.empty()) return ValueError("give model");
    return find_model_preset(r.model);
}

Rejection read_training(const CostRequest& r, TrainingSpec& out) {
    std::int64_t seq = 0, micro = 0, accum = 0, chunks = 0, global = 0;
    for (const auto& [field, text, value] :
         {std::tuple{CostField::seq, &r.seq, &seq}, std::tuple{CostField::micro_batch, &r.micro_batch, &micro},
          std::tuple{CostField::grad_accum, &r.grad_accum, &accum},
          std::tuple{CostField::loss_chunks, &r.loss_chunks, &chunks}})
        if (auto rejection = read_count(field, *text, 1, *value)) return rejection;
    if (auto rejection = read_count(CostField::global_batch, r.global_batch, 0, global)) return rejection;
    const auto recompute = read_recompute(r.recompute);
    if (!recompute) return reject(CostField::recompute, recompute.error().message());
    if (r.overlap_a2a != "0" && r.overlap_a2a != "1")
        return reject(CostField::overlap_a2a, "overlap_a2a must be 0 or 1, got '" + r.overlap_a2a + "'.");
    out = TrainingSpec::make(seq, micro, accum, *recompute).value();  // every count is checked positive above
    out.global_batch = global;
    out.loss_chunks = chunks;
    out.overlap_a2a = r.overlap_a2a == "1";
    return std::nullopt;
}

CostField field_of(Input input) {
    switch (input) {
        case Input::hardware: return CostField::hardware;
        case Input::network: return CostField::network;
        case Input::gpus_per_node: return CostField::gpus_per_node;
        default: return CostField::none;
    }
}

// The flat share of the peak replaces compute by shape (calibration 0).
Rejection read_efficiency(const std::string& text, ClusterSpec& cluster) {
    if (text.empty()) return std::nullopt;
    double e = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), e);
    if (error != std::errc() || end != text.data() + text.size() || !(e > 0.0 && e <= 1.0))
        return reject(CostField::efficiency, "efficiency must be a number in (0, 1], got '" + text + "'.");
    cluster.efficiency = e;
    cluster.calibration = 0;
    return std::nullopt;
}
}  // namespace

std::string_view to_string(CostField field) noexcept {
    switch (field) {
        case CostField::none: return "";
        case CostField::model: return "model";
        case CostField::model_config: return "model_config";
        case CostField::hardware: return "hardware";
        case CostField::network: return "network";
        case CostField::gpus_per_node: return "gpus_per_node";
        case CostField::seq: return "seq";
        case CostField::micro_batch: return "micro_batch";
        case CostField::grad_accum: return "grad_accum";
        case CostField::global_batch: return "global_batch";
        case CostField::recompute: return "recompute";
        case CostField::loss_chunks: return "loss_chunks";
        case CostField::overlap_a2a: return "overlap_a2a";
        case CostField::efficiency: return "efficiency";
    }
    return "";
}

CostAnswer cost_answer(const CostRequest& r) {
    auto model = read_model(r);
    if (!model)
        return {std::nullopt,
                reject(r.model_config.empty() ? CostField::model : CostField::model_config, model.error().message()),
                {}};
    TrainingSpec training;
    if (auto rejection = read_training(r, training)) return {std::nullopt, std::move(rejection), {}};
    auto made = make_cluster(r.hardware, r.network, r.gpus_per_node);
    if (!made) return {std::nullopt, reject(field_of(made.error().input()), made.error().message()), {}};
    auto cluster = std::move(made).value();
    if (auto rejection = read_efficiency(r.efficiency, cluster)) return {std::nullopt, std::move(rejection), {}};
    auto constants = use_cluster_profile(cluster, r.cluster_profile.get());
    return {CostInputs::make(std::move(model).value(), training, std::move(cluster)), std::nullopt,
            std::move(constants)};
}

}  // namespace meshscope::cost
