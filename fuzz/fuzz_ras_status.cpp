// libFuzzer target: NCCL RAS JSON status (core/records/nccl_ras.h) on arbitrary bytes; an accepted status is
// diagnosed against a small plan and without one.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "meshscope/records/diagnose.h"
#include "meshscope/records/nccl_ras.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    auto status = meshscope::records::read_ras_json(bytes, "ras.json");
    if (!status) {
        if (status.error().message().rfind("ras.json", 0) != 0) {
            std::fprintf(stderr, "fuzz_ras_status: an error that does not name the file\n");
            std::abort();
        }
        return 0;
    }
    static const auto plan = meshscope::Plan::make(meshscope::Topology::make(8, 1, 4).value(), 8).value();
    meshscope::records::RecordSet set;
    set.ras.push_back(std::move(status).value());
    (void)meshscope::records::diagnose(set, &plan);
    (void)meshscope::records::diagnose(set, nullptr);
    return 0;
}
