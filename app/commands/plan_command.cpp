// meshscope plan: the same core functions the planner uses, as text or as the plan JSON contract.
#include <CLI/CLI.hpp>

#include <iostream>
#include <optional>
#include <sstream>

#include "commands.h"
#include "meshscope/plan.h"
#include "meshscope/plan_json.h"
#include "plan_text.h"

namespace meshscope::app {

namespace {
std::string join(const std::vector<std::int64_t>& values) {
    std::ostringstream out;
    for (std::size_t i = 0; i < values.size(); ++i) out << (i ? ", " : "") << values[i];
    return out.str();
}

// A second line after the exact message: what the user could type instead.
std::string hint_for(std::int64_t world, std::int64_t dp, std::int64_t cp, const Error& error) {
    const std::string message = error.message();
    if (message.rfind("dp_size must be divisible by ep_size", 0) == 0)
        return "hint: ep must divide dp = " + std::to_string(dp) + "; valid ep: " + join(valid_ep_sizes(dp));
    if (message.rfind("world_size (", 0) == 0 && message.find("cp_size") != std::string::npos)
        return "hint: cp must divide world = " + std::to_string(world) + "; valid cp: " + join(valid_cp_sizes(world));
    if (message.rfind("gpus_per_node", 0) == 0) return "hint: --gpus-per-node is a positive integer (8 on H100/H200 nodes)";
    (void)cp;
    return "hint: dp (or world), cp and ep are positive integers, and ep must divide dp";
}
}  // namespace

int run_plan(int argc, char** argv) {
    CLI::App cli{"Print the meshes, groups and placement of an FSDPTurbo (dp, cp, ep) layout.", "meshscope plan"};
    std::optional<std::int64_t> dp, world;
    std::int64_t cp = 1, ep = 1, gpus_per_node = 8;
    std::string order_text = "torch29", format = "text";
    bool no_groups = false, no_ranks = false;
    auto* dp_opt = cli.add_option("--dp", dp, "data-parallel size (world = dp * cp)");
    cli.add_option("--world", world, "world size instead of --dp (dp = world / cp)")->excludes(dp_opt);
    cli.add_option("--cp", cp, "context-parallel size")->capture_default_str();
    cli.add_option("--ep", ep, "expert-parallel size (dist_config ep_size)")->capture_default_str();
    cli.add_option("--gpus-per-node", gpus_per_node, "GPUs per node; ranks fill nodes consecutively")
        ->capture_default_str();
    cli.add_option("--order", order_text, "group creation order: torch29 (PyTorch >= 2.9) or torch28")
        ->check(CLI::IsMember({"torch29", "torch28"}))
        ->capture_default_str();
    cli.add_option("--format", format, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
    cli.add_flag("--no-groups", no_groups, "leave out the member lists of every group");
    cli.add_flag("--no-ranks", no_ranks, "leave out the per-rank table");

    try {
        cli.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return cli.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "meshscope plan: " << e.what() << "\nRun 'meshscope plan --help' for usage.\n";
        return exit_usage;
    }
    if (!dp && !world) {
        std::cerr << "meshscope plan: give --dp or --world\nRun 'meshscope plan --help' for usage.\n";
        return exit_usage;
    }

    const auto topology = world ? Topology::from_world(*world, cp, ep) : Topology::make(*dp, cp, ep);
    const std::int64_t shown_world = world ? *world : *dp * cp;
    const std::int64_t shown_dp = world ? (cp > 0 ? *world / cp : 0) : *dp;
    if (!topology) {
        std::cerr << topology.error().message() << "\n" << hint_for(shown_world, shown_dp, cp, topology.error()) << "\n";
        return exit_usage;
    }
    const auto plan = Plan::make(*topology, gpus_per_node, *parse_creation_order(order_text));
    if (!plan) {
        std::cerr << plan.error().message() << "\n" << hint_for(shown_world, shown_dp, cp, plan.error()) << "\n";
        return exit_usage;
    }
    std::ios::sync_with_stdio(false);
    if (format == "json")
        write_plan_json(std::cout, *plan, PlanJsonOptions{!no_groups, !no_ranks});
    else
        write_plan_text(std::cout, *plan, PlanTextOptions{!no_groups, !no_ranks});
    std::cout.flush();
    return std::cout ? exit_ok : exit_failure;
}

}  // namespace meshscope::app
