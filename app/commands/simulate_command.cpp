// meshscope simulate: a simulated FSDPTurbo job whose ranks report to a collector over the real protocol,
// with faults injected on chosen ranks; prints what it injected (the collector must report exactly that).
#include <CLI/CLI.hpp>

#include <atomic>
#include <csignal>
#include <iostream>

#include "commands.h"
#include "meshscope/client/reporter.h"
#include "simulation.h"

namespace meshscope::app {

namespace {
std::atomic<bool> simulate_stop{false};
void stop_simulation(int) {
    simulate_stop = true;
}
}  // namespace

int run_simulate(int argc, char** argv) {
    CLI::App cli{"Run simulated ranks of an FSDPTurbo job against a collector, with injected faults.",
                 "meshscope simulate"};
    std::string target, job, token, faults_text;
    std::int64_t dp = 0, cp = 1, ep = 1, gpus_per_node = 8;
    std::uint64_t seed = 1;
    bool hold = false;
    double speed = 50;
    double timeout = 120;
    int connections = 4;
    cli.add_option("--target", target, "the collector, e.g. http://127.0.0.1:7077")->required();
    cli.add_option("--dp", dp, "data-parallel size")->required();
    cli.add_option("--cp", cp, "context-parallel size")->capture_default_str();
    cli.add_option("--ep", ep, "expert-parallel size")->capture_default_str();
    cli.add_option("--gpus-per-node", gpus_per_node, "GPUs per node")->capture_default_str();
    cli.add_option("--job", job, "job id (default: sim-<seed>)");
    cli.add_option("--token", token, "bearer token of the collector");
    cli.add_option("--faults", faults_text,
                   "faults to inject, e.g. topology_mismatch=1,group_disagreement=1,missing_rank=1,"
                   "duplicate_rank=1,straggler=1,stale_rank=1,rank_error=1,reinit_mismatch=1");
    cli.add_option("--seed", seed, "random seed (which ranks get the faults)")->capture_default_str();
    cli.add_option("--speed", speed, "simulated seconds per real second")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cli.add_option("--connections", connections, "HTTP connections of the client")
        ->capture_default_str()
        ->check(CLI::Range(1, 256));
    cli.add_option("--timeout", timeout, "seconds to wait for the acknowledgements")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cli.add_flag("--hold", hold, "keep the ranks running (heartbeats, no exit) until interrupted");
    try {
        cli.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return cli.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "meshscope simulate: " << e.what() << "\nRun 'meshscope simulate --help' for usage.\n";
        return exit_usage;
    }
    sim::ScenarioOptions options;
    options.dp = dp;
    options.cp = cp;
    options.ep = ep;
    options.gpus_per_node = gpus_per_node;
    options.job = job;
    options.seed = seed;
    if (!faults_text.empty()) {
        auto faults = sim::parse_faults(faults_text);
        if (!faults) {
            std::cerr << "meshscope simulate: " << faults.error().message() << "\n";
            return exit_usage;
        }
        options.faults = *faults;
    }
    const auto scenario = sim::make_scenario(options);
    if (!scenario) {
        std::cerr << "meshscope simulate: " << scenario.error().message() << "\n";
        return exit_usage;
    }

    client::ReporterOptions reporter_options;
    reporter_options.url = target;
    reporter_options.token = token;
    reporter_options.connections = connections;
    reporter_options.max_queue_events = scenario->events.size() + 2 * scenario->heartbeating.size() + 1024;
    reporter_options.max_queue_bytes = std::size_t{2} << 30;
    reporter_options.shutdown_timeout = std::chrono::seconds(5);
    client::Reporter reporter(reporter_options);

    std::signal(SIGINT, stop_simulation);
    std::signal(SIGTERM, stop_simulation);
    bool all_acknowledged = false;
    sim::RunOptions run;
    run.time_scale = speed;
    run.hold = hold;
    run.on_script_sent = [&] {
        // Every scripted event must be acknowledged before we say what was injected.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
        while (!reporter.flush(std::chrono::milliseconds(200)))
            if (simulate_stop || std::chrono::steady_clock::now() > deadline) break;
        const auto stats = reporter.stats();
        all_acknowledged = stats.acknowledged == stats.enqueued && stats.dropped == 0;
        auto summary = sim::summary_json(*scenario);
        summary["events"] = stats.enqueued;
        summary["acknowledged"] = stats.acknowledged;
        std::cout << summary.dump() << std::endl;
        if (!all_acknowledged)
            std::cerr << "meshscope simulate: " << stats.acknowledged << " of " << stats.enqueued
                      << " events acknowledged; last error: " << stats.last_error << "\n";
    };
    sim::run_scenario(*scenario, reporter, run, simulate_stop);
    reporter.shutdown(std::chrono::seconds(2));
    return all_acknowledged ? exit_ok : exit_failure;
}

}  // namespace meshscope::app
