// meshscope plan: the same core functions the planners use, as text, as the plan JSON contract or as an export.
#include <CLI/CLI.hpp>

#include <iostream>

#include "commands.h"
#include "meshscope/plan.h"
#include "meshscope/plan_export.h"
#include "meshscope/plan_json.h"
#include "meshscope/plan_request.h"
#include "plan_text.h"

namespace meshscope::app {

namespace {
constexpr const char* usage_hint =
    "hint: meshscope plan (--dp D | --world W) [--cp C] [--ep E] [--gpus-per-node G] [--order torch29|torch28] "
    "[--format text|json|yaml|torchrun] [--no-groups] [--no-ranks]";

int usage_error(const std::string& message) {
    std::cerr << "meshscope plan: " << message << "\n" << usage_hint << "\n";
    return exit_usage;
}
}  // namespace

int run_plan(int argc, char** argv) {
    CLI::App cli{"Print the meshes, groups and placement of an FSDPTurbo (dp, cp, ep) layout.", "meshscope plan"};
    std::string dp_text, world_text, cp_text = "1", ep_text = "1", gpus_text = "8";
    std::string order_text = "torch29", format = "text";
    bool no_groups = false, no_ranks = false;
    auto* dp_opt = cli.add_option("--dp", dp_text, "data-parallel size (world = dp * cp)")->type_name("INT");
    auto* world_opt =
        cli.add_option("--world", world_text, "world size instead of --dp (dp = world / cp)")->type_name("INT");
    world_opt->excludes(dp_opt);
    dp_opt->excludes(world_opt);
    cli.add_option("--cp", cp_text, "context-parallel size")->type_name("INT")->capture_default_str();
    cli.add_option("--ep", ep_text, "expert-parallel size (dist_config ep_size)")
        ->type_name("INT")
        ->capture_default_str();
    cli.add_option("--gpus-per-node", gpus_text, "GPUs per node; ranks fill nodes consecutively")
        ->type_name("INT")
        ->capture_default_str();
    cli.add_option("--order", order_text, "group creation order: torch29 (PyTorch >= 2.9) or torch28")
        ->check(CLI::IsMember({"torch29", "torch28"}))
        ->capture_default_str();
    cli.add_option("--format", format, "text, json (meshscope.plan/1), yaml (LlamaFactory) or torchrun")
        ->check(CLI::IsMember({"text", "json", "yaml", "torchrun"}))
        ->capture_default_str();
    cli.add_flag("--no-groups", no_groups, "leave out the member lists of every group");
    cli.add_flag("--no-ranks", no_ranks, "leave out the per-rank table");

    try {
        cli.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return cli.exit(e);
    } catch (const CLI::ParseError& e) {
        return usage_error(e.what());
    }
    if (dp_opt->count() == 0 && world_opt->count() == 0) return usage_error("give --dp or --world");

    PlanRequest request;
    std::int64_t size = 0;
    const bool by_world = world_opt->count() > 0;
    if (auto error = parse_plan_integer(by_world ? "--world" : "--dp", by_world ? world_text : dp_text, size))
        return usage_error(*error);
    (by_world ? request.world : request.dp) = size;
    for (const auto& [flag, text, value] :
         {std::tuple{"--cp", &cp_text, &request.cp}, std::tuple{"--ep", &ep_text, &request.ep},
          std::tuple{"--gpus-per-node", &gpus_text, &request.gpus_per_node}})
        if (auto error = parse_plan_integer(flag, *text, *value)) return usage_error(*error);
    request.order = *parse_creation_order(order_text);

    const auto plan = make_plan(request);
    if (!plan) {
        std::cerr << plan.error().message() << "\n" << plan_advice(request, plan.error()).hint << "\n";
        return exit_usage;
    }
    std::ios::sync_with_stdio(false);
    // yaml and torchrun are the exports' bytes (core's writers, as the planners and the collector give them).
    if (format == "json")
        write_plan_json(std::cout, *plan, PlanJsonOptions{!no_groups, !no_ranks});
    else if (const auto export_format = parse_plan_export_format(format))
        write_plan_export(std::cout, *plan, *export_format);
    else
        write_plan_text(std::cout, *plan, PlanTextOptions{!no_groups, !no_ranks});
    std::cout.flush();
    return std::cout ? exit_ok : exit_failure;
}

}  // namespace meshscope::app
