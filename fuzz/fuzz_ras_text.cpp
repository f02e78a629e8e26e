// libFuzzer target: NCCL RAS's text status (core/records/nccl_ras.h, read_ras_text) on arbitrary bytes; an error
// names the file, and an accepted status is diagnosed against a small plan and without one.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "meshscope/records/diagnose.h"
#include "meshscope/records/nccl_ras.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    (void)meshscope::records::looks_like_ras_text(bytes);
    auto status = meshscope::records::read_ras_text(bytes, "ras.txt");
    if (!status) {
        if (status.error().message().rfind("ras.txt", 0) != 0) {
            std::fprintf(stderr, "fuzz_ras_text: an error that does not name the file\n");
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
