// OTLP/HTTP JSON logs as meshscope.event/1 events: the body of `POST /v1/logs` (an ExportLogsServiceRequest in
// OTLP's JSON encoding) read into the same events `POST /api/v1/events` takes, each judged by the one validator,
// event_from_json. The mapping is docs/protocol.md's "OTLP logs":
//
//   resource attributes   meshscope.job, meshscope.rank, meshscope.world_size, meshscope.local_rank,
//                         host.name (-> host), process.pid (-> pid)
//   log record attributes meshscope.phase, meshscope.status, meshscope.<any other event field>,
//                         exception.type / exception.message (-> error.type / error.message)
//   timeUnixNano          ts (seconds), unless the record says meshscope.ts
//
// Any field may come from either place; the log record's wins. Other attributes (service.name, telemetry.sdk.*)
// are ignored. Attribute values are OTLP AnyValues: stringValue, boolValue, intValue (a string of digits or a
// number), doubleValue, arrayValue and kvlistValue (nesting as an event's arrays and objects), bytesValue.
//
//   auto logs = meshscope::parse_otlp_logs(body);       // a malformed request: logs.error(), answer 400
//   logs->events;                                        // the records that are valid events, in order
//   logs->rejected, logs->rejected_error;                // the others: 'event 2: field "rank" is required'
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "meshscope/mesh/error.h"
#include "meshscope/monitor/event.h"

namespace meshscope {

struct OtlpLogs {
    std::vector<Event> events;   // the valid log records' events, in the request's order
    std::int64_t records = 0;    // log records in the request
    std::int64_t rejected = 0;   // records that are not valid events
    std::string rejected_error;  // the first one's reason, `event {index}: ...` (index counts all records from 0)
};

// The request as events. Errors (the whole request is refused): `invalid JSON: ...` (the parser's text, and the
// 64-level nesting bound), a request of another shape (`field "resourceLogs[0].scopeLogs" must be an array`, an
// attribute that is not {"key": string, "value": AnyValue}, ...), `the body holds more than 100000 log records`.
[[nodiscard]] Expected<OtlpLogs> parse_otlp_logs(std::string_view body, const EventLimits& limits = {});

}  // namespace meshscope
