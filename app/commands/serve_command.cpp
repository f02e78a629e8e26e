// meshscope serve: the collector. Events in over HTTP, durably stored (SQLite WAL), watched by the
// monitor; jobs, ranks and findings out over HTTP, a WebSocket stream and /metrics (docs/collector.md). With
// --ras it also reads running jobs' NCCL RAS itself, each into a job, and with --torch-debug the Flight Recorder
// that torch's debug server serves (hook-free live mode, docs/records-live.md).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <csignal>
#include <fstream>
#include <iostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_support.h"
#include "collector_tour_jobs.h"
#include "commands.h"
#include "http/collector_service.h"
#include "listen_address.h"
#include "meshscope/cost/cluster_profile.h"
#include "meshscope/monitor/event.h"
#include "otlp_export/otlp_exporter.h"
#include "ras/ras_client.h"
#include "ras/ras_poller.h"
#include "record_files.h"
#include "torch_debug/torch_debug_poller.h"

namespace meshscope::app {

namespace {
constexpr const char* ras_hint =
    "hint: meshscope serve --ras HOST[:PORT] [--ras-job NAME] [--ras-interval S] [--ras-timeout S] "
    "[--plan FILE | --dp D [--cp C] [--ep E]]";
constexpr const char* torch_debug_hint =
    "hint: meshscope serve --torch-debug HOST[:PORT] [--torch-debug-job NAME] [--torch-debug-interval S] "
    "[--torch-debug-timeout S] [--torch-debug-backend NAME] [--torch-debug-max-reply BYTES] "
    "[--plan FILE | --dp D [--cp C] [--ep E]]";

constexpr const char* otlp_hint =
    "hint: meshscope serve --otlp-export http://agent:4318 [--otlp-interval S] [--otlp-timeout S] "
    "[--otlp-header 'Name: value' ... | --otlp-header-file FILE]";

std::chrono::milliseconds milliseconds(double seconds) {
    return std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(seconds * 1000)));
}

// --otlp-export URL [--otlp-interval S] [--otlp-timeout S] [--otlp-header L ... | --otlp-header-file F]: findings
// and per-job gauges to a site's OpenTelemetry Collector (server/otlp_export, docs/collector-metrics.md "OTLP export").
struct OtlpExportFlags {
    std::string url, header_file;
    std::vector<std::string> headers;
    double interval = 15, timeout = 10;

    void add_to(CLI::App& cli) {
        auto* url_opt = cli.add_option("--otlp-export", url,
                                       "send each finding as an OTLP log record and each job's rank states and "
                                       "findings by kind as OTLP gauges to the OpenTelemetry Collector at URL "
                                       "(OTLP/HTTP JSON: URL/v1/logs, URL/v1/metrics)")
                            ->type_name("URL");
        cli.add_option("--otlp-interval", interval, "seconds between two metrics exports of --otlp-export")
            ->type_name("SECONDS")
            ->capture_default_str()
            ->needs(url_opt);
        cli.add_option("--otlp-timeout", timeout, "seconds for one --otlp-export request, connect included")
            ->type_name("SECONDS")
            ->capture_default_str()
            ->needs(url_opt);
        auto* header_opt = cli.add_option("--otlp-header", headers,
                                          "a header line of every --otlp-export request, e.g. 'Authorization: "
                                          "Bearer TOKEN' (repeatable)")
                               ->type_name("'NAME: VALUE'")
                               ->needs(url_opt);
        cli.add_option("--otlp-header-file", header_file,
                       "read --otlp-export's header lines from FILE, one 'Name: value' a line (# comments), so that "
                       "secrets stay out of the command line")
            ->type_name("FILE")
            ->needs(url_opt)
            ->excludes(header_opt);
    }
    // The exporter's options, or the usage error (exit 2).
    [[nodiscard]] std::optional<std::string> check(std::optional<server::OtlpExportOptions>& out) const {
        if (url.empty()) return std::nullopt;
        if (auto error = server::otlp_export_url_error(url)) return error;
        for (const auto& [name, value] : {std::pair{"--otlp-interval", interval}, {"--otlp-timeout", timeout}})
            if (!std::isfinite(value) || value < 0.1 || value > 86400)
                return std::string(name) + " must be from 0.1 to 86400 seconds";
        std::vector<std::string> lines = headers;
        for (const auto& line : headers)
            if (auto error = server::otlp_header_error(line)) return error;
        if (!header_file.empty()) {
            std::ifstream in(header_file);
            if (!in) return "cannot read --otlp-header-file " + header_file;
            std::string line;
            for (int number = 1; std::getline(in, line); ++number) {
                while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
                if (line.empty() || line.front() == '#') continue;
                if (auto error = server::otlp_header_error(line))
                    return header_file + ":" + std::to_string(number) + ": " + *error;
                lines.push_back(line);
            }
        }
        out.emplace();
        out->headers = std::move(lines);
        out->url = url;
        out->interval = milliseconds(interval);
        out->timeout = milliseconds(timeout);
        return std::nullopt;
    }
};

