// libFuzzer target: Flight Recorder dumps (core/records/flight_recorder.h): arbitrary bytes as a pickle (the
// restricted reader) or JSON. A refusal names the file; an accepted dump is diagnosed against a small plan.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "meshscope/records/diagnose.h"
#include "meshscope/records/flight_recorder.h"

namespace {
void check(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "fuzz_fr_dump: invariant broken: %s\n", what);
        std::abort();
    }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    auto dump = meshscope::records::read_fr_dump(bytes, "nccl_trace_rank_3");
    if (!dump) {
        check(dump.error().message().rfind("nccl_trace_rank_3", 0) == 0, "an error that does not name the file");
        return 0;
    }
    check(dump->rank == 3, "the rank is not the file name's");
    static const auto plan = meshscope::Plan::make(meshscope::Topology::make(8, 1, 4).value(), 8).value();
    meshscope::records::RecordSet set;
    set.dumps.push_back(std::move(dump).value());
    (void)meshscope::records::diagnose(set, &plan);
    (void)meshscope::records::diagnose(set, nullptr);
    return 0;
}
