// meshscope ras: a running job's NCCL RAS status read live from its RAS socket (what `ncclras -v` reads), JSON
// when the server has it (2.28.7 and later) and RAS's text form otherwise, diagnosed as `meshscope diagnose`
// diagnoses a saved status; polled with --interval, where a communicator whose ranks' operation counts differ and
// do not change between polls is called stalled (Ray's rule); or --monitor: RAS's lifecycle events as they come.
// Exit 0 when every status was read (whatever it shows) or the monitored job closed the connection, 1 when the
// server could not be reached or answered wrongly (the one-line message names host:port), 2 for bad flags.
#include <CLI/CLI.hpp>

#include <charconv>
#include <chrono>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_support.h"
#include "commands.h"
#include "meshscope/mesh/json_limits.h"
#include "meshscope/records/diagnose.h"
#include "meshscope/records/nccl_ras.h"
#include "ras/ras_client.h"
#include "record_files.h"

namespace meshscope::app {

using ras::RasClient;
using ras::RasClientError;

namespace {
constexpr const char* usage_hint =
    "hint: meshscope ras HOST[:PORT] [--plan FILE | --dp D [--cp C] [--ep E]] [--once | --interval S [--polls N]] "
    "[--monitor] [--timeout S] [--format text|json]";

const Usage usage_error{"ras", usage_hint};

std::optional<double> positive_seconds(const std::string& text) {
    double v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size() || !std::isfinite(v) || v <= 0 || v > 86400)
        return std::nullopt;
    return v;
}

std::string event_text(const std::string& event, bool json, const std::string& where) {
    if (!json) return records::printable(event);
    // Bounded as every JSON from outside (json_limits.h): a deeper event is "not JSON" here.
    const nlohmann::json e = parse_json_bounded(event);
    if (e.is_discarded())
        throw RasClientError(where + " sent an event that is not JSON: " +
                             records::printable(event.substr(0, std::min<std::size_t>(event.size(), 60))));
    const auto str = [&](const nlohmann::json& o, const char* key) {
        return o.is_object() && o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : std::string();
    };
    std::string out = str(e, "timestamp") + " " + str(e, "event") + ":";
    if (e.contains("peer") && e["peer"].is_object()) {
        const auto& peer = e["peer"];
        if (peer.contains("addr")) out += " " + str(peer, "addr");
        if (peer.contains("host")) out += " " + str(peer, "host");
        if (peer.contains("pid") && peer["pid"].is_number_integer())
            out += " pid " + std::to_string(peer["pid"].get<std::int64_t>());
        if (peer.contains("cuda_devs") && peer["cuda_devs"].is_array()) {
            std::string devs;
            for (const auto& d : peer["cuda_devs"])
                if (d.is_number_integer()) devs += (devs.empty() ? "" : ",") + std::to_string(d.get<int>());
            out += std::string(" GPU") + (peer["cuda_devs"].size() == 1 ? " " : "s ") + devs;
        }
    }
    if (const std::string details = str(e, "details"); !details.empty()) out += " " + details;
    return records::printable(out);
}

// Everything `meshscope ras` reads from its command line.
struct RasArguments {
    std::string address, format = "text";
    std::string interval_text, timeout_text = "15";
    std::int64_t polls = 0;
    std::size_t max_reply = 64u << 20;
    bool once = false, monitor = false;
    PlanOptions plan_options;
};

void add_ras_options(CLI::App& cli, RasArguments& a) {
    cli.add_option("address", a.address, "the job's RAS socket, HOST[:PORT] (port 28028 by default)")
        ->required()
        ->type_name("HOST[:PORT]");
    a.plan_options.add_to(cli);
    auto* once_opt = cli.add_flag("--once", a.once, "read the status once (the default)");
    auto* interval_opt =
        cli.add_option("--interval", a.interval_text, "poll every S seconds; stalled communicators are named")
            ->type_name("S");
    auto* polls_opt = cli.add_option("--polls", a.polls, "with --interval: stop after N polls (0: until interrupted)")
                          ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40));
    auto* monitor_opt =
        cli.add_flag("--monitor", a.monitor, "print RAS's lifecycle events (PEER_DEAD, ...) as they come");
    cli.add_option("--timeout", a.timeout_text, "seconds for the connection, the handshake, and each whole reply")
        ->type_name("S")
        ->capture_default_str();
    cli.add_option("--max-reply", a.max_reply, "bytes of one reply read at most")
        ->check(CLI::Range(std::size_t{1024}, std::size_t{1} << 32))
        ->capture_default_str();
    cli.add_option("--format", a.format, "text or json (one meshscope.diagnosis/1 object per poll, or per event)")
        ->check(CLI::IsMember({"text", "json"}))
        ->capture_default_str();
    once_opt->excludes(interval_opt)->excludes(monitor_opt);
    interval_opt->excludes(monitor_opt);
    polls_opt->needs(interval_opt);
}

// The checked arguments: where RAS listens, the times, the plan.
struct RasSetup {
    std::string host, port;
    double timeout = 0;
    std::optional<double> interval;  // none: read once
    std::optional<Plan> plan;
};

std::optional<int> validate_ras(const RasArguments& a, RasSetup& setup) {
    if (auto error = ras::split_address(a.address, setup.host, setup.port)) return usage_error(*error);
    const auto timeout = positive_seconds(a.timeout_text);
    if (!timeout) return usage_error("--timeout " + a.timeout_text + ": a number of seconds above 0, at most 86400");
    setup.timeout = *timeout;
    if (!a.interval_text.empty()) {
        setup.interval = positive_seconds(a.interval_text);
        if (!setup.interval)
            return usage_error("--interval " + a.interval_text + ": a number of seconds above 0, at most 86400");
    }
    return plan_from_options("ras", usage_hint, a.plan_options, setup.plan);
}