// Everything `meshscope serve` reads from its command line.
struct ServeArguments {
    std::string listen = "127.0.0.1:7077", token, token_file, db, tls_cert, tls_key;
    double missing_after = 30, stale_after = 60;
    std::size_t max_body = 1 << 20;
    // Every rank holds its own connection: as many as the descriptor limit allows (docs/live-at-scale.md).
    std::size_t max_connections = server::default_max_connections();
    server::Shedding shedding;
    std::size_t max_jobs = server::CollectorOptions{}.max_jobs;
    std::int64_t max_ranks = server::CollectorOptions{}.max_ranks;
    std::vector<std::string> allowed_hosts;
    std::vector<std::string> ras_addresses, ras_jobs;
    double ras_interval = 5, ras_timeout = 10;
    std::vector<std::string> torch_addresses, torch_jobs;
    double torch_interval = 5, torch_timeout = 30;
    std::string torch_backend = "gloo";
    std::size_t torch_max_reply = server::TorchDebugPollerOptions{}.max_reply;
    OtlpExportFlags otlp_flags;
    PlanOptions plan_options;
    std::string cluster_profile;  // the web Planner's advise prices with it
};

// What the collector runs with once the arguments are checked.
struct ServeSetup {
    server::CollectorOptions collector;
    server::HttpOptions http;
    std::vector<server::RasPollerOptions> ras_polls;
    std::vector<server::TorchDebugPollerOptions> torch_polls;
    std::optional<server::OtlpExportOptions> otlp_export;
};

// The collector's own options: where it listens, who may report, its limits.
void add_collector_options(CLI::App& cli, ServeArguments& a) {
    cli.add_option("--listen", a.listen, "HOST:PORT to listen on (port 0: any free port)")->capture_default_str();
    auto* token_opt = cli.add_option("--token", a.token, "require 'Authorization: Bearer TOKEN' on every request");
    cli.add_option("--token-file", a.token_file, "read the token from FILE (first line)")->excludes(token_opt);
    cli.add_option("--tls-cert", a.tls_cert,
                   "serve HTTPS and wss:// with this PEM certificate (chain); needs --tls-key");
    cli.add_option("--tls-key", a.tls_key, "the PEM private key of --tls-cert");
    cli.add_option("--db", a.db, "history database (default: " + server::default_database_path() + ")");
    cli.add_option("--missing-after", a.missing_after,
                   "seconds after a job's first event before unseen ranks are missing")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cli.add_option("--stale-after", a.stale_after, "seconds without events before a running rank is stale")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cli.add_option("--max-body", a.max_body, "largest request body in bytes (larger: 413)")->capture_default_str();
    cli.add_option("--max-connections", a.max_connections,
                   "open connections beyond this get 503 + Retry-After (default: the raised RLIMIT_NOFILE less " +
                       std::to_string(server::reserved_descriptors) + ")")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cli.add_option(
           "--heartbeat-shed-at", a.shedding.heartbeat_shed_at,
           "events waiting for the store at which heartbeat-only bodies get 503 (the rank still counts as seen)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    cli.add_option("--shed-all-at", a.shedding.shed_all_at, "events waiting for the store at which every body gets 503")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    cli.add_option("--cluster-profile", a.cluster_profile,
                   "the constants `meshscope calibrate` fitted on your cluster, for the web Planner's cost")
        ->type_name("FILE");
    cli.add_option("--allow-host", a.allowed_hosts,
                   "without a token: a Host name requests may carry besides the loopback ones (repeatable)");
    cli.add_option("--max-jobs", a.max_jobs,
                   "live jobs kept in memory; past it the finished ones are forgotten (their history stays), else 503")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cli.add_option("--max-ranks", a.max_ranks,
                   "ranks that may report in the live jobs together (not the worlds they claim); past it the "
                   "finished jobs are forgotten, else 503")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
}

