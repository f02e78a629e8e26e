// meshscope serve: the collector. Events in over HTTP, durably stored (SQLite WAL), watched by the
// monitor; jobs, ranks and findings out over HTTP, a WebSocket stream and /metrics (docs/collector.md).
#include <CLI/CLI.hpp>

#include <csignal>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "collector_tour_jobs.h"
#include "commands.h"
#include "http/collector_service.h"
#include "listen_address.h"

namespace meshscope::app {

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
                   "ranks the live jobs' world sizes may claim together; past it the finished jobs are forgotten, "
                   "else 503")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    try {
        cli.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return cli.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "meshscope serve: " << e.what() << "\nRun 'meshscope serve --help' for usage.\n";
        return exit_usage;
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
    std::cout << nlohmann::json{{"listening", (*service)->url()},
                                {"port", (*service)->port()},
                                {"db", (*service)->collector().database_path()},
                                {"events_rebuilt", stats.events_rebuilt}}
                     .dump()
              << std::endl;

    int signal = 0;
    sigwait(&stop_signals, &signal);
    std::move(service).value().reset();  // stop listening, commit what is in flight
    return exit_ok;
}

}  // namespace meshscope::app
