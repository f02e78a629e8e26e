// --backend nccl in a build without CUDA and NCCL: a clear message and exit status 3.
#include "nccl_backend.h"

namespace meshscope::probe {

std::unique_ptr<Backend> make_nccl_backend(KeyValue&, std::int64_t, std::int64_t, std::int64_t) {
    throw Unavailable(
        "this meshscope-probe was built without NCCL: rebuild where CMake finds CUDA and NCCL (/usr/local/cuda, "
        "or set NCCL_ROOT) to use --backend nccl, or use --backend gloo");
}

std::string nccl_version_text() {
    return "built without NCCL";
}

}  // namespace meshscope::probe
