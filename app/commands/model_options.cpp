#include "model_options.h"

#include <charconv>

#include "meshscope/cost/cluster.h"
#include "meshscope/cost/training.h"

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
                   "(docs/cost-model-memory.md, \"Recomputation by framework\")")
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

cost::CostRequest ModelOptions::request(std::int64_t gpus_per_node) const {
    cost::CostRequest r;
    if (config_option->count() > 0)
        r.model_config = model_config;
    else
        r.model = model;
    r.hardware = hardware;
    r.network = network;
    r.gpus_per_node = gpus_per_node;
    r.seq = seq;
    r.micro_batch = micro_batch;
    r.grad_accum = grad_accum;
    r.recompute = recompute;
    r.loss_chunks = loss_chunks;
    r.overlap_a2a = overlap_a2a ? "1" : "0";
    r.efficiency = efficiency;
    return r;
}

Expected<cost::CostInputs> ModelOptions::make_inputs(std::int64_t gpus_per_node) const {
    auto answer = cost::cost_answer(request(gpus_per_node));
    if (answer.rejection) return ValueError(answer.rejection->message);
    return std::move(*answer.inputs);
}

}  // namespace meshscope::app
