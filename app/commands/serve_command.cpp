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
// and per-job gauges to a site's OpenTelemetry Collector (server/otlp_export, docs/collector.md "OTLP export").
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
}  // namespace

int run_serve(int argc, char** argv) {
    CLI::App cli{"Collect live events from training ranks, keep their history and report findings.", "meshscope serve"};
    std::string listen = "127.0.0.1:7077", token, token_file, db, tls_cert, tls_key;
    double missing_after = 30, stale_after = 60;
    std::size_t max_body = 1 << 20;
    // Every rank holds its own connection: as many as the descriptor limit allows (docs/live-at-scale.md).
    std::size_t max_connections = server::default_max_connections();
    server::Shedding shedding;
    std::size_t max_jobs = server::CollectorOptions{}.max_jobs;
    std::int64_t max_ranks = server::CollectorOptions{}.max_ranks;
    cli.add_option("--listen", listen, "HOST:PORT to listen on (port 0: any free port)")->capture_default_str();
    auto* token_opt = cli.add_option("--token", token, "require 'Authorization: Bearer TOKEN' on every request");
    cli.add_option("--token-file", token_file, "read the token from FILE (first line)")->excludes(token_opt);
    cli.add_option("--tls-cert", tls_cert, "serve HTTPS and wss:// with this PEM certificate (chain); needs --tls-key");
    cli.add_option("--tls-key", tls_key, "the PEM private key of --tls-cert");
    cli.add_option("--db", db, "history database (default: " + server::default_database_path() + ")");
    cli.add_option("--missing-after", missing_after,
                   "seconds after a job's first event before unseen ranks are missing")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cli.add_option("--stale-after", stale_after, "seconds without events before a running rank is stale")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cli.add_option("--max-body", max_body, "largest request body in bytes (larger: 413)")->capture_default_str();
    cli.add_option("--max-connections", max_connections,
                   "open connections beyond this get 503 + Retry-After (default: the raised RLIMIT_NOFILE less " +
                       std::to_string(server::reserved_descriptors) + ")")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cli.add_option(
           "--heartbeat-shed-at", shedding.heartbeat_shed_at,
           "events waiting for the store at which heartbeat-only bodies get 503 (the rank still counts as seen)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    cli.add_option("--shed-all-at", shedding.shed_all_at, "events waiting for the store at which every body gets 503")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    std::vector<std::string> allowed_hosts;
    cli.add_option("--allow-host", allowed_hosts,
                   "without a token: a Host name requests may carry besides the loopback ones (repeatable)");
    cli.add_option("--max-jobs", max_jobs,
                   "live jobs kept in memory; past it the finished ones are forgotten (their history stays), else 503")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cli.add_option("--max-ranks", max_ranks,
                   "ranks that may report in the live jobs together (not the worlds they claim); past it the "
                   "finished jobs are forgotten, else 503")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    std::vector<std::string> ras_addresses, ras_jobs;
    double ras_interval = 5, ras_timeout = 10;
    auto* ras_opt = cli.add_option("--ras", ras_addresses,
                                   "read a running job's NCCL RAS at HOST[:PORT] (its NCCL_RAS_ADDR; port 28028 by "
                                   "default) every --ras-interval into a job, as `meshscope import` puts records, "
                                   "and at once on each of its MONITOR events (repeatable: one job each)")
                        ->type_name("HOST[:PORT]");
    cli.add_option("--ras-job", ras_jobs, "the job of the n-th --ras (repeatable; default ras@HOST:PORT)")
        ->type_name("NAME")
        ->needs(ras_opt);
    cli.add_option("--ras-interval", ras_interval,
                   "seconds between two reads of each --ras (ranks behind are a finding once two reads "
                   "in a row show the same differing counts)")
        ->capture_default_str()
        ->needs(ras_opt);
    cli.add_option("--ras-timeout", ras_timeout,
                   "seconds for a --ras connection and handshake, then for its whole status")
        ->capture_default_str()
        ->needs(ras_opt);
    std::vector<std::string> torch_addresses, torch_jobs;
    double torch_interval = 5, torch_timeout = 30;
    std::string torch_backend = "gloo";
    std::size_t torch_max_reply = server::TorchDebugPollerOptions{}.max_reply;
    auto* torch_opt =
        cli.add_option("--torch-debug", torch_addresses,
                       "read the Flight Recorder of a running job from torch's debug server (the front end that "
                       "torch.distributed.debug.start_debug_server runs on rank 0; port 25999 by default) every "
                       "--torch-debug-interval into a job, as `meshscope import` puts records (repeatable: one job "
                       "each)")
            ->type_name("HOST[:PORT]");
    cli.add_option("--torch-debug-job", torch_jobs,
                   "the job of the n-th --torch-debug (repeatable; default torch@HOST:PORT)")
        ->type_name("NAME")
        ->needs(torch_opt);
    cli.add_option("--torch-debug-interval", torch_interval,
                   "seconds between two reads of each --torch-debug (a collective some ranks never entered is a "
                   "finding once two reads in a row show every rank's Flight Recorder unchanged)")
        ->capture_default_str()
        ->needs(torch_opt);
    cli.add_option("--torch-debug-timeout", torch_timeout,
                   "seconds for a --torch-debug connection, then for its whole page (the front end asks every "
                   "rank's worker first)")
        ->capture_default_str()
        ->needs(torch_opt);
    cli.add_option("--torch-debug-backend", torch_backend,
                   "the Flight Recorder the front end reads: gloo (CPU groups; torch's default) or nccl")
        ->capture_default_str()
        ->needs(torch_opt);
    cli.add_option("--torch-debug-max-reply", torch_max_reply,
                   "largest page in bytes read from --torch-debug (larger: a finding)")
        ->capture_default_str()
        ->needs(torch_opt);
    OtlpExportFlags otlp_flags;
    otlp_flags.add_to(cli);
    PlanOptions plan_options;
    plan_options.add_to(cli, "with --ras or --torch-debug: ");
    if (const auto status = parse_or_usage(cli, argc, argv, Usage{"serve"})) return *status;
    std::optional<server::OtlpExportOptions> otlp_export;
    if (const auto error = otlp_flags.check(otlp_export)) {
        std::cerr << "meshscope serve: " << *error << "\n" << otlp_hint << "\n";
        return exit_usage;
    }
    if (ras_addresses.empty() && torch_addresses.empty())
        for (const auto* opt : {cli.get_option("--plan"), cli.get_option("--dp")})
            if (opt->count() > 0) {
                std::cerr << "meshscope serve: " << opt->get_name() << " requires --ras or --torch-debug\n"
                          << "Run 'meshscope serve --help' for usage.\n";
                return exit_usage;
            }
    std::optional<Plan> plan;
    if (!ras_addresses.empty() || !torch_addresses.empty()) {
        if (const auto failed =
                plan_from_options("serve", ras_addresses.empty() ? torch_debug_hint : ras_hint, plan_options, plan))
            return *failed;
    }
    std::vector<std::string> jobs;  // every job a --ras or --torch-debug reads into

    std::vector<server::RasPollerOptions> ras_polls;
    if (!ras_addresses.empty()) {
        const auto ras_usage = [](const std::string& message) {
            std::cerr << "meshscope serve: " << message << "\n" << ras_hint << "\n";
            return exit_usage;
        };
        if (ras_jobs.size() > ras_addresses.size())
            return ras_usage(std::to_string(ras_jobs.size()) + " --ras-job for " +
                             std::to_string(ras_addresses.size()) + " --ras: give one job name per --ras at most");
        for (const auto& [name, value] : {std::pair{"--ras-interval", ras_interval}, {"--ras-timeout", ras_timeout}})
            if (!std::isfinite(value) || value < 0.05 || value > 86400)
                return ras_usage(std::string(name) + " must be from 0.05 to 86400 seconds");
        for (std::size_t i = 0; i < ras_addresses.size(); ++i) {
            server::RasPollerOptions poll;
            poll.address = ras_addresses[i];
            std::string host, port;
            if (auto error = ras::split_address(poll.address, host, port)) return ras_usage("--ras " + *error);
            poll.job = i < ras_jobs.size() ? ras_jobs[i] : server::default_ras_job(poll.address);
            if (!valid_job_name(poll.job))
                return ras_usage("--ras-job must be 1 to " + std::to_string(EventLimits{}.max_job_length) +
                                 " characters of A-Z, a-z, 0-9 and ._-:@+=, got '" + records::printable(poll.job) +
                                 "'");
            if (std::find(jobs.begin(), jobs.end(), poll.job) != jobs.end())
                return ras_usage("two --ras put their status into job '" + poll.job + "': give each its --ras-job");
            jobs.push_back(poll.job);
            poll.interval = milliseconds(ras_interval);
            poll.timeout = milliseconds(ras_timeout);
            poll.plan = plan;
            ras_polls.push_back(std::move(poll));
        }
    }

    std::vector<server::TorchDebugPollerOptions> torch_polls;
    if (!torch_addresses.empty()) {
        const auto torch_usage = [](const std::string& message) {
            std::cerr << "meshscope serve: " << message << "\n" << torch_debug_hint << "\n";
            return exit_usage;
        };
        if (torch_jobs.size() > torch_addresses.size())
            return torch_usage(std::to_string(torch_jobs.size()) + " --torch-debug-job for " +
                               std::to_string(torch_addresses.size()) +
                               " --torch-debug: give one job name per --torch-debug at most");
        for (const auto& [name, value] :
             {std::pair{"--torch-debug-interval", torch_interval}, {"--torch-debug-timeout", torch_timeout}})
            if (!std::isfinite(value) || value < 0.05 || value > 86400)
                return torch_usage(std::string(name) + " must be from 0.05 to 86400 seconds");
        if (torch_backend.empty() || torch_backend.size() > 32 ||
            !std::all_of(torch_backend.begin(), torch_backend.end(),
                         [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
            return torch_usage(
                "--torch-debug-backend must be 1 to 32 characters of A-Z, a-z, 0-9 and _ (gloo, "
                "nccl, ...), got '" +
                records::printable(torch_backend) + "'");
        if (torch_max_reply < 1024 || torch_max_reply > (std::size_t{1} << 32))
            return torch_usage("--torch-debug-max-reply must be from 1024 to 4294967296 bytes");
        for (std::size_t i = 0; i < torch_addresses.size(); ++i) {
            server::TorchDebugPollerOptions poll;
            poll.address = torch_addresses[i];
            std::string host, port;
            if (auto error = server::split_torch_debug_address(poll.address, host, port))
                return torch_usage("--torch-debug " + *error);
            poll.job = i < torch_jobs.size() ? torch_jobs[i] : server::default_torch_debug_job(poll.address);
            if (!valid_job_name(poll.job))
                return torch_usage("--torch-debug-job must be 1 to " + std::to_string(EventLimits{}.max_job_length) +
                                   " characters of A-Z, a-z, 0-9 and ._-:@+=, got '" + records::printable(poll.job) +
                                   "'");
            if (std::find(jobs.begin(), jobs.end(), poll.job) != jobs.end())
                return torch_usage("two sources put their records into job '" + poll.job +
                                   "': give each --torch-debug its --torch-debug-job");
            jobs.push_back(poll.job);
            poll.backend = torch_backend;
            poll.interval = milliseconds(torch_interval);
            poll.timeout = milliseconds(torch_timeout);
            poll.max_reply = torch_max_reply;
            poll.plan = plan;
            torch_polls.push_back(std::move(poll));
        }
    }

    const auto address = parse_listen_address(listen);
    if (!address) {
        std::cerr << "meshscope serve: " << address.error().message() << "\n";
        return exit_usage;
    }
    if (!token_file.empty()) {
        std::ifstream in(token_file);
        if (!in || !std::getline(in, token) || token.empty()) {
            std::cerr << "meshscope serve: cannot read a token from " << token_file << "\n";
            return exit_usage;
        }
        while (!token.empty() && (token.back() == '\r' || token.back() == ' ')) token.pop_back();
    }
    if (tls_cert.empty() != tls_key.empty()) {
        std::cerr << "meshscope serve: --tls-cert and --tls-key go together: give both\n";
        return exit_usage;
    }
    if (!tls_cert.empty()) {
        if (const auto usable = server::check_tls_files(tls_cert, tls_key); !usable) {
            std::cerr << "meshscope serve: " << usable.error().message() << "\n";
            return exit_usage;
        }
    }
    if (token.empty() && !address->loopback) {
        std::cerr << "meshscope serve: " << listen
                  << " is not a loopback address: give --token or --token-file so that only your ranks can report\n";
        return exit_usage;
    }

    // SIGINT/SIGTERM are taken by sigwait below, not by a handler: block them before any thread starts
    // (threads inherit the mask), so that none of the collector's threads is interrupted by them.
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

    server::CollectorOptions collector;
    collector.database = db;
    collector.monitor.missing_after = missing_after;
    collector.monitor.stale_after = stale_after;
    collector.shedding = shedding;
    collector.max_jobs = max_jobs;
    collector.max_ranks = max_ranks;
    server::HttpOptions http;
    http.address = address->host;
    http.port = address->port;
    http.token = token;
    http.allowed_hosts = allowed_hosts;
    http.tls_cert = tls_cert;
    http.tls_key = tls_key;
    http.limits.max_body_bytes = max_body;
    http.limits.max_connections = max_connections;
    http.tour_jobs = demo::CollectorTourJobs::factory();

    auto service = server::CollectorService::start(collector, http);
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
    for (auto& poll : ras_polls) {
        started["ras"].push_back({{"address", poll.address}, {"job", poll.job}});
        pollers.push_back(std::make_unique<server::RasPoller>((*service)->collector(), std::move(poll)));
    }
    // Each --torch-debug likewise.
    std::vector<std::unique_ptr<server::TorchDebugPoller>> torch_pollers;
    for (auto& poll : torch_polls) {
        started["torch_debug"].push_back({{"address", poll.address}, {"job", poll.job}});
        torch_pollers.push_back(std::make_unique<server::TorchDebugPoller>((*service)->collector(), std::move(poll)));
    }
    // Findings and gauges out to the site's OpenTelemetry Collector, from a thread of its own.
    std::unique_ptr<server::OtlpExporter> exporter;
    if (otlp_export) {
        started["otlp_export"] = otlp_export->url;
        exporter = std::make_unique<server::OtlpExporter>((*service)->collector(), std::move(*otlp_export));
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

}  // namespace meshscope::app
