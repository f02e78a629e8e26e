#include "command_table.h"

#include <array>

#include "commands.h"

namespace meshscope::app {

namespace {
constexpr std::array commands{
    Command{"plan", run_plan, "print the meshes, groups and placement of a (dp, cp, ep) layout"},
    Command{"advise", run_advise,
            "rank every (dp, cp, ep) of a world for a model at one global batch: step time, memory, fit"},
    Command{"check", run_check, "preflight a LlamaFactory training YAML: layout, errors, memory, a faster layout"},
    Command{"calibrate", run_calibrate,
            "fit the cost model to a real job's step time and NCCL bandwidths: a cluster profile for advise, check"},
    Command{"peers", run_peers, "lay one (world, cp, ep) out as FSDPTurbo, TorchTitan and Megatron-Core do"},
    Command{"serve", run_serve, "collect live events from ranks, keep their history, report findings"},
    Command{"relay", run_relay, "relay a node's ranks to the collector in batches (one per node)"},
    Command{"simulate", run_simulate, "run simulated ranks with injected faults against a collector"},
    Command{"replay", run_replay, "replay a recorded job into a collector or dashboard"},
    Command{"export", run_export, "write a recorded job as JSONL"},
    Command{"diagnose", run_diagnose, "read NCCL logs, Flight Recorder dumps and NCCL RAS status onto a plan"},
    Command{"import", run_import, "put what diagnose finds into a collector as a job, for its Live pages"},
    Command{"ras", run_ras, "read a running job's NCCL RAS status live (poll it, or follow its events)"},
    Command{"completion", run_completion, "print a shell completion script (bash)"},
};
}  // namespace

std::span<const Command> command_table() {
    return commands;
}

std::string command_names() {
    std::string names;
    for (std::size_t i = 0; i < commands.size(); ++i) {
        if (i > 0) names += i + 1 == commands.size() ? " and " : ", ";
        names += commands[i].name;
    }
    return names;
}

}  // namespace meshscope::app
