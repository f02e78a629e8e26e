#include "event_fields.h"

#include <algorithm>
#include <limits>

namespace meshscope::event_fields {

Error field_error(std::string_view field, std::string_view what) {
    return ValueError("field \"" + std::string(field) + "\" " + std::string(what));
}

std::optional<std::int64_t> as_int(const nlohmann::json& value) {
    if (value.is_number_unsigned()) {
        const auto u = value.get<std::uint64_t>();
        return u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
                   ? std::numeric_limits<std::int64_t>::max()
                   : static_cast<std::int64_t>(u);
    }
    if (value.is_number_integer()) return value.get<std::int64_t>();
    return std::nullopt;
}

const nlohmann::json* member(const nlohmann::json& object, const char* key) {
    const auto it = object.find(key);
    return it == object.end() || it->is_null() ? nullptr : &*it;
}

Expected<std::vector<std::int64_t>> read_ranks(const nlohmann::json& value, const std::string& name,
                                               std::int64_t world_size) {
    const std::string below = "must be an array of ranks below world_size (" + std::to_string(world_size) + ")";
    if (!value.is_array()) return field_error(name, below);
    if (static_cast<std::int64_t>(value.size()) > world_size)
        return field_error(name, "must have at most world_size (" + std::to_string(world_size) + ") members");
    std::vector<std::int64_t> ranks;
    ranks.reserve(value.size());
    for (const auto& item : value) {
        const auto r = as_int(item);
        if (!r || *r < 0 || *r >= world_size) return field_error(name, below);
        ranks.push_back(*r);
    }
    auto sorted = ranks;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
        return field_error(name, "must not repeat a rank");
    return ranks;
}

// Strips nlohmann's "[json.exception.parse_error.101] " tag so clients read just what is wrong, and writes
// bytes outside printable ASCII as <FF>: the parser quotes what it last read, which may be invalid UTF-8,
// and the message must itself be valid JSON text.
std::string json_error_text(const std::exception& e) {
    std::string text = e.what();
    if (text.starts_with("[json.exception.")) {
        const auto end = text.find("] ");
        if (end != std::string::npos) text.erase(0, end + 2);
    }
    std::string clean;
    clean.reserve(text.size());
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x20 && byte < 0x7f) {
            clean += c;
        } else {
            static constexpr char hex[] = "0123456789ABCDEF";
            clean += '<';
            clean += hex[byte >> 4];
            clean += hex[byte & 0xf];
            clean += '>';
        }
    }
    return clean;
}

}  // namespace meshscope::event_fields
