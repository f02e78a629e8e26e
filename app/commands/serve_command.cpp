// meshscope serve: the collector. Events in over HTTP, durably stored (SQLite WAL), watched by the
// monitor; jobs, ranks and findings out over HTTP, a WebSocket stream and /metrics (docs/collector.md).
#include <CLI/CLI.hpp>
#include <QCoreApplication>
#include <QHostAddress>
#include <QTimer>

#include <atomic>
#include <csignal>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "http/collector_service.h"
#include "listen_address.h"

namespace meshscope::app {

namespace {
std::atomic<bool> stop_requested{false};
void request_stop(int) {
    stop_requested = true;
}
}  // namespace

int run_serve(int argc, char** argv) {
    CLI::App cli{"Collect live events from training ranks, keep their history and report findings.", "meshscope serve"};
    std::string listen = "127.0.0.1:7077", token, token_file, db;
    double missing_after = 30, stale_after = 60;
    std::int64_t max_body = 1 << 20;
    int max_connections = 1024;
    cli.add_option("--listen", listen, "HOST:PORT to listen on (port 0: any free port)")->capture_default_str();
    auto* token_opt = cli.add_option("--token", token, "require 'Authorization: Bearer TOKEN' on every request");
    cli.add_option("--token-file", token_file, "read the token from FILE (first line)")->excludes(token_opt);
    cli.add_option("--db", db, "history database (default: " + server::default_database_path() + ")");
    cli.add_option("--missing-after", missing_after,
                   "seconds after a job's first event before unseen ranks are missing")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cli.add_option("--stale-after", stale_after, "seconds without events before a running rank is stale")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cli.add_option("--max-body", max_body, "largest request body in bytes (larger: 413)")->capture_default_str();
    cli.add_option("--max-connections", max_connections, "open connections beyond this get 503")->capture_default_str();
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
    if (token.empty() && !address->host.isLoopback()) {
        std::cerr << "meshscope serve: " << listen
                  << " is not a loopback address: give --token or --token-file so that only your ranks can report\n";
        return exit_usage;
    }

    int qt_argc = 1;
    QCoreApplication app(qt_argc, argv);
    server::CollectorOptions collector;
    collector.database = db;
    collector.monitor.missing_after = missing_after;
    collector.monitor.stale_after = stale_after;
    server::HttpOptions http;
    http.address = address->host;
    http.port = address->port;
    http.token = QByteArray::fromStdString(token);
    http.limits.max_body_bytes = max_body;
    http.limits.max_connections = max_connections;

    auto service = server::CollectorService::start(collector, http);
    if (!service) {
        std::cerr << "meshscope serve: " << service.error().message() << "\n";
        return exit_failure;
    }
    const auto stats = (*service)->collector().stats();
    // One line for scripts and tests: where to reach it and what it rebuilt.
    std::cout << nlohmann::json{{"listening", (*service)->url().toStdString()},
                                {"port", (*service)->port()},
                                {"db", (*service)->collector().database_path()},
                                {"events_rebuilt", stats.events_rebuilt}}
                     .dump()
              << std::endl;

    std::signal(SIGINT, request_stop);
    std::signal(SIGTERM, request_stop);
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, &app, [] {
        if (stop_requested) QCoreApplication::quit();
    });
    poll.start(100);
    app.exec();
    std::move(service).value().reset();  // stop listening, commit what is in flight
    return exit_ok;
}

}  // namespace meshscope::app
