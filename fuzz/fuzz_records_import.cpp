// libFuzzer target: meshscope.records/1 (core/records_import.h), the body of POST /api/v1/jobs/{job}/records, on
// arbitrary bytes. An accepted document must survive to_json and back unchanged, and a monitor must take it (twice:
// the second import replaces the first) and answer its queries.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <nlohmann/json.hpp>

#include "meshscope/monitor/monitor.h"
#include "meshscope/monitor/records_import.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    // Small bounds, so that an accepted document stays cheap to import.
    meshscope::RecordsLimits limits;
    limits.max_ranks = 4096;
    auto records = meshscope::parse_records_import(bytes, limits);
    if (!records) {
        if (records.error().message().empty()) {
            std::fprintf(stderr, "fuzz_records_import: an error without a message\n");
            std::abort();
        }
        return 0;
    }
    const auto again = meshscope::records_import_from_json(meshscope::to_json(*records), limits);
    if (!again || !(*again == *records)) {
        std::fprintf(stderr, "fuzz_records_import: to_json and back changed the document\n");
        std::abort();
    }
    meshscope::Monitor monitor;
    monitor.import_records("fuzz", *records, 1.0);
    monitor.import_records("fuzz", *records, 2.0);
    if (monitor.findings("fuzz").size() != records->findings.size()) {
        std::fprintf(stderr, "fuzz_records_import: a second import did not replace the first\n");
        std::abort();
    }
    (void)monitor.findings_json("fuzz")->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    (void)monitor.ranks_json("fuzz");
    (void)monitor.jobs_json();
    monitor.tick(100.0);
    return 0;
}
