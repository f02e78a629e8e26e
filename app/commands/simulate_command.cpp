// meshscope simulate: a simulated FSDPTurbo job whose ranks report to a collector over the real protocol,
// with faults injected on chosen ranks; prints what it injected (the collector must report exactly that).
#include <CLI/CLI.hpp>

#include <atomic>
#include <cmath>
#include <csignal>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli_support.h"
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

int run_per_rank(const sim::Scenario& scenario, const std::string& target, const std::string& protocol,
                 const std::string& token, double speed, double timeout, std::uint64_t seed,
                 const PerRankArguments& args) {
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
    options.protocol = protocol == "otlp" ? sim::StormProtocol::otlp : sim::StormProtocol::meshscope;
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

// Everything `meshscope simulate` reads from its command line, and the options that only --per-rank takes.
struct SimulateArguments {
    std::string target, job, token, faults_text;
    std::string protocol = "meshscope";
    std::int64_t dp = 0, cp = 1, ep = 1, gpus_per_node = 8;
    std::uint64_t seed = 1;
    bool hold = false;
    double speed = 50;
    double timeout = 120;
    int connections = 4;
    PerRankArguments per_rank;
    CLI::Option* connections_option = nullptr;
    CLI::Option* processes_option = nullptr;
    std::vector<const CLI::Option*> per_rank_only;
};

namespace {
void add_simulate_options(CLI::App& cli, SimulateArguments& a) {
    cli.add_option("--target", a.target,
                   "the collector, e.g. http://127.0.0.1:7077 (--per-rank: a comma-separated list; rank r reports "
                   "to target r mod n)")
        ->required();
    cli.add_option("--dp", a.dp, "data-parallel size")->required();
    cli.add_option("--cp", a.cp, "context-parallel size")->capture_default_str();
    cli.add_option("--ep", a.ep, "expert-parallel size")->capture_default_str();
    cli.add_option("--gpus-per-node", a.gpus_per_node, "GPUs per node")->capture_default_str();
    cli.add_option("--job", a.job, "job id (default: sim-<seed>)");
    cli.add_option("--token", a.token, "bearer token of the collector");
    cli.add_option("--protocol", a.protocol,
                   "what the ranks speak: meshscope (events to TARGET/api/v1/events) or otlp (OTLP/HTTP JSON logs to "
                   "TARGET/v1/logs: a node-local OpenTelemetry Collector, or the collector itself)")
        ->capture_default_str();
    cli.add_option(
        "--faults", a.faults_text,
        "faults to inject, e.g. topology_mismatch=1,group_disagreement=1,missing_rank=1,"
        "duplicate_rank=1,straggler=1,stale_rank=1,rank_error=1,reinit_mismatch=1,creation_order_mismatch=1");
    cli.add_option("--seed", a.seed, "random seed (which ranks get the faults)")->capture_default_str();
    cli.add_option("--speed", a.speed, "simulated seconds per real second")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    a.connections_option = cli.add_option("--connections", a.connections, "HTTP connections of the client")
                               ->capture_default_str()
                               ->check(CLI::Range(1, 256));
    cli.add_option("--timeout", a.timeout,
                   "seconds to wait for the acknowledgements (--per-rank: the longest run without --duration)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cli.add_flag("--hold", a.hold, "keep the ranks running (heartbeats, no exit) until interrupted");
    PerRankArguments& per_rank = a.per_rank;
    cli.add_flag("--per-rank", per_rank.enabled,
                 "every rank its own client and connection: the start-up storm of a real job");
    auto* window = cli.add_option("--start-window", per_rank.start_window,
                                  "--per-rank: seconds over which the ranks start (uniform)")
                       ->capture_default_str();
    a.processes_option = cli.add_option("--processes", per_rank.processes,
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
                                            "--per-rank: where the dashboards connect (default: the first --target; "
                                            "give the collector when the targets are OpenTelemetry Collectors)");
    a.per_rank_only = {window, a.processes_option, duration, dashboards, request_timeout, dashboard_target, ranks_out};
}

// The options that do not go together (one shared client or --per-rank); the message of the first, "" when none.
std::string mode_conflict(const SimulateArguments& a) {
    if (!a.per_rank.enabled) {
        if (a.target.find(',') != std::string::npos) return "--target: several URLs need --per-rank";
        for (const CLI::Option* option : a.per_rank_only)
            if (option->count() > 0) return option->get_name() + " needs --per-rank";
        return {};
    }
    if (a.hold) return "--hold cannot be combined with --per-rank: give --duration";
    if (a.connections_option->count() > 0)
        return "--connections cannot be combined with --per-rank (one connection a rank)";
    return {};
}

// --per-rank's worker processes: as given, or as few as the descriptor limit allows. Each rank holds a
// descriptor in its worker: checked before a script is built for the whole job. The message when they do not
// fit, "" when they do.
std::string size_processes(const SimulateArguments& a, PerRankArguments& per_rank) {
    per_rank.processes_given = a.processes_option->count() > 0;
    if (per_rank.processes_given && (per_rank.processes < 1 || per_rank.processes > 256))
        return "--processes must be from 1 to 256, got " + std::to_string(per_rank.processes);
    const std::int64_t world = a.dp > 0 && a.cp > 0 && a.dp <= (std::int64_t{1} << 30) / a.cp ? a.dp * a.cp : 0;
    const std::int64_t per_process = sim::max_ranks_per_process();
    const std::int64_t needed = (world + per_process - 1) / per_process;
    if (per_rank.processes_given && (world + per_rank.processes - 1) / per_rank.processes > per_process)
        return "--processes " + std::to_string(per_rank.processes) + ": " + std::to_string(world) +
               " ranks need more than " + std::to_string(per_process) +
               " connections a process (the descriptor limit less 64); give --processes " + std::to_string(needed) +
               " or more";
    if (!per_rank.processes_given) per_rank.processes = static_cast<int>(std::max<std::int64_t>(needed, 1));
    return {};
}

Expected<sim::Scenario> scenario_of(const SimulateArguments& a) {
    sim::ScenarioOptions options;
    options.dp = a.dp;
    options.cp = a.cp;
    options.ep = a.ep;
    options.gpus_per_node = a.gpus_per_node;
    options.job = a.job;
    options.seed = a.seed;
    if (!a.faults_text.empty()) {
        auto faults = sim::parse_faults(a.faults_text);
        if (!faults) return faults.error();
        options.faults = *faults;
    }
    return sim::make_scenario(options);
}

// The ranks through one shared client (the reporter's connections): runs the script, prints the summary once
// every lifecycle event is acknowledged (or the time is up), and with --hold what the held ranks' heartbeats
// did after it.
int run_shared_client(const sim::Scenario& scenario, const SimulateArguments& a) {
    client::ReporterOptions reporter_options;
    reporter_options.url = a.target;
    reporter_options.token = a.token;
    reporter_options.protocol = a.protocol;
    reporter_options.connections = a.connections;
    reporter_options.max_queue_events = scenario.events.size() + 2 * scenario.heartbeating.size() + 1024;
    reporter_options.max_queue_bytes = std::size_t{2} << 30;
    reporter_options.shutdown_timeout = std::chrono::seconds(5);
    client::Reporter reporter(reporter_options);

    std::signal(SIGINT, stop_simulation);
    std::signal(SIGTERM, stop_simulation);
    bool lifecycle_acknowledged = false;
    sim::RunOptions run;
    run.time_scale = a.speed;
    run.hold = a.hold;
    run.on_script_sent = [&] {
        // Every scripted lifecycle event must be acknowledged before we say what was injected. Heartbeats are
        // not retried when the collector sheds them (503) or the queue evicts them, so those are counted, not
        // failures: with nothing pending and nothing rejected, every event not acknowledged was a heartbeat
        // (ReporterStats: enqueued = acknowledged + rejected + evicted + refused + abandoned + pending).
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(a.timeout);
        while (!reporter.flush(std::chrono::milliseconds(200)))
            if (simulate_stop || std::chrono::steady_clock::now() > deadline) break;
        const auto stats = reporter.stats();
        lifecycle_acknowledged = stats.pending == 0 && stats.rejected == 0 && stats.abandoned == 0;
        auto summary = sim::summary_json(scenario);
        summary["events"] = stats.enqueued;
        summary["acknowledged"] = stats.acknowledged;
        summary["heartbeats"] = heartbeat_counts(stats);
        std::cout << summary.dump() << std::endl;
        if (!lifecycle_acknowledged)
            std::cerr << "meshscope simulate: not every lifecycle event was acknowledged (" << stats.rejected
                      << " events rejected, " << stats.pending << " still pending); last error: " << stats.last_error
                      << "\n";
    };
    sim::run_scenario(scenario, reporter, run, simulate_stop);
    reporter.shutdown(std::chrono::seconds(2));
    if (a.hold) {
        // Held ranks kept heartbeating after the summary: how those fared, once the reporter has stopped.
        const auto stats = reporter.stats();
        std::cout << nlohmann::json{{"job", scenario.job},
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
}  // namespace

int run_simulate(int argc, char** argv) {
    CLI::App cli{"Run simulated ranks of an FSDPTurbo job against a collector, with injected faults.",
                 "meshscope simulate"};
    SimulateArguments a;
    add_simulate_options(cli, a);
    if (const auto status = parse_or_usage(cli, argc, argv, Usage{"simulate"})) return *status;
    const auto usage_error = [](const std::string& text) {
        std::cerr << "meshscope simulate: " << text << "\n";
        return exit_usage;
    };
    if (a.protocol != "meshscope" && a.protocol != "otlp")
        return usage_error("--protocol must be meshscope or otlp, got '" + a.protocol + "'");
    if (const std::string conflict = mode_conflict(a); !conflict.empty()) return usage_error(conflict);
    if (a.per_rank.enabled)
        if (const std::string problem = size_processes(a, a.per_rank); !problem.empty()) return usage_error(problem);
    const auto scenario = scenario_of(a);
    if (!scenario) return usage_error(scenario.error().message());
    if (a.per_rank.enabled)
        return run_per_rank(*scenario, a.target, a.protocol, a.token, a.speed, a.timeout, a.seed, a.per_rank);
    return run_shared_client(*scenario, a);
}

}  // namespace meshscope::app
