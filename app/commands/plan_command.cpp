// meshscope plan: the same core functions the planners use, as text, as the plan JSON contract or as an export;
// with a model, the layout's memory and communication cost too.
#include <CLI/CLI.hpp>

#include <iostream>
#include <sstream>

#include "cli_support.h"
#include "commands.h"
#include "cost_text.h"
#include "meshscope/cost/advice.h"
#include "meshscope/cost/advice_json.h"
#include "meshscope/mesh/plan.h"
#include "meshscope/mesh/plan_export.h"
#include "meshscope/mesh/plan_json.h"
#include "meshscope/mesh/plan_request.h"
#include "model_options.h"
#include "plan_text.h"

namespace meshscope::app {

namespace {
constexpr const char* usage_hint =
    "hint: meshscope plan (--dp D | --world W) [--cp C] [--ep E] [--mp-replicate R [--mp-shard S]] "
    "[--gpus-per-node G] [--order torch29|torch28] [--format text|json|yaml|torchrun] [--no-groups] [--no-ranks]";

const Usage usage_error{"plan", usage_hint};

int model_error(const std::string& message) {
    std::cerr << "meshscope plan: " << message << "\n" << model_options_hint << "\n";
    return exit_usage;
}

// The plan document with a "cost" member before its closing brace (docs/plan-format.md).
void write_plan_json_with_cost(std::ostream& out, const Plan& plan, const cost::CostInputs& inputs,
                               const PlanJsonOptions& options) {
    std::ostringstream plan_json;
    write_plan_json(plan_json, plan, options);
    std::string text = std::move(plan_json).str();
    auto cost_json = cost::inputs_json(inputs);
    cost_json["layout"] = cost::layout_cost_json(cost::cost_plan(inputs, plan));
    text.resize(text.size() - 3);  // "\n}\n"
    out << text << ",\n  \"cost\": " << cost_json.dump() << "\n}\n";
}

// Everything `meshscope plan` reads from its command line.
struct PlanArguments {
    std::string dp_text, world_text, cp_text = "1", ep_text = "1", gpus_text = "8", replicate_text = "1", shard_text;
    std::string order_text = "torch29", format = "text";
    bool no_groups = false, no_ranks = false;
    ModelOptions model;  // with a model, the plan's memory and communication cost follow it
    CLI::Option* dp_option = nullptr;
    CLI::Option* world_option = nullptr;
};

void add_plan_options(CLI::App& cli, PlanArguments& a) {
    a.dp_option = cli.add_option("--dp", a.dp_text, "data-parallel size (world = dp * cp)")->type_name("INT");
    a.world_option =
        cli.add_option("--world", a.world_text, "world size instead of --dp (dp = world / cp)")->type_name("INT");
    a.world_option->excludes(a.dp_option);
    a.dp_option->excludes(a.world_option);
    cli.add_option("--cp", a.cp_text, "context-parallel size")->type_name("INT")->capture_default_str();
    cli.add_option("--ep", a.ep_text, "expert-parallel size (dist_config ep_size)")
        ->type_name("INT")
        ->capture_default_str();
    cli.add_option("--mp-replicate", a.replicate_text, "LlamaFactory's model mesh: mp_replicate_size")
        ->type_name("INT")
        ->capture_default_str();
    cli.add_option("--mp-shard", a.shard_text,
                   "LlamaFactory's model mesh: mp_shard_size (default world / mp_replicate)")
        ->type_name("INT");
    cli.add_option("--gpus-per-node", a.gpus_text, "GPUs per node; ranks fill nodes consecutively")
        ->type_name("INT")
        ->capture_default_str();
    cli.add_option("--order", a.order_text, "group creation order: torch29 (PyTorch >= 2.9) or torch28")
        ->check(CLI::IsMember({"torch29", "torch28"}))
        ->capture_default_str();
    cli.add_option("--format", a.format, "text, json (meshscope.plan/1), yaml (LlamaFactory) or torchrun")
        ->check(CLI::IsMember({"text", "json", "yaml", "torchrun"}))
        ->capture_default_str();
    cli.add_flag("--no-groups", a.no_groups, "leave out the member lists of every group");
    cli.add_flag("--no-ranks", a.no_ranks, "leave out the per-rank table");
    a.model.add_to(cli);
}

// The flags as a PlanRequest: --dp or --world given, every size a whole number, a model's flags only with a model.
std::optional<int> validate_plan(const CLI::App& cli, const PlanArguments& a, PlanRequest& request) {
    if (a.dp_option->count() == 0 && a.world_option->count() == 0) return usage_error("give --dp or --world");
    if (auto orphan = a.model.orphan(cli)) return model_error(*orphan);
    std::int64_t size = 0;
    const bool by_world = a.world_option->count() > 0;
    if (auto error = parse_plan_integer(by_world ? "--world" : "--dp", by_world ? a.world_text : a.dp_text, size))
        return usage_error(*error);
    (by_world ? request.world : request.dp) = size;
    for (const auto& [flag, text, value] :
         {std::tuple{"--cp", &a.cp_text, &request.cp}, std::tuple{"--ep", &a.ep_text, &request.ep},
          std::tuple{"--mp-replicate", &a.replicate_text, &request.mp_replicate},
          std::tuple{"--gpus-per-node", &a.gpus_text, &request.gpus_per_node}})
        if (auto error = parse_plan_integer(flag, *text, *value)) return usage_error(*error);
    if (!a.shard_text.empty()) {
        std::int64_t shard = 0;
        if (auto error = parse_plan_integer("--mp-shard", a.shard_text, shard)) return usage_error(*error);
        request.mp_shard = shard;
    }
    request.order = *parse_creation_order(a.order_text);
    return std::nullopt;
}

// The plan in the chosen format, with its cost when a model is given; core's rejection and hint when the layout is
// not one FSDPTurbo builds.
int write_plan(const PlanArguments& a, const PlanRequest& request) {
    const auto answer = plan_answer(request);
    if (answer.rejection) {
        std::cerr << answer.rejection->error.message() << "\n" << answer.rejection->advice.hint << "\n";
        return exit_usage;
    }
    const auto& plan = answer.plan;
    std::optional<cost::CostInputs> inputs;
    if (a.model.requested()) {
        auto made = a.model.make_inputs(request.gpus_per_node);
        if (!made) return model_error(made.error().message());
        if (auto problem = cost::layout_problem(made->model, plan->topology())) return model_error(*problem);
        inputs = std::move(made).value();
    }
    std::ios::sync_with_stdio(false);
    const PlanJsonOptions json_options{!a.no_groups, !a.no_ranks};
    // yaml and torchrun are the exports' bytes (core's writers, as the planners and the collector give them).
    if (a.format == "json" && inputs) {
        write_plan_json_with_cost(std::cout, *plan, *inputs, json_options);
    } else if (a.format == "json") {
        write_plan_json(std::cout, *plan, json_options);
    } else if (const auto export_format = parse_plan_export_format(a.format)) {
        write_plan_export(std::cout, *plan, *export_format);
    } else {
        write_plan_text(std::cout, *plan, PlanTextOptions{!a.no_groups, !a.no_ranks});
        if (inputs) {
            std::cout << "\ncost\n";
            write_inputs_text(std::cout, *inputs);
            write_layout_cost_text(std::cout, cost::cost_plan(*inputs, *plan));
        }
    }
    std::cout.flush();
    return std::cout ? exit_ok : exit_failure;
}
}  // namespace

int run_plan(int argc, char** argv) {
    CLI::App cli{"Print the meshes, groups and placement of a LlamaFactory FSDPTurbo (dp, cp, ep) layout.",
                 "meshscope plan"};
    PlanArguments a;
    add_plan_options(cli, a);
    if (const auto status = parse_or_usage(cli, argc, argv, usage_error)) return *status;
    PlanRequest request;
    if (const auto failed = validate_plan(cli, a, request)) return *failed;
    return write_plan(a, request);
}

}  // namespace meshscope::app
