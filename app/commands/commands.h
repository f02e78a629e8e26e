// The sub-commands of `meshscope`. Each takes argv with the sub-command name at argv[0] and returns the
// process exit status: 0 success, 1 a runtime failure, 2 bad input (the exact message on stderr).
#pragma once

namespace meshscope::app {

inline constexpr int exit_ok = 0;
inline constexpr int exit_failure = 1;
inline constexpr int exit_usage = 2;

// The first and last lines of `meshscope export`'s JSONL, which replay checks (docs/collector.md).
inline constexpr const char* export_header_key = "meshscope_export";
inline constexpr const char* export_format = "meshscope.export/1";
inline constexpr const char* export_end_key = "meshscope_export_end";

int run_plan(int argc, char** argv);
int run_advise(int argc, char** argv);      // rank the (dp, cp, ep) layouts of a world for one model
int run_check(int argc, char** argv);       // preflight a LlamaFactory training YAML on N nodes of G GPUs
int run_calibrate(int argc, char** argv);   // fit the cost model to what a real job measured: a cluster profile
int run_peers(int argc, char** argv);       // one (world, cp, ep) as FSDPTurbo, TorchTitan and Megatron-Core lay it out
int run_serve(int argc, char** argv);       // the collector (docs/collector.md)
int run_relay(int argc, char** argv);       // the node-local relay in front of the collector
int run_simulate(int argc, char** argv);    // simulated ranks with injected faults
int run_replay(int argc, char** argv);      // a recorded job into a collector
int run_export(int argc, char** argv);      // a recorded job as JSONL
int run_diagnose(int argc, char** argv);    // NCCL logs, Flight Recorder dumps and RAS status placed on a plan
int run_import(int argc, char** argv);      // the same, put into a collector as a job (its Live pages show it)
int run_ras(int argc, char** argv);         // a running job's NCCL RAS status, live from its RAS socket
int run_completion(int argc, char** argv);  // a shell completion script
// The dashboard window (meshscope-dashboard's main; argv[0] is the program).
int run_gui(int argc, char** argv);
// `meshscope` with no sub-command: execs meshscope-dashboard from the same folder with the same arguments.
int run_dashboard(int argc, char** argv);

// Picks the sub-command from argv[1]; anything else starts the dashboard.
int dispatch(int argc, char** argv);

}  // namespace meshscope::app
