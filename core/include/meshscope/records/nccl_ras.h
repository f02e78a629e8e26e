// NCCL RAS's status (NCCL >= 2.24; JSON from `ncclras -f json` or `SET FORMAT json` + `VERBOSE STATUS`, 2.28.7+),
// as src/ras/client_support.cc writes it:
//   {nccl_version, cuda_runtime_version, cuda_driver_version, timestamp, communicators_count,
//    communicators[{hash, secondary_hash, size, ranks_count, missing_ranks_count,
//                   ranks[{rank, host, pid, cuda_dev, nvml_dev, status{init_state, async_error, finalize_called,
//                          destroy_flag, abort_flag}, collective_counts{AllReduce: n, ...}}],
//                   missing_ranks[{rank, host, pid, cuda_dev, nvml_dev, status{unresponsive, considered_dead}}]}],
//    ras{collection_time_sec, timeouts_count}}
// RAS writes host names unescaped: a host with a quote makes the document invalid JSON, which is reported with
// its offset like any other.
//
// The text form (`ncclras -v`, or `VERBOSE STATUS` without `SET FORMAT json`; every RAS version) is read into the
// same RasStatus, with less in it: RAS prints a communicator only when something is wrong with it (its hash in the
// Errors and Warnings blocks), and names only the "outlier" ranks of each block (in verbose mode those of a set
// smaller than half the communicator); the other ranks are counted, not named (RasCommunicator::unnamed). A rank
// named there carries what its block says: its status word, its error, or its count of the one operation whose
// counts differ.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "meshscope/mesh/error.h"

namespace meshscope::records {

struct RasRank {
    std::int64_t rank = -1;  // in the communicator
    std::string host;
    std::int64_t pid = 0;
    std::int64_t cuda_dev = -1, nvml_dev = -1;
    std::int64_t init_state = 0;  // ncclResult_t: 0 done, 7 (ncclInProgress) still initializing
    std::int64_t async_error = 0;
    bool finalize_called = false, destroy_flag = false, abort_flag = false;
    std::map<std::string, std::uint64_t> collective_counts;  // "AllReduce" -> operations launched
};

struct RasMissingRank {
    std::int64_t rank = -1;
    std::string host;
    std::int64_t pid = 0;
    std::int64_t cuda_dev = -1, nvml_dev = -1;
    bool unresponsive = false, considered_dead = false;
};

// Text form: "N ranks have launched up to operation X" with no rank lines after it (RAS names a set only when it
// is small); op "" for ranks missing without a name.
struct RasUnnamedRanks {
    std::string op;  // "AllReduce"
    std::uint64_t count = 0;
    std::int64_t ranks = 0;
};

struct RasCommunicator {
    std::string hash;  // "0x5ae77eb5ea4ec1ee": NCCL's commId in its INFO lines
    std::string secondary_hash;
    std::int64_t size = 0;
    std::vector<RasRank> ranks;
    std::vector<RasMissingRank> missing_ranks;
    // Text form only: the communicators table's words for its row ("RUNNING", "INCOMPLETE,MISMATCH"), the ranks
    // counted without names, and the operations whose counts differ, in RAS's order.
    std::string status, errors;
    std::vector<RasUnnamedRanks> unnamed;
    std::vector<std::string> mismatched_ops;
};

// Text form: "Process 41006 on node 10.1.0.2 managing GPU 2" under DEAD or INCOMPLETE.
struct RasProcess {
    std::string host;
    std::int64_t pid = 0;
    std::string gpus;  // "2", "0,1 (NVML 4,5)"
};

struct RasStatus {
    std::string file;
    std::string nccl_version;
    std::string timestamp;
    std::vector<RasCommunicator> communicators;
    double collection_time_sec = 0;
    std::int64_t timeouts_count = 0;
    bool text_form = false;
    // Text form only: the communicators table's largest size (the job's world communicator, whether or not RAS
    // printed its hash), and the processes RAS calls dead or could not get communicator data from.
    std::int64_t largest_comm_size = 0;
    std::vector<RasProcess> dead_processes, silent_processes;
};

// ValueError "{file}: {path} {what}" or "{file} at byte {n}: not valid JSON".
[[nodiscard]] Expected<RasStatus> read_ras_json(std::string_view bytes, std::string file);

// The text form. ValueError "{file}:{line}: {what}" (a line that is not RAS's), or "{file}: {what}" for a status
// that ends before its Errors or Warnings section (a reply cut short) or does not start with "NCCL version".
[[nodiscard]] Expected<RasStatus> read_ras_text(std::string_view bytes, std::string file);

// Whether bytes (a file's first bytes) look like RAS's text status: the first line that is not blank is
// "NCCL version 2.27.7 compiled with CUDA 12.9" (an NCCL log's banner is "NCCL version 2.19.3+cuda12.3").
[[nodiscard]] bool looks_like_ras_text(std::string_view head);

// What `meshscope ras --interval` watches across polls (Ray's rule for a hung communicator): one whose ranks'
// operation counts differ (JSON: any rank's count of any operation differs from another's; text: RAS's MISMATCH
// block names an operation) and whose counts did not change since the previous poll.
struct RasStall {
    std::string hash;
    int polls = 0;  // polls in a row with these same differing counts (2 or more)
};

class RasStallWatch {
public:
    // The communicators of status that have stalled, in status's order.
    [[nodiscard]] std::vector<RasStall> observe(const RasStatus& status);
    // The communicators the last observe found stalled that status shows with the same counts, without counting
    // status as a poll (a poll out of turn, moments after the last, is no evidence that counts stopped moving).
    [[nodiscard]] std::vector<RasStall> still(const RasStatus& status) const;

private:
    std::map<std::string, std::pair<std::string, int>> last_;  // hash -> (counts, polls in a row)
};

// The first line of the RAS client protocol, and the server's answer's version ("SERVER PROTOCOL 2\n" -> 2;
// nullopt when the line is not that answer). src/ras/client.cc and client_support.cc: NCCL_RAS_CLIENT_PROTOCOL.
inline constexpr int ras_client_protocol = 2;
[[nodiscard]] std::optional<long> ras_server_protocol(std::string_view line);

}  // namespace meshscope::records
