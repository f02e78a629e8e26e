// meshscope relay: the node-local relay. A node's ranks report to it as to the collector; it forwards
// their bodies upstream in batches over a few kept-alive connections and answers each rank once the
// collector has stored its events (docs/collector.md "Relay", docs/live-at-scale.md).
#include <CLI/CLI.hpp>

#include <atomic>
#include <chrono>
#include <csignal>
#include <fstream>
#include <iostream>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli_support.h"
#include "commands.h"
#include "descriptor_limit.h"
#include "listen_address.h"
#include "relay.h"

namespace meshscope::app {

namespace {
std::atomic<bool> relay_stop_requested{false};
void request_relay_stop(int) {
    relay_stop_requested = true;
}

bool read_token_file(const std::string& path, std::string& token) {
    std::ifstream in(path);
    if (!in || !std::getline(in, token) || token.empty()) return false;
    while (!token.empty() && (token.back() == '\r' || token.back() == ' ')) token.pop_back();
    return !token.empty();
}

// Everything `meshscope relay` reads from its command line; options holds the relay's own settings.
struct RelayArguments {
    relay::RelayOptions options;
    std::string listen = "127.0.0.1:7078", upstream, token, token_file, upstream_token;
    std::vector<std::string> allowed_hosts;
};

void add_relay_options(CLI::App& cli, RelayArguments& a) {
    relay::RelayOptions& options = a.options;
    cli.add_option("--listen", a.listen, "HOST:PORT the ranks report to (port 0: any free port)")
        ->capture_default_str();
    cli.add_option("--upstream", a.upstream, "the collector (or a relay above this one): http://HOST:PORT")->required();
    auto* token_opt = cli.add_option("--token", a.token, "require 'Authorization: Bearer TOKEN' from the ranks");
    cli.add_option("--token-file", a.token_file, "read the token from FILE (first line)")->excludes(token_opt);
    cli.add_option("--upstream-token", a.upstream_token, "send 'Authorization: Bearer TOKEN' upstream");
    cli.add_option("--allow-host", a.allowed_hosts,
                   "without a token: a Host name requests may carry besides the loopback ones (repeatable)");
    cli.add_option("--max-connections", options.max_connections, "rank connections beyond this get 503")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cli.add_option("--max-body", options.max_body_bytes, "largest request body in bytes (larger: 413)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cli.add_option("--batch-ms", options.batch_ms, "longest a body waits for its batch to fill, in ms")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    cli.add_option("--batch-bodies", options.batch_bodies, "most bodies in one upstream batch")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cli.add_option("--max-in-flight", options.max_in_flight,
                   "batches waiting for the upstream at once (one upstream connection each)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cli.add_option("--rank-timeout-ms", options.rank_timeout_ms,
                   "how long a rank waits for its answer when its request does not say (MeshScope-Timeout)")
        ->capture_default_str()
        ->check(CLI::Range(1, 600000));
    cli.add_option("--seen-every-ms", options.seen_every_ms,
                   "how often the ranks whose events were held back are named upstream as seen (proof of life)")
        ->capture_default_str()
        ->check(CLI::Range(10, 600000));
}

// The listening address, the upstream URL and the token (from --token-file too; required off loopback) into
// a.options; the first problem's message and exit status.
std::optional<int> validate_relay(RelayArguments& a) {
    const auto address = parse_listen_address(a.listen);
    if (!address) {
        std::cerr << "meshscope relay: " << address.error().message() << "\n";
        return exit_usage;
    }
    auto upstream_url = relay::parse_upstream_url(a.upstream);
    if (!upstream_url) {
        std::cerr << "meshscope relay: " << upstream_url.error().message() << "\n";
        return exit_usage;
    }
    if (!a.token_file.empty() && !read_token_file(a.token_file, a.token)) {
        std::cerr << "meshscope relay: cannot read a token from " << a.token_file << "\n";
        return exit_usage;
    }
    if (a.token.empty() && !address->loopback) {
        std::cerr << "meshscope relay: " << a.listen
                  << " is not a loopback address: give --token or --token-file so that only your ranks can report\n";
        return exit_usage;
    }
    a.options.listen_host = address->host;
    a.options.listen_port = address->port;
    a.options.upstream = std::move(upstream_url).value();
    a.options.token = a.token;
    a.options.allowed_hosts = a.allowed_hosts;
    a.options.upstream_token = a.upstream_token;
    return std::nullopt;
}

// Runs the relay until SIGINT or SIGTERM, then answers what is waiting and stops.
int relay_until_stopped(const RelayArguments& a) {
    auto started = relay::Relay::start(a.options);
    if (!started) {
        std::cerr << "meshscope relay: " << started.error().message() << "\n";
        return exit_failure;
    }
    auto service = std::move(started).value();
    // One line for scripts and tests, as `meshscope serve` prints.
    std::cout << nlohmann::json{{"listening", service->url()},
                                {"port", service->port()},
                                {"upstream", a.upstream},
                                {"max_connections", a.options.max_connections}}
                     .dump()
              << std::endl;

    std::signal(SIGINT, request_relay_stop);
    std::signal(SIGTERM, request_relay_stop);
    while (!relay_stop_requested) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    service->stop();  // answers what is waiting (bounded), then closes
    return exit_ok;
}
}  // namespace

int run_relay(int argc, char** argv) {
    CLI::App cli{"Relay a node's ranks to the collector: their events go upstream in batches.", "meshscope relay"};
    RelayArguments a;
    // Raised before the flags are declared: --max-connections shows the default the raised limit allows.
    a.options.max_connections = relay::default_max_connections(net::raise_descriptor_limit());
    add_relay_options(cli, a);
    if (const auto status = parse_or_usage(cli, argc, argv, Usage{"relay"})) return *status;
    if (const auto failed = validate_relay(a)) return *failed;
    return relay_until_stopped(a);
}

}  // namespace meshscope::app
