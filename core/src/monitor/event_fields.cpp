#include "event_fields.h"

#include <algorithm>
#include <limits>
#include <tuple>

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

// Reads the member `key` of `object` as a bounded integer; `name` is the dotted field name for messages.
Expected<std::int64_t> read_int(const nlohmann::json& value, std::string_view name, std::int64_t min,
                                std::int64_t max) {
    const auto v = as_int(value);
    if (!v || *v < min)
        return field_error(name, min > 0 ? "must be a positive integer" : "must be a non-negative integer");
    if (*v > max) return field_error(name, "must be at most " + std::to_string(max));
    return *v;
}

Expected<std::string> read_string(const nlohmann::json& value, std::string_view name, std::size_t max_length) {
    if (!value.is_string()) return field_error(name, "must be a string");
    auto text = value.get<std::string>();
    if (text.size() > max_length) return field_error(name, "must be at most " + std::to_string(max_length) + " bytes");
    return text;
}

// Every event and every rank of a snapshot carries a topology: names are spelled out only for a message.
Expected<ReportedTopology> read_topology(const nlohmann::json& value, const EventLimits& limits) {
    if (!value.is_object()) return field_error("topology", "must be an object");
    const auto name = [](const char* key) { return std::string("topology.") + key; };
    const auto size = [&](const nlohmann::json& v, const char* key) -> Expected<std::int64_t> {
        const auto n = as_int(v);
        if (n && *n >= 1 && *n <= limits.max_world_size) return *n;
        return read_int(v, name(key), 1, limits.max_world_size).error();
    };
    ReportedTopology t;
    for (auto [key, slot] : {std::pair{"dp", &t.dp}, std::pair{"cp", &t.cp}, std::pair{"ep", &t.ep}}) {
        const nlohmann::json* v = member(value, key);
        if (!v) return field_error(name(key), "is required");
        auto n = size(*v, key);
        if (!n) return n.error();
        *slot = *n;
    }
    // LlamaFactory's model mesh: optional, but both sizes or neither (one alone describes no mesh).
    for (auto [key, other, slot] : {std::tuple{"mp_replicate", "mp_shard", &t.mp_replicate},
                                    std::tuple{"mp_shard", "mp_replicate", &t.mp_shard}}) {
        const nlohmann::json* v = member(value, key);
        if (!v) {
            if (member(value, other))
                return field_error(name(key), std::string("is required with \"topology.") + other + "\"");
            continue;
        }
        auto n = size(*v, key);
        if (!n) return n.error();
        *slot = *n;
    }
    return t;
}

Expected<ReportedError> read_error(const nlohmann::json& value, const EventLimits& limits) {
    if (!value.is_object()) return field_error("error", "must be an object");
    ReportedError error;
    if (const nlohmann::json* type = member(value, "type")) {
        auto t = read_string(*type, "error.type", limits.max_string_length);
        if (!t) return t.error();
        error.type = *t;
    }
    if (const nlohmann::json* message = member(value, "message")) {
        auto m = read_string(*message, "error.message", limits.max_message_length);
        if (!m) return m.error();
        error.message = *m;
    }
    return error;
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
