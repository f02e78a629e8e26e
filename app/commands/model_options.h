// The model, training and cluster options `meshscope advise` and `meshscope plan` share, and the cost inputs
// they make (docs/cost-model.md).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "meshscope/cost/cost_request.h"
#include "meshscope/mesh/error.h"

namespace meshscope::app {

// The second line of a model option's error in `meshscope plan`.
inline constexpr const char* model_options_hint =
    "hint: the plan's cost needs --model NAME | --model-config FILE, and takes [--hardware NAME] "
    "[--network ndr|hdr] [--seq S] [--micro-batch B] [--grad-accum M] [--recompute none|selective|full] "
    "[--efficiency E] [--overlap-a2a]";

struct ModelOptions {
    std::string model, model_config;
    std::string hardware = "h100", network = "ndr";
    std::string seq = "4096", micro_batch = "1", grad_accum = "1";
    std::string recompute = "selective";
    std::string loss_chunks = "1";
    std::string efficiency;  // empty: the hardware's own
    bool overlap_a2a = false;
    CLI::Option* model_option = nullptr;
    CLI::Option* config_option = nullptr;

    // --model NAME | --model-config FILE, --hardware, --network, --seq, --micro-batch, --grad-accum, --recompute,
    // --loss-chunks, --efficiency, --overlap-a2a.
    void add_to(CLI::App& cli);
    [[nodiscard]] bool requested() const { return model_option->count() + config_option->count() > 0; }
    // Any option of the group given without --model or --model-config: plan's cost needs a model.
    [[nodiscard]] std::optional<std::string> orphan(const CLI::App& cli) const;
    // The options as core's CostRequest, which judges them (docs/cost-model.md, "Cost inputs").
    [[nodiscard]] cost::CostRequest request(std::int64_t gpus_per_node) const;
    // The inputs, or the exact message of the first bad value.
    [[nodiscard]] Expected<cost::CostInputs> make_inputs(std::int64_t gpus_per_node) const;
};

// Whole decimal integers only: CLI11 2.1 would saturate "99999999999999999999" to INT64_MAX silently.
// "--seq expects an integer, got 'x'." / "--seq is out of range, got '...'."
[[nodiscard]] std::optional<std::string> parse_int_option(const std::string& flag, const std::string& text,
                                                          std::int64_t& out);

}  // namespace meshscope::app
