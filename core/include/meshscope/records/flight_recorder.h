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
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "meshscope/mesh/error.h"
#include "meshscope/records/source.h"

namespace meshscope::records {

using Shape = std::vector<std::int64_t>;

// A group as its entries name it: process_group (name, desc).
struct FrGroupName {
    std::string name;         // the same on every rank ("0", "5")
    std::string desc;         // "default_pg", "mesh_ep", "undefined"
    std::uint32_t index = 0;  // its place in the dump's groups()
};

// What an entry ran: profiling name, sizes and dtypes. Entries of a dump repeat a few of these, so each is stored
// once per dump and the entries point at it.
struct FrOp {
    std::string profiling_name;  // "nccl:all_reduce"
    std::vector<Shape> input_sizes, output_sizes;
    std::vector<std::string> input_dtypes, output_dtypes;
    std::uint32_t index = 0;  // its place in the dump's ops()
};

namespace detail {
struct FrPool;  // the values a dump's entries share (flight_recorder.cpp)
}

// One collective as a rank recorded it, compact: what a diagnosis reads, with the strings, shapes and dtypes
// shared per dump. record_id, pg_id, p2p_seq_id, op_id, timeout_ms, duration_ms, frames, thread_id and
// thread_name are checked where present (a wrong type is an error naming the field) but not kept: no report
// reads them, and frames alone are most of a dump's bytes.
struct FrEntry {
    std::int64_t record_id = -1;
    std::int64_t collective_seq_id = 0;
    std::int64_t time_created_ns = 0;
    // 0 when not discovered: JSON dumps write 0 where pickle writes None.
    std::int64_t time_discovered_started_ns = 0, time_discovered_completed_ns = 0;
    const FrGroupName* group = nullptr;  // never null in an entry read from a dump
    const FrOp* op = nullptr;            // never null in an entry read from a dump
    const std::string* state_text = nullptr;
    bool retired = false;
    bool is_p2p = false;

    [[nodiscard]] const std::string& pg_name() const { return group->name; }
    [[nodiscard]] const std::string& pg_desc() const { return group->desc; }
    [[nodiscard]] const std::string& profiling_name() const { return op->profiling_name; }
    [[nodiscard]] const std::vector<Shape>& input_sizes() const { return op->input_sizes; }
    [[nodiscard]] const std::vector<Shape>& output_sizes() const { return op->output_sizes; }
    [[nodiscard]] const std::vector<std::string>& input_dtypes() const { return op->input_dtypes; }
    [[nodiscard]] const std::vector<std::string>& output_dtypes() const { return op->output_dtypes; }
    [[nodiscard]] const std::string& state() const { return *state_text; }  // "scheduled", "started", "completed"
    // "all_reduce" from "nccl:all_reduce"
    [[nodiscard]] std::string_view collective() const;
};

using FrRanks = std::shared_ptr<const std::vector<std::int64_t>>;

struct FrGroupConfig {
    std::string name, desc;
    // Read from "[0, 1, 2]" (a string, as torch writes it) or a list; never null. Every rank's dump lists the
    // world group's ranks: dumps read with one FrShared share one copy of each list.
    FrRanks ranks = std::make_shared<const std::vector<std::int64_t>>();
};

struct FrGroupStatus {
    std::int64_t last_enqueued = -1, last_started = -1, last_completed = -1;
};

struct FrDump {
    std::string file;
    std::int64_t rank = -1;  // from the file name's trailing digits
    // The host of the rank's process where the caller knows it (torch's debug server names each rank's worker);
    // a dump holds none.
    std::string host;
    std::string format;   // "pickle" or "json"
    std::string version;  // "2.10"
    std::string comm_lib_version;
    std::map<std::string, FrGroupConfig> pg_config;
    std::map<std::string, FrGroupStatus> pg_status;  // by pg_id as written ("0")
    std::vector<FrEntry> entries;
    // The groups and ops the entries point at, each once, in the order first seen; copies of a dump share them.
    std::shared_ptr<const detail::FrPool> pool;
    [[nodiscard]] std::vector<const FrGroupName*> groups() const;
    [[nodiscard]] std::vector<const FrOp*> ops() const;
};

// What a job's dumps have in common, kept once for all of them: the rank lists of pg_config (the world group's
// is every rank, in every dump). Safe to share between threads reading a job's files at once.
class FrShared {
public:
    // The list written as `text` ("[0, 1, 2]"), parsed by `parse` the first time it is seen.
    template <class Parse>
    FrRanks ranks(std::string_view text, Parse&& parse) {
        {
            const std::lock_guard lock(mutex_);
            if (const auto it = by_text_.find(text); it != by_text_.end()) return it->second;
        }
        FrRanks made = std::make_shared<const std::vector<std::int64_t>>(parse());
        const std::lock_guard lock(mutex_);
        return by_text_.emplace(std::string(text), std::move(made)).first->second;
    }

private:
    std::mutex mutex_;
    std::map<std::string, FrRanks, std::less<>> by_text_;
};

// The rank in a dump's file name: the digits at its end ("nccl_trace_rank_13" -> 13, "trace_rank_13.json" -> 13).
[[nodiscard]] std::optional<std::int64_t> rank_from_file_name(std::string_view file);

// A dump from its bytes: JSON when the first byte that is not white space is '{', pickle otherwise. Errors are
// ValueError naming the file and the byte offset (pickle, JSON syntax) or the field ("entries[3].collective_seq_id").
// Entries are taken from the bytes into compact records without a document of the whole dump; memory is the
// bytes, the entries (72 bytes each) and what they share. A pickle of the shape torch writes is decoded straight
// into the records, without building its values; any other pickle, and every error, goes to the generic reader.
// shared, when given, keeps what the job's dumps have in common once (see FrShared).
[[nodiscard]] Expected<FrDump> read_fr_dump(std::string_view bytes, std::string file, FrShared* shared = nullptr);

namespace detail {
// read_fr_dump's two readers of a pickle, for the tests that compare them: the decoder of the shape torch writes
// (nullopt where it leaves the bytes to the generic reader: anything else, and every error), and the generic
// reader alone (a tree of the pickle's values, then its records).
[[nodiscard]] std::optional<FrDump> read_fr_dump_fast(std::string_view bytes, std::string file,
                                                      FrShared* shared = nullptr);
[[nodiscard]] Expected<FrDump> read_fr_dump_generic(std::string_view bytes, std::string file,
                                                    FrShared* shared = nullptr);
}  // namespace detail

}  // namespace meshscope::records
