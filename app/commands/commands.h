// The sub-commands of `meshscope`. Each takes argv with the sub-command name at argv[0] and returns the
// process exit status: 0 success, 1 a runtime failure, 2 bad input (the exact message on stderr).
#pragma once

namespace meshscope::app {

inline constexpr int exit_ok = 0;
inline constexpr int exit_failure = 1;
inline constexpr int exit_usage = 2;

int run_plan(int argc, char** argv);
int run_serve(int argc, char** argv);     // the collector (docs/collector.md)
int run_simulate(int argc, char** argv);  // simulated ranks with injected faults
int run_replay(int argc, char** argv);    // a recorded job into a collector
int run_export(int argc, char** argv);    // a recorded job as JSONL
int run_gui(int argc, char** argv);  // no sub-command: the dashboard window (argv[0] is the program)

// Picks the sub-command from argv[1]; anything else opens the dashboard.
int dispatch(int argc, char** argv);

}  // namespace meshscope::app
