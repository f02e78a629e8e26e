// meshscope replay: sends a recorded job (from the history database or an exported JSONL file) to a
// collector or dashboard as its ranks sent it, paced by the original receive times (--speed), through the
// same C++ client and the same parser as live events.
#include <CLI/CLI.hpp>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli_support.h"
#include "commands.h"
#include "meshscope/client/reporter.h"
#include "meshscope/mesh/json_limits.h"
#include "meshscope/monitor/event.h"
#include "store/event_store.h"

namespace meshscope::app {

namespace {
std::atomic<bool> replay_stop{false};
void stop_replay(int) {
    replay_stop = true;
}

struct Recorded {
    Event event;
    double received = 0;
};

// Reads the job's events; the one parser validates every line. ValueError "{source}:{line}: {message}".
Expected<std::vector<Recorded>> read_jsonl(const std::string& path, const std::string& job) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return ValueError("cannot read " + path);
    std::vector<Recorded> out;
    std::string line;
    std::int64_t number = 0;
    // An export (its first line names the format) must end with its end line, counting its events: a copy cut
    // short at a line break is refused instead of replayed as the whole job. Hand-written JSONL has neither.
    bool exported = false;
    std::optional<std::int64_t> ended;  // the end line's count, once read
    std::int64_t events = 0;
    const auto at = [&] { return path + ":" + std::to_string(number) + ": "; };
    while (std::getline(in, line)) {
        ++number;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        if (ended) return ValueError(at() + "a line after the export's end line");
        bool too_deep = false;
        const auto json = parse_json_bounded(line, &too_deep);
        if (too_deep) return ValueError(at() + json_depth_text());
        if (json.is_discarded()) return ValueError(at() + "not valid JSON");
        if (json.is_object() && json.contains(export_header_key)) {
            if (number != 1 || json[export_header_key] != export_format)
                return ValueError(at() + "not an export header of " + export_format);
            exported = true;
            continue;
        }
        if (exported && json.is_object() && json.contains(export_end_key)) {
            const auto& end = json[export_end_key];
            if (!end.is_object() || !end.contains("events") || !end["events"].is_number_unsigned() ||
                end["events"].get<std::int64_t>() != events)
                return ValueError(at() + "the export's end line does not match its events (" + std::to_string(events) +
                                  " before it)");
            ended = events;
            continue;
        }
        ++events;
        auto event = event_from_json(json);
        if (!event) return ValueError(path + ":" + std::to_string(number) + ": " + event.error().message());
        if (!job.empty() && event->job != job) continue;
        const double received =
            json.contains("received") && json["received"].is_number() ? json["received"].get<double>() : 0;
        out.push_back({std::move(event).value(), received});
    }
    if (exported && !ended)
        return ValueError(path + ": the export ends after line " + std::to_string(number) +
                          " without its end line: it was cut short");
    return out;
}

Expected<std::vector<Recorded>> read_database(const std::string& db, const std::string& job) {
    if (!std::filesystem::exists(db)) return ValueError("no history database at " + db);
    auto store = server::EventStore::open(db, server::Durability::normal);
    if (!store) return store.error();
    std::vector<Recorded> out;
    std::optional<Error> error;
    auto add = [&](const std::string& json, double received) {
        auto event = event_from_json(parse_json_bounded(json));
        if (!event) {
            error = event.error();
            return false;
        }
        out.push_back({std::move(event).value(), received});
        return true;
    };
    // The events, then each rank's last heartbeat (the history keeps one per rank), as export writes them.
    // A read that fails (a damaged page) is an error, never the end of the job.
    error = (*store)->for_each(job, [&](const server::StoredEvent& e) { return add(e.json, e.received); });
    if (!error)
        error = (*store)->for_each_heartbeat(
            job, [&](const server::StoredHeartbeat& h) { return add(h.json, h.last_received); });
    if (error) return *error;
    if (out.empty()) return ValueError("no job named \"" + job + "\" in " + db);
    return out;
}
// What the replay did, on stdout as JSON; copies the target already had on stderr; exit 0 when every lifecycle
// event of the `recorded` was acknowledged.
int report_replay(const client::ReporterStats& stats, std::size_t recorded, const std::string& sent_as) {
    std::cout << nlohmann::json{{"job", sent_as},
                                {"events", stats.enqueued},
                                {"acknowledged", stats.acknowledged},
                                {"duplicates", stats.duplicates},
                                {"heartbeats_refused", stats.heartbeats_refused}}
                     .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
              << std::endl;
    // Replayed into the collector it came from, a job's events are copies: answered as stored, not stored again.
    if (stats.duplicates > 0)
        std::cerr << "meshscope replay: the target already had " << stats.duplicates << " of the " << stats.enqueued
                  << " events of \"" << sent_as
                  << "\" and did not store them again; --as-job NAME replays them as a new job\n";
    // Heartbeats are not retried: one the target sheds (503) is counted, not a failure. With nothing rejected,
    // abandoned or pending, every event not acknowledged was such a heartbeat.
    const bool lifecycle_acknowledged =
        stats.enqueued == recorded && stats.rejected == 0 && stats.abandoned == 0 && stats.pending == 0 &&
        stats.acknowledged + stats.heartbeats_refused + stats.heartbeats_evicted == stats.enqueued;
    if (!lifecycle_acknowledged) {
        std::cerr << "meshscope replay: " << stats.acknowledged << " of " << recorded
                  << " events acknowledged; last error: " << stats.last_error << "\n";
        return exit_failure;
    }
    return exit_ok;
}

}  // namespace