// --ras HOST[:PORT] ...: running jobs' NCCL RAS read by the collector itself.
void add_ras_options(CLI::App& cli, ServeArguments& a) {
    auto* ras_opt = cli.add_option("--ras", a.ras_addresses,
                                   "read a running job's NCCL RAS at HOST[:PORT] (its NCCL_RAS_ADDR; port 28028 by "
                                   "default) every --ras-interval into a job, as `meshscope import` puts records, "
                                   "and at once on each of its MONITOR events (repeatable: one job each)")
                        ->type_name("HOST[:PORT]");
    cli.add_option("--ras-job", a.ras_jobs, "the job of the n-th --ras (repeatable; default ras@HOST:PORT)")
        ->type_name("NAME")
        ->needs(ras_opt);
    cli.add_option("--ras-interval", a.ras_interval,
                   "seconds between two reads of each --ras (ranks behind are a finding once two reads "
                   "in a row show the same differing counts)")
        ->capture_default_str()
        ->needs(ras_opt);
    cli.add_option("--ras-timeout", a.ras_timeout,
                   "seconds for a --ras connection and handshake, then for its whole status")
        ->capture_default_str()
        ->needs(ras_opt);
}

// --torch-debug HOST[:PORT] ...: the Flight Recorder that torch's debug server serves, read by the collector.
void add_torch_debug_options(CLI::App& cli, ServeArguments& a) {
    auto* torch_opt =
        cli.add_option("--torch-debug", a.torch_addresses,
                       "read the Flight Recorder of a running job from torch's debug server (the front end that "
                       "torch.distributed.debug.start_debug_server runs on rank 0; port 25999 by default) every "
                       "--torch-debug-interval into a job, as `meshscope import` puts records (repeatable: one job "
                       "each)")
            ->type_name("HOST[:PORT]");
    cli.add_option("--torch-debug-job", a.torch_jobs,
                   "the job of the n-th --torch-debug (repeatable; default torch@HOST:PORT)")
        ->type_name("NAME")
        ->needs(torch_opt);
    cli.add_option("--torch-debug-interval", a.torch_interval,
                   "seconds between two reads of each --torch-debug (a collective some ranks never entered is a "
                   "finding once two reads in a row show every rank's Flight Recorder unchanged)")
        ->capture_default_str()
        ->needs(torch_opt);
    cli.add_option("--torch-debug-timeout", a.torch_timeout,
                   "seconds for a --torch-debug connection, then for its whole page (the front end asks every "
                   "rank's worker first)")
        ->capture_default_str()
        ->needs(torch_opt);
    cli.add_option("--torch-debug-backend", a.torch_backend,
                   "the Flight Recorder the front end reads: gloo (CPU groups; torch's default) or nccl")
        ->capture_default_str()
        ->needs(torch_opt);
    cli.add_option("--torch-debug-max-reply", a.torch_max_reply,
                   "largest page in bytes read from --torch-debug (larger: a finding)")
        ->capture_default_str()
        ->needs(torch_opt);
}

// In --help's order: the collector, --ras, --torch-debug, --otlp-export, the plan.
void add_serve_options(CLI::App& cli, ServeArguments& a) {
    add_collector_options(cli, a);
    add_ras_options(cli, a);
    add_torch_debug_options(cli, a);
    a.otlp_flags.add_to(cli);
    a.plan_options.add_to(cli, "with --ras or --torch-debug: ");
}

int usage_error(const std::string& message, const char* hint) {
    std::cerr << "meshscope serve: " << message << "\n" << hint << "\n";
    return exit_usage;
}

