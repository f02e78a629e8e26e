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
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "meshscope/error.h"

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

struct RasCommunicator {
    std::string hash;  // "0x5ae77eb5ea4ec1ee": NCCL's commId in its INFO lines
    std::string secondary_hash;
    std::int64_t size = 0;
    std::vector<RasRank> ranks;
    std::vector<RasMissingRank> missing_ranks;
};

struct RasStatus {
    std::string file;
    std::string nccl_version;
    std::string timestamp;
    std::vector<RasCommunicator> communicators;
    double collection_time_sec = 0;
    std::int64_t timeouts_count = 0;
};

// ValueError "{file}: {path} {what}" or "{file} at byte {n}: not valid JSON".
[[nodiscard]] Expected<RasStatus> read_ras_json(std::string_view bytes, std::string file);

}  // namespace meshscope::records
