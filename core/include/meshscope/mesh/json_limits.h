// The one bound on how deeply a JSON text from outside may nest, for every parser that reads one (events,
// relay batches, tour answers, sandbox calls, replayed files). nlohmann parses without recursion, but copying,
// comparing and dumping a value recurse once per level: an answer nested 60,000 deep ran the collector's stack
// out. Real documents nest a handful of levels (an event with probe results: 5); the limit leaves room.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace meshscope {

inline constexpr std::size_t max_json_depth = 64;

// "invalid JSON: nested deeper than 64 levels": what a refused text is told (after any prefix of its own).
[[nodiscard]] std::string json_depth_text();

// Throws json::parse_error ("parse error at byte N: a NUL byte, which JSON text never holds") when `text` holds a
// NUL byte. nlohmann's lexer reads a NUL as the end of the input (the end of a C string), so "{}\0{...}" parses as
// {} and the rest vanishes unread; JSON text holds no NUL anywhere (inside strings control characters are
// escaped), so every parser of outside text refuses one instead.
void refuse_nul_byte(std::string_view text);

// json::parse(text, nullptr, false), but a value nested deeper than max_json_depth arrays and objects is
// refused as soon as the parser reaches that level: the answer is then discarded and *too_deep (when given)
// is set. Any other syntax error is discarded as json::parse's, and so is a text that holds a NUL byte.
[[nodiscard]] nlohmann::json parse_json_bounded(std::string_view text, bool* too_deep = nullptr);

// What parse_json_throwing throws for a value nested deeper than max_json_depth; what() is json_depth_text().
struct JsonTooDeep : std::runtime_error {
    JsonTooDeep() : std::runtime_error(json_depth_text()) {}
};

// json::parse(text) for readers that name the byte where a text breaks: a syntax error throws json::parse_error
// (with its byte) and a number past a double's range json::out_of_range, as json::parse does; a value nested
// deeper than max_json_depth throws JsonTooDeep as soon as the parser reaches that level; a NUL byte throws as
// refuse_nul_byte.
[[nodiscard]] nlohmann::json parse_json_throwing(std::string_view text);

}  // namespace meshscope