// --plan and --dp are for the jobs --ras and --torch-debug read: alone they are a usage error. Then the plan.
std::optional<int> plan_of(const CLI::App& cli, const ServeArguments& a, std::optional<Plan>& plan) {
    if (a.ras_addresses.empty() && a.torch_addresses.empty()) {
        for (const auto* opt : {cli.get_option("--plan"), cli.get_option("--dp")})
            if (opt->count() > 0) {
                std::cerr << "meshscope serve: " << opt->get_name() << " requires --ras or --torch-debug\n"
                          << "Run 'meshscope serve --help' for usage.\n";
                return exit_usage;
            }
        return std::nullopt;
    }
    return plan_from_options("serve", a.ras_addresses.empty() ? torch_debug_hint : ras_hint, a.plan_options, plan);
}

// One poller a --ras, each into its own job (jobs: every job named so far, this one's added).
std::optional<int> ras_polls_of(const ServeArguments& a, const std::optional<Plan>& plan,
                                std::vector<std::string>& jobs, std::vector<server::RasPollerOptions>& polls) {
    if (a.ras_addresses.empty()) return std::nullopt;
    if (a.ras_jobs.size() > a.ras_addresses.size())
        return usage_error(std::to_string(a.ras_jobs.size()) + " --ras-job for " +
                               std::to_string(a.ras_addresses.size()) + " --ras: give one job name per --ras at most",
                           ras_hint);
    for (const auto& [name, value] : {std::pair{"--ras-interval", a.ras_interval}, {"--ras-timeout", a.ras_timeout}})
        if (!std::isfinite(value) || value < 0.05 || value > 86400)
            return usage_error(std::string(name) + " must be from 0.05 to 86400 seconds", ras_hint);
    for (std::size_t i = 0; i < a.ras_addresses.size(); ++i) {
        server::RasPollerOptions poll;
        poll.address = a.ras_addresses[i];
        std::string host, port;
        if (auto error = ras::split_address(poll.address, host, port)) return usage_error("--ras " + *error, ras_hint);
        poll.job = i < a.ras_jobs.size() ? a.ras_jobs[i] : server::default_ras_job(poll.address);
        if (!valid_job_name(poll.job))
            return usage_error("--ras-job must be 1 to " + std::to_string(EventLimits{}.max_job_length) +
                                   " characters of A-Z, a-z, 0-9 and ._-:@+=, got '" + records::printable(poll.job) +
                                   "'",
                               ras_hint);
        if (std::find(jobs.begin(), jobs.end(), poll.job) != jobs.end())
            return usage_error("two --ras put their status into job '" + poll.job + "': give each its --ras-job",
                               ras_hint);
        jobs.push_back(poll.job);
        poll.interval = milliseconds(a.ras_interval);
        poll.timeout = milliseconds(a.ras_timeout);
        poll.plan = plan;
        polls.push_back(std::move(poll));
    }
    return std::nullopt;
}

// --torch-debug-interval, -timeout, -backend and -max-reply, checked once for every --torch-debug.
std::optional<int> check_torch_debug_settings(const ServeArguments& a) {
    if (a.torch_jobs.size() > a.torch_addresses.size())
        return usage_error(std::to_string(a.torch_jobs.size()) + " --torch-debug-job for " +
                               std::to_string(a.torch_addresses.size()) +
                               " --torch-debug: give one job name per --torch-debug at most",
                           torch_debug_hint);
    for (const auto& [name, value] :
         {std::pair{"--torch-debug-interval", a.torch_interval}, {"--torch-debug-timeout", a.torch_timeout}})
        if (!std::isfinite(value) || value < 0.05 || value > 86400)
            return usage_error(std::string(name) + " must be from 0.05 to 86400 seconds", torch_debug_hint);
    const std::string& backend = a.torch_backend;
    if (backend.empty() || backend.size() > 32 || !std::all_of(backend.begin(), backend.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
        }))
        return usage_error(
            "--torch-debug-backend must be 1 to 32 characters of A-Z, a-z, 0-9 and _ (gloo, "
            "nccl, ...), got '" +
                records::printable(backend) + "'",
            torch_debug_hint);
    if (a.torch_max_reply < 1024 || a.torch_max_reply > (std::size_t{1} << 32))
        return usage_error("--torch-debug-max-reply must be from 1024 to 4294967296 bytes", torch_debug_hint);
    return std::nullopt;
}

