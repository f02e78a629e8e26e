// meshscope export: one stored job as JSONL (one protocol event per line, in stored order, with the
// collector's receive time as "received"), which `meshscope replay --input` reads back. Heartbeats are
// kept as one summary per rank (docs/collector.md, "History"), so each rank's last heartbeat follows the
// events, at its last receive time, with "heartbeats" (how many were stored) and "first_received".
// The file opens with {"meshscope_export": "meshscope.export/1", "job": J} and ends with
// {"meshscope_export_end": {"events": N}}: replay refuses an export that lost its end (a copy cut short at a line
// break would otherwise replay as a complete job).
#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli_support.h"
#include "commands.h"
#include "meshscope/mesh/json_limits.h"
#include "store/event_store.h"

namespace meshscope::app {

int run_export(int argc, char** argv) {
    CLI::App cli{"Write a stored job's events as JSONL (replay reads it back).", "meshscope export"};
    std::string db, job, output;
    cli.add_option("--db", db, "history database (default: " + server::default_database_path() + ")");
    cli.add_option("--job", job, "the job to export")->required();
    cli.add_option("--output,-o", output, "write to FILE instead of stdout");
    if (const auto status = parse_or_usage(cli, argc, argv, Usage{"export"})) return *status;
    if (db.empty()) db = server::default_database_path();
    if (!std::filesystem::exists(db)) {
        std::cerr << "meshscope export: no history database at " << db << "\n";
        return exit_usage;
    }
    auto store = server::EventStore::open(db, server::Durability::normal);
    if (!store) {
        std::cerr << "meshscope export: " << store.error().message() << "\n";
        return exit_failure;
    }
    if ((*store)->count(job) == 0) {
        std::cerr << "meshscope export: no job named \"" << job << "\" in " << db << "\n";
        return exit_usage;
    }
    std::ofstream file;
    if (!output.empty()) {
        file.open(output, std::ios::binary | std::ios::trunc);
        if (!file) {
            std::cerr << "meshscope export: cannot write " << output << "\n";
            return exit_failure;
        }
    }
    std::ostream& out = output.empty() ? std::cout : file;
    out << nlohmann::json{{export_header_key, export_format}, {"job", job}}.dump() << '\n';
    std::int64_t lines = 0;
    std::int64_t heartbeats = 0;
    auto write = [&](nlohmann::json& line) {
        out << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
        ++lines;
    };
    auto read = (*store)->for_each(job, [&](const server::StoredEvent& e) {
        auto line = parse_json_bounded(e.json);
        if (line.is_discarded()) return true;
        line["received"] = e.received;
        write(line);
        return true;
    });
    if (!read)
        read = (*store)->for_each_heartbeat(job, [&](const server::StoredHeartbeat& h) {
            auto line = parse_json_bounded(h.json);
            if (line.is_discarded()) return true;
            line["received"] = h.last_received;
            line["first_received"] = h.first_received;
            line["heartbeats"] = h.count;
            write(line);
            heartbeats += h.count;
            return true;
        });
    if (read) {
        // No end line: replay refuses the file, as it was not written whole.
        std::cerr << "meshscope export: " << read->message() << "\n";
        return exit_failure;
    }
    out << nlohmann::json{{export_end_key, {{"events", lines}}}}.dump() << '\n';
    out.flush();
    if (!out) {
        std::cerr << "meshscope export: write failed\n";
        return exit_failure;
    }
    std::cerr << "meshscope export: " << lines << " events of \"" << job << "\" (" << heartbeats
              << " heartbeats summarized in one line per rank)\n";
    return exit_ok;
}

}  // namespace meshscope::app