int run_replay(int argc, char** argv) {
    CLI::App cli{"Replay a recorded job into a collector or dashboard.", "meshscope replay"};
    std::string db, job, input, target = "http://127.0.0.1:7077", token, as_job;
    double speed = 1;
    cli.add_option("--db", db, "history database (default: " + server::default_database_path() + ")");
    cli.add_option("--job", job, "the job to replay (required with --db)");
    cli.add_option("--input", input, "a JSONL file written by 'meshscope export' instead of the database");
    cli.add_option("--speed", speed, "replay speed; 0 sends everything at once")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    cli.add_option("--target", target, "collector or dashboard URL")->capture_default_str();
    cli.add_option("--token", token, "bearer token of the target");
    cli.add_option("--as-job", as_job, "send the events under another job id");
    if (const auto status = parse_or_usage(cli, argc, argv, Usage{"replay"})) return *status;
    if (input.empty() && job.empty()) {
        std::cerr << "meshscope replay: give --job (with --db) or --input FILE\n";
        return exit_usage;
    }
    if (db.empty()) db = server::default_database_path();
    auto recorded = input.empty() ? read_database(db, job) : read_jsonl(input, job);
    if (!recorded) {
        std::cerr << "meshscope replay: " << recorded.error().message() << "\n";
        return exit_usage;
    }
    std::vector<Recorded> events = std::move(recorded).value();
    if (events.empty()) {
        std::cerr << "meshscope replay: no events to replay\n";
        return exit_usage;
    }

    client::ReporterOptions options;
    options.url = target;
    options.token = token;
    options.connections = 4;
    options.max_queue_events = events.size() + 1;
    options.max_queue_bytes = std::size_t{2} << 30;
    client::Reporter reporter(options);
    std::signal(SIGINT, stop_replay);
    std::signal(SIGTERM, stop_replay);

    const auto start = std::chrono::steady_clock::now();
    const double origin = events.front().received;
    for (Recorded& r : events) {
        if (replay_stop) break;
        if (speed > 0 && r.received > origin) {
            const auto due = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                         std::chrono::duration<double>((r.received - origin) / speed));
            while (std::chrono::steady_clock::now() < due && !replay_stop)
                std::this_thread::sleep_until(
                    std::min(due, std::chrono::steady_clock::now() + std::chrono::milliseconds(100)));
        }
        if (!as_job.empty()) r.event.job = as_job;
        reporter.enqueue(r.event.rank, to_json(r.event).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (!reporter.flush(std::chrono::milliseconds(200)))
        if (replay_stop || std::chrono::steady_clock::now() > deadline) break;
    reporter.shutdown(std::chrono::seconds(2));
    return report_replay(reporter.stats(), events.size(), as_job.empty() ? events.front().event.job : as_job);
}

}  // namespace meshscope::app
