#include "meshscope/client/event_kind.h"

#include <cstddef>

namespace meshscope::client {

namespace {
constexpr bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

std::size_t skip_space(std::string_view s, std::size_t i) {
    while (i < s.size() && is_space(s[i])) ++i;
    return i;
}

// s[i] is the opening quote; returns the raw contents and sets `end` past the closing quote
// (npos when unterminated).
std::string_view read_string(std::string_view s, std::size_t i, std::size_t& end) {
    const std::size_t start = ++i;
    while (i < s.size() && s[i] != '"') i += s[i] == '\\' ? 2 : 1;
    if (i >= s.size()) {
        end = std::string_view::npos;
        return {};
    }
    end = i + 1;
    return s.substr(start, i - start);
}
}  // namespace

EventKind event_kind(std::string_view json) noexcept {
    int depth = 0;
    std::size_t i = 0;
    while (i < json.size()) {
        const char c = json[i];
        if (c == '"') {
            std::size_t end = 0;
            const std::string_view token = read_string(json, i, end);
            if (end == std::string_view::npos) return EventKind::lifecycle;
            i = end;
            if (depth != 1) continue;
            std::size_t j = skip_space(json, i);
            if (j >= json.size() || json[j] != ':' || token != "phase") continue;  // a value, or another key
            j = skip_space(json, j + 1);
            if (j >= json.size() || json[j] != '"') return EventKind::lifecycle;
            const std::string_view phase = read_string(json, j, end);
            return end != std::string_view::npos && phase == "heartbeat" ? EventKind::heartbeat : EventKind::lifecycle;
        }
        if (c == '{' || c == '[') ++depth;
        if (c == '}' || c == ']') --depth;
        ++i;
    }
    return EventKind::lifecycle;
}

}  // namespace meshscope::client
