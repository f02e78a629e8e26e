// meshscope advise: every valid (dp, cp, ep) of a world for one model at one global batch, ranked by step time
// (compute plus exposed communication) among those that fit, the others with their reason (docs/cost-model.md).
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli_support.h"
#include "commands.h"
#include "cost_text.h"
#include "meshscope/cost/advice_json.h"
#include "meshscope/cost/cluster_profile.h"
#include "model_options.h"

namespace meshscope::app {

namespace {
constexpr const char* usage_hint =
    "hint: meshscope advise (--model NAME | --model-config FILE) --world N [--gpus-per-node G] [--hardware NAME] "
    "[--network ndr|hdr] [--seq S] [--micro-batch B] [--global-batch N | --global-batch-tokens T | --grad-accum M] "
    "[--recompute none|selective|full] [--efficiency E | --cluster-profile FILE] [--overlap-a2a] [--show K] "
    "[--format text|json]";

const Usage usage_error{"advise", usage_hint};

}  // namespace

// long: its option declarations, the cluster profile, their checks and the output in one function; not yet split into
// arguments + add_advise_options + validate + run
int run_advise(int argc, char** argv) {
    CLI::App cli{
        "Rank every (dp, cp, ep) layout of a world for one model at one global batch by step time among those "
        "that fit.",
        "meshscope advise"};
    ModelOptions model;
    model.add_to(cli);
    std::string world_text, gpus_text, show_text = "10", format = "text";
    auto* world_opt = cli.add_option("--world", world_text, "world size (GPUs)")->type_name("INT");
    std::string global_text, global_tokens_text;
    auto* global_opt =
        cli.add_option("--global-batch", global_text,
                       "sequences per optimizer step, the same on every layout (default, or 0: world x micro-batch x "
                       "grad-accum)")
            ->type_name("N");
    auto* global_tokens_opt =
        cli.add_option("--global-batch-tokens", global_tokens_text, "tokens per optimizer step (a multiple of --seq)")
            ->type_name("T");
    global_opt->excludes(global_tokens_opt);
    global_tokens_opt->excludes(global_opt);
    for (auto* fixed : {global_opt, global_tokens_opt}) {
        fixed->excludes(cli.get_option("--grad-accum"));
        cli.get_option("--grad-accum")->excludes(fixed);
    }
    auto* gpus_opt =
        cli.add_option(
               "--gpus-per-node", gpus_text,
               "GPUs per node (default: the hardware's, 8; gb200 keeps its 72-GPU NVLink domain whatever is given)")
            ->type_name("INT");
    cli.add_option("--show", show_text, "how many ranked layouts to list")->type_name("K")->capture_default_str();
    cli.add_option("--format", format, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
    std::string profile_path;
    auto* profile_opt = cli.add_option("--cluster-profile", profile_path,
                                       "the constants `meshscope calibrate` fitted on your cluster (its hardware, "
                                       "network and node size unless given)")
                            ->type_name("FILE");
    profile_opt->excludes(cli.get_option("--efficiency"));
    cli.get_option("--efficiency")->excludes(profile_opt);
    if (const auto status = parse_or_usage(cli, argc, argv, usage_error)) return *status;
    if (!model.requested()) return usage_error("give --model or --model-config");
    if (world_opt->count() == 0) return usage_error("give --world");

    std::int64_t world = 0, gpus_per_node = 0, show = 0;
    if (auto error = parse_int_option("--world", world_text, world)) return usage_error(*error);
    if (world < 1) return usage_error("world_size must be positive, got " + std::to_string(world) + ".");
    if (gpus_opt->count() > 0) {
        if (auto error = parse_int_option("--gpus-per-node", gpus_text, gpus_per_node)) return usage_error(*error);
        if (gpus_per_node < 1)
            return usage_error("gpus_per_node must be positive, got " + std::to_string(gpus_per_node) + ".");
    }
    if (auto error = parse_int_option("--show", show_text, show)) return usage_error(*error);
    if (show < 0) return usage_error("--show must not be negative, got " + show_text + ".");

    std::shared_ptr<const cost::LoadedClusterProfile> profile;
    if (profile_opt->count() > 0) {
        auto loaded = cost::load_cluster_profile(profile_path);
        if (!loaded) return usage_error(loaded.error().message());
        profile = std::make_shared<const cost::LoadedClusterProfile>(
            cost::LoadedClusterProfile{profile_path, std::move(loaded).value()});
        // The profile describes its cluster: its hardware, network and node size unless the command line says.
        if (cli.get_option("--hardware")->count() == 0) model.hardware = profile->profile.hardware;
        if (cli.get_option("--network")->count() == 0) model.network = profile->profile.network;
        if (gpus_opt->count() == 0) gpus_per_node = profile->profile.gpus_per_node;
    }
    auto request = model.request(gpus_per_node);
    if (global_opt->count() > 0) request.global_batch = global_text;
    request.cluster_profile = profile;
    auto answer = cost::cost_answer(request);
    if (answer.rejection) return usage_error(answer.rejection->message);
    // The Planners go on with the presets on another GPU; asked for by name here, the profile must apply.
    if (!answer.constants.note.empty()) return usage_error(profile_path + ": " + answer.constants.note);
    auto inputs = std::move(*answer.inputs);
    if (global_tokens_opt->count() > 0) {
        std::int64_t tokens = 0;
        if (auto error = parse_int_option("--global-batch-tokens", global_tokens_text, tokens))
            return usage_error(*error);
        if (tokens < 1) return usage_error("--global-batch-tokens must be positive, got " + global_tokens_text + ".");
        const std::int64_t seq = inputs.training.seq;
        if (tokens % seq != 0)
            return usage_error("--global-batch-tokens " + global_tokens_text + " is not a multiple of --seq " +
                               std::to_string(seq) + ".");
        inputs.training.global_batch = tokens / seq;
    }
    // The knobs the command line leaves free are the advisor's to choose per layout (docs/cost-model.md, "Knobs").
    cost::KnobSearch search;
    search.micro_batch = cli.get_option("--micro-batch")->count() == 0;
    search.recompute = cli.get_option("--recompute")->count() == 0;
    const auto advice = cost::advise(inputs, world, search);
    if (!advice) return usage_error(advice.error().message());

    std::ios::sync_with_stdio(false);
    if (format == "json") {
        auto doc = cost::advice_json(inputs, *advice, static_cast<std::size_t>(show));
        if (profile) doc["cluster_profile"] = cost::cluster_constants_json(answer.constants);
        std::cout << doc.dump(2) << "\n";
    } else {
        if (profile)
            std::cout << "cluster profile: " << profile_path << ": " << cost::profile_constants_text(profile->profile)
                      << "\n";
        write_advice_text(std::cout, inputs, *advice, static_cast<std::size_t>(show));
    }
    std::cout.flush();
    return std::cout ? exit_ok : exit_failure;
}

}  // namespace meshscope::app
