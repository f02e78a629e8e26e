// Protocol events for tests, the one way tests make them: core's Event, written by core's to_json, as the
// simulator and the collector write them. A test that means to send something core would refuse (a missing
// field, bad JSON) writes that text out by hand, next to the error it expects.
//
//   Event e = meshscope::test::event("job", 3, 16, Phase::ready, Status::done);
//   e.host = "node-0";
//   post(meshscope::test::line(e));                   // {"job":"job","phase":"ready",...}
//   post(meshscope::test::ndjson(events));            // one line per event, each ending in '\n'
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "meshscope/monitor/event.h"

namespace meshscope::test {

// An event with the protocol's required fields; set the optional ones on the result.
inline Event event(std::string job, std::int64_t rank, std::int64_t world_size, Phase phase, Status status) {
    Event e;
    e.job = std::move(job);
    e.rank = rank;
    e.world_size = world_size;
    e.phase = phase;
    e.status = status;
    return e;
}

// The event as one compact protocol line (no newline).
inline std::string line(const Event& e) {
    return to_json(e).dump();
}

// NDJSON: one line per event, each ending in '\n'.
inline std::string ndjson(const std::vector<Event>& events) {
    std::string out;
    for (const Event& e : events) out += line(e) + '\n';
    return out;
}

}  // namespace meshscope::test
