// OTLP/HTTP JSON logs for the C++ client (ReporterOptions::protocol "otlp") and the storm's ranks (`meshscope simulate
// --per-rank --protocol otlp`): a batch of one rank's event JSON as an ExportLogsServiceRequest, each event one log
// record, the rank's identity its resource (docs/protocol.md, "OTLP logs"; the Python reporter's
// transport.otlp_logs_request writes the same).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace meshscope::client {

struct OtlpBody {
    std::string json;         // the request body
    std::size_t invalid = 0;  // events that were not JSON objects: left out
};

[[nodiscard]] OtlpBody otlp_logs_body(const std::vector<std::string>& events);

// The rejectedLogRecords of a 2xx answer's partialSuccess (0 when none or unreadable), and its errorMessage.
[[nodiscard]] std::int64_t otlp_rejected(std::string_view answer, std::string* message);

}  // namespace meshscope::client
