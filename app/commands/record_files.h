// The files `meshscope diagnose` reads, turned into core's RecordSet: plain or gzip files (by their magic bytes),
// directories walked for them, each file sniffed by content (a pickle, a JSON document, RAS's text status, or text
// read as an NCCL log, streamed). A file that cannot be read is named with why; the rest are still read.
#pragma once

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

// --plan FILE, or --dp (dp_text not empty) with --cp and --ep, as `meshscope diagnose` and `meshscope ras` take
// them, into plan (left empty when neither is given). Bad input: the message ("meshscope COMMAND: ..." and the
// hint) on stderr, and the exit status returned.
[[nodiscard]] std::optional<int> plan_from_options(const std::string& command, const std::string& hint,
                                                   const std::string& plan_file, const std::string& dp_text,
                                                   const std::string& cp_text, const std::string& ep_text,
                                                   std::optional<Plan>& plan);

}  // namespace meshscope::app
