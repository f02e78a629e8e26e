// PyTorch's Flight Recorder dumps: one file per rank, named by torch as TORCH_FR_DUMP_TEMP_FILE (older:
// TORCH_NCCL_DEBUG_INFO_TEMP_FILE, default "/tmp/nccl_trace_rank_") followed by the rank, in pickle (the default)
// or JSON (_dump_fr_trace_json). Both hold the same document:
//   {version, pg_config{name: {name, desc, ranks}}, pg_status{pg_id: {last_enqueued_collective,
//    last_started_collective, last_completed_collective}}, comm_lib_version, nccl_comm_state?, entries[]}
// and each entry: record_id, pg_id, process_group (name, desc), collective_seq_id, p2p_seq_id, op_id,
// profiling_name ("nccl:all_reduce", "gloo:all_gather"), time_created_ns, input_sizes, input_dtypes, output_sizes,
// output_dtypes, state (scheduled|started|completed), time_discovered_started_ns, time_discovered_completed_ns,
// retired, timeout_ms, is_p2p, duration_ms?, frames[{name, filename, line}], thread_id, thread_name.
// Versions 2.x add fields over time; every field but the ones a diagnosis needs (process_group,
// collective_seq_id, profiling_name) is optional, and unknown fields are ignored.
//
// Verified against real dumps of torch 2.15 (version "2.10", ProcessGroupGloo; tests/records/make_fr_fixtures.py).
// Gloo records state "scheduled" only, without discovery times, and a pg_config of one entry; the groups' names
// and descriptions in the entries are what identify them across ranks.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "meshscope/error.h"
#include "meshscope/records/source.h"

namespace meshscope::records {

using Shape = std::vector<std::int64_t>;

struct FrFrame {
    std::string name, filename;
    std::int64_t line = 0;
    friend bool operator==(const FrFrame&, const FrFrame&) = default;
};

struct FrEntry {
    std::int64_t record_id = -1;
    std::int64_t pg_id = -1;  // the process-local id
    std::string pg_name;      // process_group[0]: the same on every rank ("0", "5")
    std::string pg_desc;      // process_group[1]: "default_pg", "mesh_ep", "undefined"
    std::int64_t collective_seq_id = 0;
    std::int64_t p2p_seq_id = 0;
    std::int64_t op_id = 0;
    std::string profiling_name;  // "nccl:all_reduce"
    std::int64_t time_created_ns = 0;
    std::vector<Shape> input_sizes, output_sizes;
    std::vector<std::string> input_dtypes, output_dtypes;
    std::string state;  // "scheduled", "started", "completed"
    std::optional<std::int64_t> time_discovered_started_ns, time_discovered_completed_ns;
    bool retired = false;
    std::int64_t timeout_ms = 0;
    bool is_p2p = false;
    std::optional<double> duration_ms;
    std::vector<FrFrame> frames;
    std::string thread_id, thread_name;
    // "all_reduce" from "nccl:all_reduce"
    [[nodiscard]] std::string_view collective() const;
};

struct FrGroupConfig {
    std::string name, desc;
    std::vector<std::int64_t> ranks;  // read from "[0, 1, 2]" (a string, as torch writes it) or a list
};

struct FrGroupStatus {
    std::int64_t last_enqueued = -1, last_started = -1, last_completed = -1;
};

struct FrDump {
    std::string file;
    std::int64_t rank = -1;  // from the file name's trailing digits
    std::string format;      // "pickle" or "json"
    std::string version;     // "2.10"
    std::string comm_lib_version;
    std::map<std::string, FrGroupConfig> pg_config;
    std::map<std::string, FrGroupStatus> pg_status;  // by pg_id as written ("0")
    std::vector<FrEntry> entries;
};

// The rank in a dump's file name: the digits at its end ("nccl_trace_rank_13" -> 13, "trace_rank_13.json" -> 13).
[[nodiscard]] std::optional<std::int64_t> rank_from_file_name(std::string_view file);

// A dump from its bytes: JSON when the first byte that is not white space is '{', pickle otherwise. Errors are
// ValueError naming the file and the byte offset (pickle) or the field ("entries[3].collective_seq_id").
[[nodiscard]] Expected<FrDump> read_fr_dump(std::string_view bytes, std::string file);
// The same from a document already parsed (either format gives one).
[[nodiscard]] Expected<FrDump> fr_dump_from_json(const nlohmann::json& document, std::string file, std::string format);

}  // namespace meshscope::records
