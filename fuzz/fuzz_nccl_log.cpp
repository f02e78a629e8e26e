// libFuzzer target: the NCCL INFO log reader (core/records/nccl_log.h) on arbitrary bytes, fed whole and again in
// chunks cut where the input's first byte says: both must read the same lines, and every line kept must name a
// line of the input with a rank inside its communicator. Then the diagnosis without a plan must not crash.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "meshscope/records/diagnose.h"
#include "meshscope/records/nccl_log.h"

namespace {
void check(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "fuzz_nccl_log: invariant broken: %s\n", what);
        std::abort();
    }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    meshscope::records::RecordSet whole;
    {
        meshscope::records::NcclLogParser parser("f", whole.nccl);
        parser.feed(text);
        parser.finish();
    }
    meshscope::records::NcclLog chunked;
    {
        const std::size_t step = size ? 1 + data[0] % 13 : 1;
        meshscope::records::NcclLogParser parser("f", chunked);
        for (std::size_t i = 0; i < size; i += step) parser.feed(text.substr(i, step));
        parser.finish();
    }
    check(whole.nccl.comm_lines.size() == chunked.comm_lines.size(), "chunks read other init lines");
    check(whole.nccl.lines == chunked.lines, "chunks count other lines");
    for (const auto& c : whole.nccl.comm_lines) {
        check(c.rank >= 0 && c.rank < c.nranks, "a kept line's rank is outside its communicator");
        check(c.source.line >= 1 && c.source.line <= whole.nccl.lines, "a kept line names no line of the input");
    }
    (void)meshscope::records::diagnose(whole, nullptr);
    return 0;
}
