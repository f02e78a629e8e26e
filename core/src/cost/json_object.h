// A cost input file's JSON document (a model's config.json, a cluster profile): parsed within the JSON limits, and
// an object, or the one message each case has, naming the file.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "meshscope/mesh/error.h"
#include "meshscope/mesh/json_limits.h"

namespace meshscope::cost::detail {

[[nodiscard]] inline Expected<nlohmann::json> read_json_object(std::string_view json_text, const std::string& src) {
    nlohmann::json doc;
    try {
        doc = parse_json_throwing(json_text);
    } catch (const JsonTooDeep& e) {
        return ValueError(src + ": " + e.what());
    } catch (const nlohmann::json::parse_error& e) {
        return ValueError(src + " is not valid JSON (byte " + std::to_string(e.byte) + ").");
    }
    if (!doc.is_object()) return ValueError(src + " is not a JSON object.");
    return doc;
}

}  // namespace meshscope::cost::detail
