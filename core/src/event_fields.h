// Field readers shared by the two files that read meshscope.event/1 (event_json.cpp, communicator_json.cpp), so
// that a field's message is spelled once: `field "groups.ep" must be an array of ranks below world_size (16)`.
// Internal to core.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "meshscope/error.h"

namespace meshscope::event_fields {

// ValueError `field "NAME" WHAT`.
[[nodiscard]] Error field_error(std::string_view field, std::string_view what);

// The integer value, or nullopt when the JSON value is not an integer. Unsigned values beyond int64 come back
// as int64's maximum so that every bound check rejects them.
[[nodiscard]] std::optional<std::int64_t> as_int(const nlohmann::json& value);

// The member `key` of `object`, or nullptr when it is absent or null (an optional field left out).
[[nodiscard]] const nlohmann::json* member(const nlohmann::json& object, const char* key);

// Distinct ranks below world_size, at most world_size of them, in the order given.
[[nodiscard]] Expected<std::vector<std::int64_t>> read_ranks(const nlohmann::json& value, const std::string& name,
                                                             std::int64_t world_size);

// json::parse's message without nlohmann's "[json.exception.parse_error.101] " tag, bytes outside printable ASCII
// written as <FF>.
[[nodiscard]] std::string json_error_text(const std::exception& e);

}  // namespace meshscope::event_fields