void warn_protocol(const RasClient& client, long version) {
    if (version != records::ras_client_protocol)
        std::cerr << "meshscope ras: " << client.where() << " speaks RAS protocol " << version << ", this client "
                  << records::ras_client_protocol << "; continuing\n";
}

// --monitor: RAS's lifecycle events printed as they come, until the job closes the connection.
int follow_events(RasClient& client, bool json_out) {
    warn_protocol(client, client.open(true));
    client.monitor([&](const std::string& event) {
        if (json_out) {
            nlohmann::json line;
            if (client.json()) {
                line = parse_json_bounded(event);
                if (line.is_discarded()) (void)event_text(event, true, client.where());  // throws the message
            } else {
                line = {{"line", event}};
            }
            std::cout << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        } else {
            std::cout << event_text(event, client.json(), client.where()) << "\n";
        }
        std::cout.flush();
        return static_cast<bool>(std::cout);
    });
    std::cerr << "meshscope ras: " << client.where() << " closed the connection (the job ended?)\n";
    return std::cout ? exit_ok : exit_failure;
}

// "the ep group 1 [4, 5, 6, 7] communicator (commId 0x2b1d5e7f9a3c4e60)" when placed
std::string communicator_label(const records::Diagnosis& diagnosis, const std::string& hash) {
    for (const auto& g : diagnosis.groups)
        if (g.id == "commId " + hash && g.place) return g.label() + " communicator (commId " + hash + ")";
    return "communicator commId " + hash;
}

// One status read, as the user sees it: its diagnosis and, when polling, the communicators stalled so far.
struct PollResult {
    std::int64_t poll = 0;
    bool json_status = false;  // the server sent JSON (else RAS's text form)
    const records::RasStatus& status;
    const records::Diagnosis& diagnosis;
    const std::vector<records::RasStall>& stalls;
};

void print_poll_json(const RasClient& client, const RasSetup& setup, const PollResult& r) {
    nlohmann::json out = {{"source", client.where()},
                          {"nccl_version", r.status.nccl_version},
                          {"status_format", r.json_status ? "json" : "text"},
                          {"diagnosis", records::to_json(r.diagnosis, setup.plan ? &*setup.plan : nullptr)}};
    if (setup.interval) {
        out["poll"] = r.poll;
        out["stalled"] = nlohmann::json::array();
        for (const auto& s : r.stalls)
            out["stalled"].push_back(
                {{"hash", s.hash}, {"label", communicator_label(r.diagnosis, s.hash)}, {"polls", s.polls}});
    }
    std::cout << out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

void print_poll_text(const RasClient& client, const RasSetup& setup, const PollResult& r) {
    const bool json = r.json_status;
    std::cout << "NCCL RAS at " << client.where() << ": NCCL " << records::printable(r.status.nccl_version) << ", "
              << (json ? "JSON" : "text") << " status, " << r.status.communicators.size()
              << (r.status.communicators.size() == 1 ? " communicator" : " communicators") << (json ? "" : " named");
    if (setup.interval) std::cout << " (poll " << r.poll << ")";
    std::cout << "\n" << records::to_text(r.diagnosis);
    if (setup.interval && !r.stalls.empty()) {
        std::cout << "\nstalled (" << r.stalls.size() << "):\n";
        for (const auto& s : r.stalls)
            std::cout << "  the " << records::printable(communicator_label(r.diagnosis, s.hash))
                      << ": its ranks' operation counts differ and did not change over " << s.polls
                      << " polls (NCCL RAS)\n";
    }
}

// The status read once, or every --interval (--polls times, or until interrupted), each diagnosed and printed.
int poll_status(RasClient& client, const RasArguments& a, const RasSetup& setup) {
    records::RasStallWatch watch;
    for (std::int64_t poll = 1;; ++poll) {
        const long version = client.open(true);
        if (poll == 1) warn_protocol(client, version);
        const bool json = client.json();
        const std::string reply = client.verbose_status();
        records::RecordSet set;
        set.ras.push_back(ras::read_status(client, reply));
        const auto& status = set.ras.front();
        const auto stalls = watch.observe(status);
        const auto diagnosis = records::diagnose(set, setup.plan ? &*setup.plan : nullptr);
        const PollResult result{poll, json, status, diagnosis, stalls};
        if (a.format == "json")
            print_poll_json(client, setup, result);
        else
            print_poll_text(client, setup, result);
        std::cout.flush();
        if (!std::cout) return exit_failure;
        if (!setup.interval || (a.polls > 0 && poll >= a.polls)) break;
        std::this_thread::sleep_for(std::chrono::duration<double>(*setup.interval));
    }
    return exit_ok;
}
}  // namespace

int run_ras(int argc, char** argv) {
    CLI::App cli{
        "Read a running job's NCCL RAS status from its RAS socket (NCCL_RAS_ADDR, default localhost:28028) "
        "and diagnose it; poll it, or follow its lifecycle events.",
        "meshscope ras"};
    RasArguments a;
    add_ras_options(cli, a);
    if (const auto status = parse_or_usage(cli, argc, argv, usage_error)) return *status;
    RasSetup setup;
    if (const auto failed = validate_ras(a, setup)) return *failed;
    const auto timeout_ms = std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(setup.timeout * 1000)));
    RasClient client(setup.host, setup.port, timeout_ms, a.max_reply);
    try {
        return a.monitor ? follow_events(client, a.format == "json") : poll_status(client, a, setup);
    } catch (const RasClientError& e) {
        std::cerr << "meshscope ras: " << records::printable(e.what()) << "\n";
        return exit_failure;
    }
}

}  // namespace meshscope::app