// One poller a --torch-debug, each into its own job, none shared with a --ras (jobs: every job named so far).
std::optional<int> torch_polls_of(const ServeArguments& a, const std::optional<Plan>& plan,
                                  std::vector<std::string>& jobs, std::vector<server::TorchDebugPollerOptions>& polls) {
    if (a.torch_addresses.empty()) return std::nullopt;
    if (const auto failed = check_torch_debug_settings(a)) return failed;
    for (std::size_t i = 0; i < a.torch_addresses.size(); ++i) {
        server::TorchDebugPollerOptions poll;
        poll.address = a.torch_addresses[i];
        std::string host, port;
        if (auto error = server::split_torch_debug_address(poll.address, host, port))
            return usage_error("--torch-debug " + *error, torch_debug_hint);
        poll.job = i < a.torch_jobs.size() ? a.torch_jobs[i] : server::default_torch_debug_job(poll.address);
        if (!valid_job_name(poll.job))
            return usage_error("--torch-debug-job must be 1 to " + std::to_string(EventLimits{}.max_job_length) +
                                   " characters of A-Z, a-z, 0-9 and ._-:@+=, got '" + records::printable(poll.job) +
                                   "'",
                               torch_debug_hint);
        if (std::find(jobs.begin(), jobs.end(), poll.job) != jobs.end())
            return usage_error("two sources put their records into job '" + poll.job +
                                   "': give each --torch-debug its --torch-debug-job",
                               torch_debug_hint);
        jobs.push_back(poll.job);
        poll.backend = a.torch_backend;
        poll.interval = milliseconds(a.torch_interval);
        poll.timeout = milliseconds(a.torch_timeout);
        poll.max_reply = a.torch_max_reply;
        poll.plan = plan;
        polls.push_back(std::move(poll));
    }
    return std::nullopt;
}

// Where and how the collector listens: the address, the token (from --token-file too), TLS, and a token wherever
// the address is not loopback.
std::optional<int> http_options_of(const ServeArguments& a, server::HttpOptions& http) {
    const auto address = parse_listen_address(a.listen);
    if (!address) {
        std::cerr << "meshscope serve: " << address.error().message() << "\n";
        return exit_usage;
    }
    std::string token = a.token;
    if (!a.token_file.empty()) {
        std::ifstream in(a.token_file);
        if (!in || !std::getline(in, token) || token.empty()) {
            std::cerr << "meshscope serve: cannot read a token from " << a.token_file << "\n";
            return exit_usage;
        }
        while (!token.empty() && (token.back() == '\r' || token.back() == ' ')) token.pop_back();
    }
    if (a.tls_cert.empty() != a.tls_key.empty()) {
        std::cerr << "meshscope serve: --tls-cert and --tls-key go together: give both\n";
        return exit_usage;
    }
    if (!a.tls_cert.empty()) {
        if (const auto usable = server::check_tls_files(a.tls_cert, a.tls_key); !usable) {
            std::cerr << "meshscope serve: " << usable.error().message() << "\n";
            return exit_usage;
        }
    }
    if (token.empty() && !address->loopback) {
        std::cerr << "meshscope serve: " << a.listen
                  << " is not a loopback address: give --token or --token-file so that only your ranks can report\n";
        return exit_usage;
    }
    http.address = address->host;
    http.port = address->port;
    http.token = token;
    http.allowed_hosts = a.allowed_hosts;
    http.tls_cert = a.tls_cert;
    http.tls_key = a.tls_key;
    http.limits.max_body_bytes = a.max_body;
    http.limits.max_connections = a.max_connections;
    http.tour_jobs = demo::CollectorTourJobs::factory();
    return std::nullopt;
}

