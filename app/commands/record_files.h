// The files `meshscope diagnose` reads, turned into core's RecordSet: plain or gzip files (by their magic bytes),
// directories walked for them, each file sniffed by content (a pickle, a JSON document, RAS's text status, or text
// read as an NCCL log, streamed). A file that cannot be read is named with why; the rest are still read.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "meshscope/records/diagnose.h"

namespace meshscope::app {

struct RecordLimits {
    std::size_t max_files = 100000;         // files taken from the paths given (directories walked)
    std::size_t max_document = 1ull << 30;  // bytes of one Flight Recorder dump or RAS status, decompressed
};

// Reads every path (a file, or a directory walked recursively in name order) into `into`.
void load_records(const std::vector<std::string>& paths, records::RecordSet& into, const RecordLimits& limits = {});

// load_records for a command: each file it could not read named on stderr ("meshscope COMMAND: ..."), and false,
// with the sentence saying so and a hint, when no NCCL init line, dump or RAS status was found; `nothing_done` ends
// that sentence (import: ": nothing sent to URL").
[[nodiscard]] bool load_usable_records(const std::string& command, const std::vector<std::string>& paths,
                                       records::RecordSet& into, const std::string& nothing_done = {});

// --plan FILE | --dp D [--cp C] [--ep E]: the plan the records commands (diagnose, import, ras, serve) place the
// records on, as one set of flags: --plan excludes the others, --cp and --ep need --dp.
struct PlanOptions {
    std::string file, dp, cp = "1", ep = "1";
    // Adds the four flags to cli, each help text after help_prefix (serve: "with --ras or --torch-debug: ").
    void add_to(CLI::App& cli, const std::string& help_prefix = {});
};

// The plan of options (left empty when neither --plan nor --dp is given). Bad input: the message
// ("meshscope COMMAND: ..." and the hint) on stderr, and the exit status returned.
[[nodiscard]] std::optional<int> plan_from_options(const std::string& command, const std::string& hint,
                                                   const PlanOptions& options, std::optional<Plan>& plan);

}  // namespace meshscope::app
