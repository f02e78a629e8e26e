// Field readers shared by the files that read JSON into core's types (meshscope.event/1 in event_json.cpp and
// communicator_json.cpp; the monitor's own JSON in monitor_json.cpp), so that a field's message is spelled once:
// `field "groups.ep" must be an array of ranks below world_size (16)`. Internal to core.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "meshscope/mesh/error.h"
#include "meshscope/monitor/event.h"

namespace meshscope::event_fields {

// ValueError `field "NAME" WHAT`.
[[nodiscard]] Error field_error(std::string_view field, std::string_view what);

// The integer value, or nullopt when the JSON value is not an integer. Unsigned values beyond int64 come back
// as int64's maximum so that every bound check rejects them.
[[nodiscard]] std::optional<std::int64_t> as_int(const nlohmann::json& value);

// The member `key` of `object`, or nullptr when it is absent or null (an optional field left out).
[[nodiscard]] const nlohmann::json* member(const nlohmann::json& object, const char* key);

// The integer `value`, from min to max: `field "NAME" must be a positive integer` (min > 0), `... must be a
// non-negative integer`, `... must be at most MAX`.
[[nodiscard]] Expected<std::int64_t> read_int(const nlohmann::json& value, std::string_view name, std::int64_t min,
                                              std::int64_t max);
// A string of at most max_length bytes: `field "NAME" must be a string`, `... must be at most N bytes`.
[[nodiscard]] Expected<std::string> read_string(const nlohmann::json& value, std::string_view name,
                                                std::size_t max_length);
// {"dp", "cp", "ep"[, "mp_replicate", "mp_shard"]} as field "topology".
[[nodiscard]] Expected<ReportedTopology> read_topology(const nlohmann::json& value, const EventLimits& limits);
// {"type", "message"} as field "error" (both optional).
[[nodiscard]] Expected<ReportedError> read_error(const nlohmann::json& value, const EventLimits& limits);

// "a, b, c": every name of an enum whose to_string names its `count` values in declaration order.
template <typename Enum>
[[nodiscard]] std::string names_of(std::size_t count) {
    std::string text;
    for (std::size_t i = 0; i < count; ++i) text += (i ? ", " : "") + std::string(to_string(static_cast<Enum>(i)));
    return text;
}
// "must be one of launch, process_group, ...".
template <typename Enum>
[[nodiscard]] std::string one_of(std::size_t count) {
    return "must be one of " + names_of<Enum>(count);
}

// Distinct ranks below world_size, at most world_size of them, in the order given.
[[nodiscard]] Expected<std::vector<std::int64_t>> read_ranks(const nlohmann::json& value, const std::string& name,
                                                             std::int64_t world_size);

// json::parse's message without nlohmann's "[json.exception.parse_error.101] " tag, bytes outside printable ASCII
// written as <FF>.
[[nodiscard]] std::string json_error_text(const std::exception& e);

// Parses `text` into `out` as parse_events does: the message when it holds a repeated key or nests deeper than
// max_json_depth; a syntax error (or a NUL byte) throws json::parse_error.
[[nodiscard]] std::optional<std::string> parse_unique_keys(std::string_view text, nlohmann::json& out);

}  // namespace meshscope::event_fields
