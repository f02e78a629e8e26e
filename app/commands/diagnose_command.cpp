// meshscope diagnose: a post-mortem of a job from its NCCL INFO logs, Flight Recorder dumps and NCCL RAS status,
// placed on a plan's meshes (core's records::diagnose), as text or meshscope.diagnosis/1 JSON. Exit 0 when the
// records were read (whatever they show), 2 for bad input: flags, a plan that cannot be read, or no record read.
#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.h"
#include "meshscope/plan_json.h"
#include "meshscope/plan_request.h"
#include "meshscope/records/diagnose.h"
#include "record_files.h"

namespace meshscope::app {

namespace {
constexpr const char* usage_hint =
    "hint: meshscope diagnose PATH... [--plan FILE | --dp D [--cp C] [--ep E]] [--format text|json]";

int usage_error(const std::string& message) {
    std::cerr << "meshscope diagnose: " << message << "\n" << usage_hint << "\n";
    return exit_usage;
}

Expected<Plan> plan_from_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error(ErrorType::value_error, path + ": cannot open the plan");
    std::stringstream text;
    text << in.rdbuf();
    nlohmann::json document;
    try {
        document = nlohmann::json::parse(text.str());
    } catch (const nlohmann::json::parse_error& e) {
        return Error(ErrorType::value_error,
                     path + " at byte " + std::to_string(e.byte > 0 ? e.byte - 1 : 0) + ": the plan is not valid JSON");
    }
    auto plan = plan_from_json(document);
    if (!plan) return Error(ErrorType::value_error, path + ": " + plan.error().message());
    return plan;
}
}  // namespace

int run_diagnose(int argc, char** argv) {
    CLI::App cli{"Read a job's NCCL INFO logs, Flight Recorder dumps and NCCL RAS status and place them on a plan.",
                 "meshscope diagnose"};
    std::vector<std::string> paths;
    std::string plan_file, dp_text, cp_text = "1", ep_text = "1", format = "text";
    cli.add_option("paths", paths, "files or directories (plain or gzip)")->required()->type_name("PATH...");
    auto* plan_opt = cli.add_option("--plan", plan_file, "a plan as `meshscope plan --format json` writes it");
    auto* dp_opt = cli.add_option("--dp", dp_text, "data-parallel size (world = dp * cp)")->type_name("INT");
    auto* cp_opt = cli.add_option("--cp", cp_text, "context-parallel size")->type_name("INT");
    auto* ep_opt = cli.add_option("--ep", ep_text, "expert-parallel size")->type_name("INT");
    plan_opt->excludes(dp_opt)->excludes(cp_opt)->excludes(ep_opt);
    cp_opt->needs(dp_opt);
    ep_opt->needs(dp_opt);
    cli.add_option("--format", format, "text or json (meshscope.diagnosis/1)")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();
    try {
        cli.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return cli.exit(e);
    } catch (const CLI::ParseError& e) {
        return usage_error(e.what());
    }

    std::optional<Plan> plan;
    if (!plan_file.empty()) {
        auto made = plan_from_file(plan_file);
        if (!made) return usage_error(made.error().message());
        plan.emplace(std::move(made).value());
    } else if (!dp_text.empty()) {
        PlanRequest request;
        std::int64_t dp = 0;
        for (const auto& [flag, text, value] :
             {std::tuple{"--dp", &dp_text, &dp}, std::tuple{"--cp", &cp_text, &request.cp},
              std::tuple{"--ep", &ep_text, &request.ep}})
            if (auto error = parse_plan_integer(flag, *text, *value)) return usage_error(*error);
        request.dp = dp;
        if (auto topology = make_topology(request); !topology) {
            std::cerr << topology.error().message() << "\n" << plan_advice(request, topology.error()).hint << "\n";
            return exit_usage;
        } else if (topology->world() > (1 << 20))
            return usage_error("a world of " + std::to_string(topology->world()) + " ranks is larger than 1048576");
        auto made = make_plan(request);
        if (!made) {
            std::cerr << made.error().message() << "\n" << plan_advice(request, made.error()).hint << "\n";
            return exit_usage;
        }
        plan.emplace(std::move(made).value());
    }

    records::RecordSet records;
    load_records(paths, records);
    for (const auto& problem : records.problems)
        std::cerr << "meshscope diagnose: " << records::printable(problem.message) << "\n";
    const bool any = !records.nccl.comm_lines.empty() || !records.dumps.empty() || !records.ras.empty();
    if (!any) {
        std::cerr << "meshscope diagnose: no NCCL init line, Flight Recorder dump or RAS status found in "
                  << paths.size() << (paths.size() == 1 ? " path" : " paths") << "\n"
                  << "hint: give NCCL_DEBUG=INFO logs, TORCH_FR_DUMP_TEMP_FILE dumps or `ncclras -f json` output\n";
        return exit_usage;
    }
    const auto diagnosis = records::diagnose(records, plan ? &*plan : nullptr);
    if (format == "json")
        std::cout << records::to_json(diagnosis, plan ? &*plan : nullptr)
                         .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                  << "\n";
    else
        std::cout << records::to_text(diagnosis);
    std::cout.flush();
    return std::cout ? exit_ok : exit_failure;
}

}  // namespace meshscope::app
