#include <cstring>
#include <iostream>
#include <string_view>

#include "commands.h"

namespace meshscope::app {

namespace {
struct Command {
    std::string_view name;
    int (*run)(int, char**);
    std::string_view summary;
};

constexpr Command commands[] = {
    {"plan", run_plan, "print the meshes, groups and placement of a (dp, cp, ep) layout"},
    {"advise", run_advise, "rank every (dp, cp, ep) of a world for a model: memory, communication, fit"},
    {"check", run_check, "preflight a LlamaFactory training YAML: layout, errors, memory, a faster layout"},
    {"peers", run_peers, "lay one (world, cp, ep) out as FSDPTurbo, TorchTitan and Megatron-Core do"},
    {"serve", run_serve, "collect live events from ranks, keep their history, report findings"},
    {"relay", run_relay, "relay a node's ranks to the collector in batches (one per node)"},
    {"simulate", run_simulate, "run simulated ranks with injected faults against a collector"},
    {"replay", run_replay, "replay a recorded job into a collector or dashboard"},
    {"export", run_export, "write a recorded job as JSONL"},
    {"diagnose", run_diagnose, "read NCCL logs, Flight Recorder dumps and NCCL RAS status onto a plan"},
    {"import", run_import, "put what diagnose finds into a collector as a job, for its Live pages"},
    {"ras", run_ras, "read a running job's NCCL RAS status live (poll it, or follow its events)"},
};

void print_usage(std::ostream& out) {
    out << "usage: meshscope [--screenshot FILE] [options]   open the dashboard\n"
           "       meshscope <command> [options]\n\ncommands:\n";
    for (const auto& c : commands) out << "  " << c.name << std::string(10 - c.name.size(), ' ') << c.summary << "\n";
    out << "\nRun 'meshscope <command> --help' for a command's options.\n";
}
}  // namespace

int dispatch(int argc, char** argv) {
    if (argc >= 2) {
        const std::string_view first = argv[1];
        for (const auto& c : commands)
            if (first == c.name) return c.run(argc - 1, argv + 1);
        if (first == "help" || first == "--help" || first == "-h") {
            print_usage(std::cout);
            return exit_ok;
        }
        if (!first.empty() && first.front() != '-') {
            std::cerr << "meshscope: unknown command '" << first << "'\n";
            print_usage(std::cerr);
            return exit_usage;
        }
    }
    return run_dashboard(argc, argv);
}

}  // namespace meshscope::app
