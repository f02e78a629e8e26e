// meshscope diagnose: a post-mortem of a job from its NCCL INFO logs, Flight Recorder dumps and NCCL RAS status,
// placed on a plan's meshes (core's records::diagnose), as text or meshscope.diagnosis/1 JSON. Exit 0 when the
// records were read (whatever they show), 2 for bad input: flags, a plan that cannot be read, or no record read.
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli_support.h"
#include "commands.h"
#include "meshscope/records/diagnose.h"
#include "meshscope/records/trace.h"
#include "record_files.h"

namespace meshscope::app {

namespace {
constexpr const char* usage_hint =
    "hint: meshscope diagnose PATH... [--plan FILE | --dp D [--cp C] [--ep E]] [--format text|json] [--trace FILE]";

const Usage usage_error{"diagnose", usage_hint};

}  // namespace

int run_diagnose(int argc, char** argv) {
    CLI::App cli{"Read a job's NCCL INFO logs, Flight Recorder dumps and NCCL RAS status and place them on a plan.",
                 "meshscope diagnose"};
    std::vector<std::string> paths;
    std::string format = "text", trace_file;
    cli.add_option("paths", paths, "files or directories (plain or gzip)")->required()->type_name("PATH...");
    PlanOptions plan_options;
    plan_options.add_to(cli);
    cli.add_option("--format", format, "text or json (meshscope.diagnosis/1)")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();
    cli.add_option("--trace", trace_file,
                   "also write the collectives' timeline across ranks to FILE (Chrome Trace Event Format JSON: "
                   "Perfetto UI, chrome://tracing)")
        ->type_name("FILE");
    if (const auto status = parse_or_usage(cli, argc, argv, usage_error)) return *status;

    std::optional<Plan> plan;
    if (const auto failed = plan_from_options("diagnose", usage_hint, plan_options, plan)) return *failed;

    // The trace file is opened before the records are read: a path that cannot be written fails at once.
    std::ofstream trace;
    if (!trace_file.empty()) {
        trace.open(trace_file, std::ios::binary | std::ios::trunc);
        if (!trace) {
            std::cerr << "meshscope diagnose: cannot write the trace to " << trace_file << ": " << std::strerror(errno)
                      << "\n";
            return exit_usage;
        }
    }

    records::RecordSet records;
    if (!load_usable_records("diagnose", paths, records)) return exit_usage;
    const auto diagnosis = records::diagnose(records, plan ? &*plan : nullptr);
    if (format == "json")
        std::cout << records::to_json(diagnosis, plan ? &*plan : nullptr)
                         .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                  << "\n";
    else
        std::cout << records::to_text(diagnosis);
    std::cout.flush();
    if (trace.is_open()) {
        records::write_trace(records, diagnosis, trace);
        trace.close();
        if (!trace) {
            std::cerr << "meshscope diagnose: writing the trace to " << trace_file
                      << " failed: " << std::strerror(errno) << "\n";
            return exit_failure;
        }
        if (records.dumps.empty())
            std::cerr << "meshscope diagnose: no Flight Recorder dump read: the trace at " << trace_file
                      << " has no collective\n";
    }
    return std::cout ? exit_ok : exit_failure;
}

}  // namespace meshscope::app
