#include "meshscope/mesh/python_repr.h"

namespace meshscope::repr {

namespace {
template <typename Range, typename Fn>
std::string join(const Range& values, const char* open, const char* close, bool one_tuple, Fn item) {
    std::string out = open;
    bool first = true;
    for (const auto& value : values) {
        if (!first) out += ", ";
        out += item(value);
        first = false;
    }
    if (one_tuple && std::size(values) == 1) out += ",";
    out += close;
    return out;
}
}  // namespace

std::string str(const std::string& value) {
    // Python prefers single quotes unless the text holds a single quote and no double quote.
    const bool use_double = value.find('\'') != std::string::npos && value.find('"') == std::string::npos;
    const char quote = use_double ? '"' : '\'';
    std::string out(1, quote);
    for (char c : value) {
        if (c == '\\' || c == quote) out += '\\';
        out += c;
    }
    out += quote;
    return out;
}

std::string int_tuple(std::span<const std::int64_t> values) {
    return join(values, "(", ")", true, [](std::int64_t v) { return std::to_string(v); });
}

std::string str_tuple(std::span<const std::string> values) {
    return join(values, "(", ")", true, [](const std::string& v) { return str(v); });
}

std::string str_list(std::span<const std::string> values) {
    return join(values, "[", "]", false, [](const std::string& v) { return str(v); });
}

std::string int_tuple_list(const std::vector<std::vector<std::int64_t>>& values) {
    return join(values, "[", "]", false, [](const std::vector<std::int64_t>& v) { return int_tuple(v); });
}

}  // namespace meshscope::repr
