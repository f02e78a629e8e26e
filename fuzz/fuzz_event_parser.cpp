// libFuzzer target: meshscope::parse_events on arbitrary bytes, the collector's first contact with a body.
//
// Beyond "no crash, no leak, no UB" it checks what event.h promises for every accepted body:
//   - every event respects the EventLimits it was parsed with (rank < world_size <= max_world_size, lengths);
//   - event_from_json(to_json(e)) == e, and the stored text to_json(e).dump() parses back to the same event;
//   - the events written back as a JSON array, and as NDJSON, parse back to the same events;
// and for every refused body that the message is non-empty UTF-8 (it is sent back inside a JSON reply). Nesting:
// an accepted body nests at most max_json_depth levels, and a refusal for nesting names a body that nests deeper
// (counted here by brackets outside strings, not by the parser); parse_json_bounded agrees with json::parse on
// every text within the limit that holds no NUL byte (json::parse takes a NUL as the end of the input; the bounded
// parsers refuse the text, and an accepted body holds none).
// Each input is parsed twice: with the default limits, and with tight ones so that the bound checks run.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "meshscope/mesh/json_limits.h"
#include "meshscope/monitor/event.h"

namespace {
using meshscope::Event;
using meshscope::EventLimits;

// Prints what broke and aborts: libFuzzer then keeps the input as a crash reproducer.
[[noreturn]] void fail(const char* what) {
    std::fprintf(stderr, "fuzz_event_parser: invariant broken: %s\n", what);
    std::abort();
}
void check(bool ok, const char* what) {
    if (!ok) fail(what);
}

EventLimits tight_limits() {
    EventLimits limits;
    limits.max_world_size = 64;
    limits.max_job_length = 8;
    limits.max_string_length = 8;
    limits.max_message_length = 16;
    limits.max_mesh_dims = 2;
    limits.max_group_dims = 2;
    limits.max_events = 3;
    return limits;
}

void check_limits(const Event& e, const EventLimits& limits) {
    check(!e.job.empty() && e.job.size() <= limits.max_job_length, "job length within limits");
    check(e.world_size >= 1 && e.world_size <= limits.max_world_size, "1 <= world_size <= max_world_size");
    check(e.rank >= 0 && e.rank < e.world_size, "0 <= rank < world_size");
    for (const auto* text : {&e.host, &e.device, &e.device_uuid})
        check(!*text || (*text)->size() <= limits.max_string_length, "string field within max_string_length");
    if (e.mesh) {
        check(e.mesh->dim_names.size() <= limits.max_mesh_dims, "mesh dims within max_mesh_dims");
        check(e.mesh->dim_names.size() == e.mesh->shape.size(), "mesh shape matches dim_names");
    }
    check(e.groups.size() <= limits.max_group_dims, "group dims within max_group_dims");
    for (const auto& [dim, group] : e.groups) {
        check(group.size() <= e.world_size, "group size within world_size");
        for (std::int64_t k = 0; k < group.size(); ++k) {
            check(group.at(k) >= 0 && group.at(k) < e.world_size, "group members below world_size");
            check(k == 0 || group.at(k) > group.at(k - 1), "group members distinct and sorted");
        }
    }
    if (e.error) check(e.error->message.size() <= limits.max_message_length, "error.message within limits");
}

void check_round_trip(const std::vector<Event>& events, const EventLimits& limits) {
    nlohmann::json array = nlohmann::json::array();
    std::string ndjson;
    for (const Event& e : events) {
        check_limits(e, limits);
        const nlohmann::json j = meshscope::to_json(e);
        const auto again = meshscope::event_from_json(j, limits);
        check(again.has_value(), "event_from_json(to_json(e)) is accepted");
        check(*again == e, "event_from_json(to_json(e)) == e");
        const std::string text = j.dump();  // the stored and streamed form
        const auto reparsed = meshscope::parse_events(text, limits);
        check(reparsed.has_value() && reparsed->size() == 1 && reparsed->front() == e,
              "parse_events(to_json(e).dump()) == {e}");
        array.push_back(j);
        ndjson += text + "\n";
    }
    const auto from_array = meshscope::parse_events(array.dump(), limits);
    check(from_array.has_value() && *from_array == events, "the events as a JSON array parse back equal");
    if (events.size() >= 2) {  // one line alone is just a JSON object
        const auto from_ndjson = meshscope::parse_events(ndjson, limits);
        check(from_ndjson.has_value() && *from_ndjson == events, "the events as NDJSON parse back equal");
    }
}

// The deepest nesting of [ and { outside strings: an independent count of what the parsers bound.
std::size_t bracket_depth(std::string_view text) {
    std::size_t depth = 0, deepest = 0;
    bool in_string = false, escaped = false;
    for (const char c : text) {
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            deepest = std::max(deepest, ++depth);
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return deepest;
}

void run(std::string_view body, const EventLimits& limits) {
    const auto events = meshscope::parse_events(body, limits);
    if (!events) {
        const std::string message = events.error().message();
        check(!message.empty(), "a refusal has a message");
        if (message.ends_with(meshscope::json_depth_text()))
            check(bracket_depth(body) > meshscope::max_json_depth, "a refusal for nesting names a deep body");
        // Throws (type_error 316) on invalid UTF-8, which the fuzzer reports as a crash.
        (void)nlohmann::json(message).dump();
        return;
    }
    check(!events->empty() && events->size() <= limits.max_events, "1 <= events <= max_events");
    check(body.find('\0') == std::string_view::npos, "an accepted body holds no NUL byte (nothing left unread)");
    check(bracket_depth(body) <= meshscope::max_json_depth, "an accepted body nests at most max_json_depth");
    check_round_trip(*events, limits);
}
}  // namespace

void check_bounded_parse(std::string_view text) {
    bool too_deep = false;
    const auto bounded = meshscope::parse_json_bounded(text, &too_deep);
    if (text.find('\0') != std::string_view::npos) {  // json::parse stops at a NUL (C strings); bounded refuses it
        check(bounded.is_discarded() && !too_deep, "a text with a NUL byte is refused, not for its depth");
        return;
    }
    if (too_deep) {
        check(bounded.is_discarded() && bracket_depth(text) > meshscope::max_json_depth, "too deep only when deep");
        return;
    }
    const auto plain = nlohmann::json::parse(text, nullptr, false);  // only within the limit: it is not bounded
    // Within the limit both parsers see the same value (a discarded one compares unequal to itself).
    check(bounded.is_discarded() == plain.is_discarded(), "bounded and plain parsers agree on validity");
    if (!plain.is_discarded()) check(bounded == plain, "bounded and plain parsers agree on the value");
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view body(reinterpret_cast<const char*>(data), size);
    check_bounded_parse(body);
    run(body, EventLimits{});
    run(body, tight_limits());
    return 0;
}
