// The NCCL backend: one world communicator (its unique id travels through the job's key-value store), then
// one ncclCommSplit per dim in creation order (color = the group's index, key = the rank's coordinate), all
// non-blocking, polled with ncclCommGetAsyncError until --timeout so that a group that never forms is named
// instead of hanging. Built only when CMake finds CUDA and NCCL (MESHSCOPE_PROBE_NCCL).
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "communicator.h"
#include "key_value.h"

namespace meshscope::probe {

// The backend cannot run on this machine or build (exit status 3).
class Unavailable : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Checks for a device first: throws Unavailable ("no CUDA device visible: ...", or built without NCCL).
[[nodiscard]] std::unique_ptr<Backend> make_nccl_backend(KeyValue& store, std::int64_t rank, std::int64_t world,
                                                         std::int64_t local_rank);
// "NCCL 2.28.3, CUDA runtime 13000" or "built without NCCL".
[[nodiscard]] std::string nccl_version_text();

}  // namespace meshscope::probe
