#include "model_options.h"

#include <charconv>

#include "meshscope/cost/cluster.h"
#include "meshscope/cost/hf_config.h"
#include "meshscope/cost/presets.h"

namespace meshscope::app {

namespace {
const char* const model_flags[] = {"--hardware",  "--network",     "--seq",        "--micro-batch", "--grad-accum",
                                   "--recompute", "--loss-chunks", "--efficiency", "--overlap-a2a"};
}

std::optional<std::string> parse_int_option(const std::string& flag, const std::string& text, std::int64_t& out) {
    const char* first = text.data();
    const char* last = text.data() + text.size();
    if (first != last && *first == '+') ++first;
    const auto [end, error] = std::from_chars(first, last, out);
    if (error == std::errc::result_out_of_range) return flag + " is out of range, got '" + text + "'.";
    if (error != std::errc() || end != last || first == last) return flag + " expects an integer, got '" + text + "'.";
    return std::nullopt;
}

void ModelOptions::add_to(CLI::App& cli) {
    model_option =
        cli.add_option("--model", model, "model preset: qwen3-30b-a3b, qwen3-235b-a22b, deepseek-v3, mixtral-8x7b")
            ->type_name("NAME");
    config_option = cli.add_option("--model-config", model_config, "a Hugging Face config.json instead of --model")
                        ->type_name("FILE");
    model_option->excludes(config_option);
    config_option->excludes(model_option);
    cli.add_option("--hardware", hardware, "GPU: " + cost::hardware_names())->type_name("NAME")->capture_default_str();
    cli.add_option("--network", network, "inter-node network: ndr or hdr")->type_name("NAME")->capture_default_str();
    cli.add_option("--seq", seq, "tokens per sequence")->type_name("INT")->capture_default_str();
    cli.add_option("--micro-batch", micro_batch, "sequences per micro-batch per rank")
        ->type_name("INT")
        ->capture_default_str();
    cli.add_option("--grad-accum", grad_accum, "micro-batches per optimizer step")
        ->type_name("INT")
        ->capture_default_str();
    std::vector<std::string> recompute_names;
    for (const auto& n : cost::recompute_names()) recompute_names.emplace_back(n.name);
    cli.add_option("--recompute", recompute,
                   "activation recomputation: none, selective or full, or a framework's own mode "
                   "(docs/cost-model.md, \"Recomputation by framework\")")
        ->check(CLI::IsMember(recompute_names))
        ->capture_default_str();
    cli.add_option("--loss-chunks", loss_chunks,
                   "the loss computed over N chunks of the tokens, one chunk's logits held at a time "
                   "(torchtitan's ChunkedLossWrapper: 8)")
        ->type_name("N")
        ->capture_default_str();
    cli.add_option("--efficiency", efficiency,
                   "one share of the GPU's dense bf16 peak for every FLOP, in (0, 1] (default: each GEMM's "
                   "share by its shape x the hardware's calibration)")
        ->type_name("E");
    cli.add_flag("--overlap-a2a", overlap_a2a, "the ep all-to-all runs behind compute (DeepEP-style overlap)");
}

std::optional<std::string> ModelOptions::orphan(const CLI::App& cli) const {
    if (requested()) return std::nullopt;
    for (const char* flag : model_flags)
        if (cli.count(flag) > 0) return std::string(flag) + " needs --model or --model-config";
    return std::nullopt;
}

Expected<cost::CostInputs> ModelOptions::make_inputs(std::int64_t gpus_per_node) const {
    auto spec = config_option->count() > 0 ? cost::load_hf_config(model_config) : cost::find_model_preset(model);
    if (!spec) return spec.error();
    std::int64_t s = 0, b = 0, m = 0, chunks = 0;
    for (const auto& [flag, text, value] :
         {std::tuple{"--seq", &seq, &s}, std::tuple{"--micro-batch", &micro_batch, &b},
          std::tuple{"--grad-accum", &grad_accum, &m}, std::tuple{"--loss-chunks", &loss_chunks, &chunks}}) {
        if (auto error = parse_int_option(flag, *text, *value)) return ValueError(*error);
        if (*value < 1) return ValueError(std::string(flag) + " must be positive, got " + *text + ".");
    }
    auto made_training = cost::TrainingSpec::make(s, b, m, *cost::parse_recompute(recompute));
    if (!made_training) return made_training.error();
    auto training = std::move(made_training).value();
    training.overlap_a2a = overlap_a2a;
    training.loss_chunks = chunks;
    auto made_cluster = cost::make_cluster(hardware, network, gpus_per_node);
    if (!made_cluster) return made_cluster.error();
    auto cluster = std::move(made_cluster).value();
    if (!efficiency.empty()) {
        double e = 0;
        const char* first = efficiency.data();
        const char* last = first + efficiency.size();
        const auto [end, error] = std::from_chars(first, last, e);
        if (error != std::errc() || end != last || !(e > 0.0 && e <= 1.0))
            return ValueError("--efficiency must be a number in (0, 1], got '" + efficiency + "'.");
        cluster.efficiency = e;
        cluster.calibration = 0;  // one flat share for all compute instead of the kernel curves
    }
    return cost::CostInputs::make(std::move(spec).value(), training, std::move(cluster));
}

}  // namespace meshscope::app
