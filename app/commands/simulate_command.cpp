// meshscope simulate: a simulated FSDPTurbo job whose ranks report to a collector over the real protocol,
// with faults injected on chosen ranks; prints what it injected (the collector must report exactly that).
#include <CLI/CLI.hpp>

#include <atomic>
#include <cmath>
#include <csignal>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "meshscope/client/reporter.h"
#include "simulation.h"
#include "storm.h"

namespace meshscope::app {

namespace {
std::atomic<bool> simulate_stop{false};
void stop_simulation(int) {
    simulate_stop = true;
}

// Heartbeats the collector never stored: refused (a shed 503 or no answer; not retried), evicted from the
// queue for newer events, or dropped by enqueue() for want of room. Counts, not failures.
nlohmann::json heartbeat_counts(const client::ReporterStats& stats) {
    return {{"refused", stats.heartbeats_refused}, {"evicted", stats.heartbeats_evicted}, {"dropped", stats.dropped}};
}
}  // namespace

// The start-up storm (`--per-rank`): every rank its own connection (simulator/storm.h).
struct PerRankArguments {
    bool enabled = false;
    double start_window = 3;
    int processes = 0;  // 0: as few as the descriptor limit allows
    bool processes_given = false;
    double duration = 0;
    int dashboards = 0;
    double request_timeout = 5;
    std::string dashboard_target;
    std::string ranks_out;
};

int run_per_rank(const sim::Scenario& scenario, const std::string& target, const std::string& token, double speed,
                 double timeout, std::uint64_t seed, const PerRankArguments& args) {
    const auto fail = [](const std::string& text) {
        std::cerr << "meshscope simulate: " << text << "\n";
        return exit_usage;
    };
    const auto in_range = [](double v, double lo, double hi) { return std::isfinite(v) && v >= lo && v <= hi; };
    auto number = [](double v) {
        std::ostringstream out;
        out << v;
        return out.str();
    };
    if (!in_range(args.start_window, 0, 600))
        return fail("--start-window must be from 0 to 600 seconds, got " + number(args.start_window));
    if (!in_range(args.duration, 0, 7 * 24 * 3600))
        return fail("--duration must be from 0 to 604800 seconds, got " + number(args.duration));
    if (args.processes_given && (args.processes < 1 || args.processes > 256))
        return fail("--processes must be from 1 to 256, got " + std::to_string(args.processes));
    if (args.dashboards < 0 || args.dashboards > 1000)
        return fail("--dashboards must be from 0 to 1000, got " + std::to_string(args.dashboards));
    if (!in_range(args.request_timeout, 0.01, 600))
        return fail("--request-timeout must be from 0.01 to 600 seconds, got " + number(args.request_timeout));
    auto targets = sim::parse_targets(target);
    if (!targets) return fail(targets.error().message());
    sim::StormOptions options;
    options.targets = *targets;
    if (!args.dashboard_target.empty()) {
        auto stream = sim::parse_targets(args.dashboard_target);
        if (!stream || stream->size() != 1)
            return fail("--dashboard-target: '" + args.dashboard_target + "' is not an http://HOST:PORT URL");
        options.stream_target = stream->front();
    }
    options.processes = args.processes;
    options.token = token;
    options.speed = speed;
    options.start_window = args.start_window;
    options.duration = args.duration;
    options.max_run = timeout;
    options.request_timeout = args.request_timeout;
    options.dashboards = args.dashboards;
    options.seed = seed;
    options.ranks_out = args.ranks_out;

    std::signal(SIGINT, stop_simulation);
    std::signal(SIGTERM, stop_simulation);
    const sim::StormResult result = sim::run_storm(scenario, options, simulate_stop);
    std::cout << result.summary.dump() << std::endl;
    if (!result.all_ready) std::cerr << "meshscope simulate: " << result.problem << "\n";
    return result.all_ready ? exit_ok : exit_failure;
}

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
    cli.add_option("--target", target,
                   "the collector, e.g. http://127.0.0.1:7077 (--per-rank: a comma-separated list; rank r reports "
                   "to target r mod n)")
        ->required();
    cli.add_option("--dp", dp, "data-parallel size")->required();
    cli.add_option("--cp", cp, "context-parallel size")->capture_default_str();
    cli.add_option("--ep", ep, "expert-parallel size")->capture_default_str();
    cli.add_option("--gpus-per-node", gpus_per_node, "GPUs per node")->capture_default_str();
    cli.add_option("--job", job, "job id (default: sim-<seed>)");
    cli.add_option("--token", token, "bearer token of the collector");
    cli.add_option(
        "--faults", faults_text,
        "faults to inject, e.g. topology_mismatch=1,group_disagreement=1,missing_rank=1,"
        "duplicate_rank=1,straggler=1,stale_rank=1,rank_error=1,reinit_mismatch=1,creation_order_mismatch=1");
    cli.add_option("--seed", seed, "random seed (which ranks get the faults)")->capture_default_str();
    cli.add_option("--speed", speed, "simulated seconds per real second")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    auto* connections_given = cli.add_option("--connections", connections, "HTTP connections of the client")
                                  ->capture_default_str()
                                  ->check(CLI::Range(1, 256));
    cli.add_option("--timeout", timeout,
                   "seconds to wait for the acknowledgements (--per-rank: the longest run without --duration)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cli.add_flag("--hold", hold, "keep the ranks running (heartbeats, no exit) until interrupted");
    PerRankArguments per_rank;
    cli.add_flag("--per-rank", per_rank.enabled,
                 "every rank its own client and connection: the start-up storm of a real job");
    auto* window = cli.add_option("--start-window", per_rank.start_window,
                                  "--per-rank: seconds over which the ranks start (uniform)")
                       ->capture_default_str();
    auto* processes = cli.add_option("--processes", per_rank.processes,
                                     "--per-rank: worker processes, each one event loop (default: as few as the "
                                     "descriptor limit allows)");
    auto* duration = cli.add_option("--duration", per_rank.duration,
                                    "--per-rank: seconds the run lasts, heartbeats included (default: until every "
                                    "rank's script is acknowledged, at most --timeout)");
    auto* dashboards = cli.add_option("--dashboards", per_rank.dashboards,
                                      "--per-rank: WebSocket clients on /api/v1/stream timing each ready");
    auto* request_timeout = cli.add_option("--request-timeout", per_rank.request_timeout,
                                           "--per-rank: seconds a request may take, connect included")
                                ->capture_default_str();
    auto* ranks_out = cli.add_option("--ranks-out", per_rank.ranks_out,
                                     "--per-rank: write one JSON line per rank here (its times and counts)");
    auto* dashboard_target = cli.add_option("--dashboard-target", per_rank.dashboard_target,
                                            "--per-rank: where the dashboards connect (default: the first --target)");
    try {
        cli.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return cli.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "meshscope simulate: " << e.what() << "\nRun 'meshscope simulate --help' for usage.\n";
        return exit_usage;
    }
    if (!per_rank.enabled) {
        if (target.find(',') != std::string::npos) {
            std::cerr << "meshscope simulate: --target: several URLs need --per-rank\n";
            return exit_usage;
        }
        for (const CLI::Option* option :
             {window, processes, duration, dashboards, request_timeout, dashboard_target, ranks_out})
            if (option->count() > 0) {
                std::cerr << "meshscope simulate: " << option->get_name() << " needs --per-rank\n";
                return exit_usage;
            }
    } else {
        if (hold) {
            std::cerr << "meshscope simulate: --hold cannot be combined with --per-rank: give --duration\n";
            return exit_usage;
        }
        if (connections_given->count() > 0) {
            std::cerr << "meshscope simulate: --connections cannot be combined with --per-rank (one connection a "
                         "rank)\n";
            return exit_usage;
        }
    }
    if (per_rank.enabled) {
        per_rank.processes_given = processes->count() > 0;
        if (per_rank.processes_given && (per_rank.processes < 1 || per_rank.processes > 256)) {
            std::cerr << "meshscope simulate: --processes must be from 1 to 256, got " << per_rank.processes << "\n";
            return exit_usage;
        }
        // Each rank holds a descriptor in its worker: check before building a script for the whole job.
        const std::int64_t world = dp > 0 && cp > 0 && dp <= (std::int64_t{1} << 30) / cp ? dp * cp : 0;
        const std::int64_t per_process = sim::max_ranks_per_process();
        const std::int64_t needed = (world + per_process - 1) / per_process;
        if (per_rank.processes_given && (world + per_rank.processes - 1) / per_rank.processes > per_process) {
            std::cerr << "meshscope simulate: --processes " << per_rank.processes << ": " << world
                      << " ranks need more than " << per_process
                      << " connections a process (the descriptor limit less 64); give --processes " << needed
                      << " or more\n";
            return exit_usage;
        }
        if (!per_rank.processes_given) per_rank.processes = static_cast<int>(std::max<std::int64_t>(needed, 1));
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
    if (per_rank.enabled) return run_per_rank(*scenario, target, token, speed, timeout, seed, per_rank);

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
    bool lifecycle_acknowledged = false;
    sim::RunOptions run;
    run.time_scale = speed;
    run.hold = hold;
    run.on_script_sent = [&] {
        // Every scripted lifecycle event must be acknowledged before we say what was injected. Heartbeats are
        // not retried when the collector sheds them (503) or the queue evicts them, so those are counted, not
        // failures: with nothing pending and nothing rejected, every event not acknowledged was a heartbeat
        // (ReporterStats: enqueued = acknowledged + rejected + evicted + refused + abandoned + pending).
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
        while (!reporter.flush(std::chrono::milliseconds(200)))
            if (simulate_stop || std::chrono::steady_clock::now() > deadline) break;
        const auto stats = reporter.stats();
        lifecycle_acknowledged = stats.pending == 0 && stats.rejected == 0 && stats.abandoned == 0;
        auto summary = sim::summary_json(*scenario);
        summary["events"] = stats.enqueued;
        summary["acknowledged"] = stats.acknowledged;
        summary["heartbeats"] = heartbeat_counts(stats);
        std::cout << summary.dump() << std::endl;
        if (!lifecycle_acknowledged)
            std::cerr << "meshscope simulate: not every lifecycle event was acknowledged (" << stats.rejected
                      << " events rejected, " << stats.pending << " still pending); last error: " << stats.last_error
                      << "\n";
    };
    sim::run_scenario(*scenario, reporter, run, simulate_stop);
    reporter.shutdown(std::chrono::seconds(2));
    if (hold) {
        // Held ranks kept heartbeating after the summary: how those fared, once the reporter has stopped.
        const auto stats = reporter.stats();
        std::cout << nlohmann::json{{"job", scenario->job},
                                    {"stopped", true},
                                    {"events", stats.enqueued},
                                    {"acknowledged", stats.acknowledged},
                                    {"rejected", stats.rejected},
                                    {"abandoned", stats.abandoned},
                                    {"heartbeats", heartbeat_counts(stats)}}
                         .dump()
                  << std::endl;
    }
    return lifecycle_acknowledged ? exit_ok : exit_failure;
}

}  // namespace meshscope::app