// The arguments checked in the order a user meets them (--otlp-export, the plan, --ras, --torch-debug, then the
// listening side): the first problem's message and exit status, else the setup.
std::optional<int> validate_serve(const CLI::App& cli, const ServeArguments& a, ServeSetup& setup) {
    if (const auto error = a.otlp_flags.check(setup.otlp_export)) return usage_error(*error, otlp_hint);
    std::optional<Plan> plan;
    if (const auto failed = plan_of(cli, a, plan)) return failed;
    std::vector<std::string> jobs;  // every job a --ras or --torch-debug reads into
    if (const auto failed = ras_polls_of(a, plan, jobs, setup.ras_polls)) return failed;
    if (const auto failed = torch_polls_of(a, plan, jobs, setup.torch_polls)) return failed;
    if (const auto failed = http_options_of(a, setup.http)) return failed;
    if (!a.cluster_profile.empty()) {
        auto loaded = cost::load_cluster_profile(a.cluster_profile);
        if (!loaded) {
            std::cerr << "meshscope serve: " << loaded.error().message() << "\n";
            return exit_usage;
        }
        setup.http.cluster_profile = std::make_shared<const cost::LoadedClusterProfile>(
            cost::LoadedClusterProfile{a.cluster_profile, std::move(loaded).value()});
    }
    setup.collector.database = a.db;
    setup.collector.monitor.missing_after = a.missing_after;
    setup.collector.monitor.stale_after = a.stale_after;
    setup.collector.shedding = a.shedding;
    setup.collector.max_jobs = a.max_jobs;
    setup.collector.max_ranks = a.max_ranks;
    return std::nullopt;
}

// Runs the collector, its pollers and its exporter until SIGINT or SIGTERM, then stops them in order.
int serve_until_stopped(ServeSetup setup) {
    // SIGINT/SIGTERM are taken by sigwait below, not by a handler: block them before any thread starts
    // (threads inherit the mask), so that none of the collector's threads is interrupted by them.
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

    auto service = server::CollectorService::start(setup.collector, setup.http);
    if (!service) {
        std::cerr << "meshscope serve: " << service.error().message() << "\n";
        return exit_failure;
    }
    const auto stats = (*service)->collector().stats();
    // One line for scripts and tests: where to reach it and what it rebuilt.
    nlohmann::json started = {{"listening", (*service)->url()},
                              {"port", (*service)->port()},
                              {"db", (*service)->collector().database_path()},
                              {"events_rebuilt", stats.events_rebuilt}};
    // Each --ras read on its own thread from now on; its job is named here for scripts.
    std::vector<std::unique_ptr<server::RasPoller>> pollers;
    for (auto& poll : setup.ras_polls) {
        started["ras"].push_back({{"address", poll.address}, {"job", poll.job}});
        pollers.push_back(std::make_unique<server::RasPoller>((*service)->collector(), std::move(poll)));
    }
    // Each --torch-debug likewise.
    std::vector<std::unique_ptr<server::TorchDebugPoller>> torch_pollers;
    for (auto& poll : setup.torch_polls) {
        started["torch_debug"].push_back({{"address", poll.address}, {"job", poll.job}});
        torch_pollers.push_back(std::make_unique<server::TorchDebugPoller>((*service)->collector(), std::move(poll)));
    }
    // Findings and gauges out to the site's OpenTelemetry Collector, from a thread of its own.
    std::unique_ptr<server::OtlpExporter> exporter;
    if (setup.otlp_export) {
        started["otlp_export"] = setup.otlp_export->url;
        exporter = std::make_unique<server::OtlpExporter>((*service)->collector(), std::move(*setup.otlp_export));
    }
    std::cout << started.dump() << std::endl;

    int signal = 0;
    sigwait(&stop_signals, &signal);
    pollers.clear();                     // no more reads of RAS (one in progress ends at once)
    torch_pollers.clear();               // nor of torch's debug servers
    exporter.reset();                    // what is still queued is sent once more (at most 2 s)
    std::move(service).value().reset();  // stop listening, commit what is in flight
    return exit_ok;
}
}  // namespace

int run_serve(int argc, char** argv) {
    CLI::App cli{"Collect live events from training ranks, keep their history and report findings.", "meshscope serve"};
    ServeArguments a;
    add_serve_options(cli, a);
    if (const auto status = parse_or_usage(cli, argc, argv, Usage{"serve"})) return *status;
    ServeSetup setup;
    if (const auto failed = validate_serve(cli, a, setup)) return *failed;
    return serve_until_stopped(std::move(setup));
}

}  // namespace meshscope::app
