// meshscope plan: the same core functions the planner uses, as text or as the plan JSON contract.
#include <CLI/CLI.hpp>

#include <charconv>
#include <iostream>
#include <optional>
#include <sstream>

#include "commands.h"
#include "cost_text.h"
#include "meshscope/cost/advice.h"
#include "meshscope/cost/advice_json.h"
#include "meshscope/plan.h"
#include "meshscope/plan_json.h"
#include "model_options.h"
#include "plan_text.h"

namespace meshscope::app {

namespace {
constexpr const char* usage_hint =
    "hint: meshscope plan (--dp D | --world W) [--cp C] [--ep E] [--mp-replicate R [--mp-shard S]] "
    "[--gpus-per-node G] [--order torch29|torch28] [--format text|json] [--no-groups] [--no-ranks]";

std::string join(const std::vector<std::int64_t>& values) {
    std::ostringstream out;
    for (std::size_t i = 0; i < values.size(); ++i) out << (i ? ", " : "") << values[i];
    return out.str();
}

// A second line after the exact message: what the user could type instead.
std::string hint_for(std::int64_t world, std::int64_t dp, const Error& error) {
    const std::string message = error.message();
    const bool ep_error = message.rfind("dp_size must be divisible by ep_size", 0) == 0 ||
                          message.rfind("ep_size must be positive", 0) == 0;
    if (ep_error && dp > 0)
        return "hint: ep must divide dp = " + std::to_string(dp) + "; valid ep: " + join(valid_ep_sizes(dp));
    if (message.rfind("world_size (", 0) == 0 && message.find("cp_size") != std::string::npos)
        return "hint: cp must divide world = " + std::to_string(world) + "; valid cp: " + join(valid_cp_sizes(world));
    if (message.rfind("cp_size must be positive", 0) == 0 && world > 0)
        return "hint: cp must divide world = " + std::to_string(world) + "; valid cp: " + join(valid_cp_sizes(world));
    if (message.find("mp_replicate_size") != std::string::npos && world > 0)
        return "hint: mp_replicate must divide world = " + std::to_string(world) +
               " (valid: " + join(valid_cp_sizes(world)) + ") and mp_shard, if given, must be world / mp_replicate";
    if (message.rfind("gpus_per_node", 0) == 0)
        return "hint: --gpus-per-node is a positive integer (8 on H100/H200 nodes)";
    if (message.find("exceeds the supported maximum") != std::string::npos)
        return "hint: the largest world meshscope plans is " + std::to_string(max_world_size) + " ranks";
    return "hint: dp (or world), cp and ep are positive integers, and ep must divide dp";
}

// Whole decimal integers only: CLI11 2.1 would saturate "99999999999999999999" to INT64_MAX silently.
std::optional<std::string> parse_int(const std::string& flag, const std::string& text, std::int64_t& out) {
    const char* first = text.data();
    const char* last = text.data() + text.size();
    if (first != last && *first == '+') ++first;
    const auto [end, error] = std::from_chars(first, last, out);
    if (error == std::errc::result_out_of_range) return flag + " is out of range, got '" + text + "'.";
    if (error != std::errc() || end != last || first == last) return flag + " expects an integer, got '" + text + "'.";
    return std::nullopt;
}

int usage_error(const std::string& message) {
    std::cerr << "meshscope plan: " << message << "\n" << usage_hint << "\n";
    return exit_usage;
}

// The model options' errors name the options that cost the plan.
int model_error(const std::string& message) {
    std::cerr << "meshscope plan: " << message << "\n" << model_options_hint << "\n";
    return exit_usage;
}
}  // namespace

int run_plan(int argc, char** argv) {
    CLI::App cli{"Print the meshes, groups and placement of a LlamaFactory FSDPTurbo (dp, cp, ep) layout.",
                 "meshscope plan"};
    std::string dp_text, world_text, cp_text = "1", ep_text = "1", gpus_text = "8", replicate_text = "1", shard_text;
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
    cli.add_option("--mp-replicate", replicate_text, "LlamaFactory's model mesh: mp_replicate_size")
        ->type_name("INT")
        ->capture_default_str();
    cli.add_option("--mp-shard", shard_text, "LlamaFactory's model mesh: mp_shard_size (default world / mp_replicate)")
        ->type_name("INT");
    cli.add_option("--gpus-per-node", gpus_text, "GPUs per node; ranks fill nodes consecutively")
        ->type_name("INT")
        ->capture_default_str();
    cli.add_option("--order", order_text, "group creation order: torch29 (PyTorch >= 2.9) or torch28")
        ->check(CLI::IsMember({"torch29", "torch28"}))
        ->capture_default_str();
    cli.add_option("--format", format, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
    cli.add_flag("--no-groups", no_groups, "leave out the member lists of every group");
    cli.add_flag("--no-ranks", no_ranks, "leave out the per-rank table");
    ModelOptions model;  // with a model, the plan's memory and communication cost follow it
    model.add_to(cli);

    try {
        cli.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return cli.exit(e);
    } catch (const CLI::ParseError& e) {
        return usage_error(e.what());
    }
    if (dp_opt->count() == 0 && world_opt->count() == 0) return usage_error("give --dp or --world");
    if (auto orphan = model.orphan(cli)) return model_error(*orphan);

    std::int64_t dp = 0, world = 0, cp = 1, ep = 1, gpus_per_node = 8, mp_replicate = 1, mp_shard = 0;
    const bool by_world = world_opt->count() > 0;
    for (const auto& [flag, text, value] :
         {std::tuple{"--dp", &dp_text, &dp}, std::tuple{"--world", &world_text, &world},
          std::tuple{"--cp", &cp_text, &cp}, std::tuple{"--ep", &ep_text, &ep},
          std::tuple{"--mp-replicate", &replicate_text, &mp_replicate},
          std::tuple{"--mp-shard", &shard_text, &mp_shard},
          std::tuple{"--gpus-per-node", &gpus_text, &gpus_per_node}}) {
        if (std::string_view(flag) == (by_world ? "--dp" : "--world")) continue;
        if (std::string_view(flag) == "--mp-shard" && shard_text.empty()) continue;
        if (auto error = parse_int(flag, *text, *value)) return usage_error(*error);
    }

    ModelMeshSizes model{mp_replicate, std::nullopt};
    if (!shard_text.empty()) model.mp_shard = mp_shard;
    const auto topology = by_world ? Topology::from_world(world, cp, ep, model) : Topology::make(dp, cp, ep, model);
    // For the hint: the dp and world the user meant, where they can be known.
    const std::int64_t shown_world = by_world ? world : (cp > 0 && dp <= max_world_size / cp ? dp * cp : 0);
    const std::int64_t shown_dp = by_world ? (cp > 0 ? world / cp : 0) : dp;
    if (!topology) {
        std::cerr << topology.error().message() << "\n" << hint_for(shown_world, shown_dp, topology.error()) << "\n";
        return exit_usage;
    }
    const auto plan = Plan::make(*topology, gpus_per_node, *parse_creation_order(order_text));
    if (!plan) {
        std::cerr << plan.error().message() << "\n" << hint_for(shown_world, shown_dp, plan.error()) << "\n";
        return exit_usage;
    }
    std::optional<cost::CostInputs> inputs;
    if (model.requested()) {
        auto made = model.make_inputs(gpus_per_node);
        if (!made) return model_error(made.error().message());
        if (auto problem = cost::layout_problem(made->model, *topology)) return model_error(*problem);
        inputs = std::move(made).value();
    }
    std::ios::sync_with_stdio(false);
    if (format == "json" && inputs) {
        // The plan document with a "cost" member before its closing brace (docs/plan-format.md).
        std::ostringstream plan_json;
        write_plan_json(plan_json, *plan, PlanJsonOptions{!no_groups, !no_ranks});
        std::string text = std::move(plan_json).str();
        auto cost_json = cost::inputs_json(*inputs);
        cost_json["layout"] = cost::layout_cost_json(cost::cost_plan(*inputs, *plan));
        text.resize(text.size() - 3);  // "\n}\n"
        std::cout << text << ",\n  \"cost\": " << cost_json.dump() << "\n}\n";
    } else if (format == "json") {
        write_plan_json(std::cout, *plan, PlanJsonOptions{!no_groups, !no_ranks});
    } else {
        write_plan_text(std::cout, *plan, PlanTextOptions{!no_groups, !no_ranks});
        if (inputs) {
            std::cout << "\ncost\n";
            write_inputs_text(std::cout, *inputs);
            write_layout_cost_text(std::cout, cost::cost_plan(*inputs, *plan));
        }
    }
    std::cout.flush();
    return std::cout ? exit_ok : exit_failure;
}

}  // namespace meshscope::app
