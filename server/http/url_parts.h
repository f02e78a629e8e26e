// The parts of a request target the router needs: the path split at '/', and query values, both
// percent-decoded.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshscope::server {

struct UrlParts {
    std::string path;                   // as sent (still encoded): error texts quote it
    std::vector<std::string> segments;  // decoded, without the leading empty one
    std::string query;                  // after '?', still encoded
};

[[nodiscard]] UrlParts split_target(std::string_view target);
// "%41b+c" -> "Ab c" ('+' is a space only in queries); malformed escapes are kept as they are.
[[nodiscard]] std::string percent_decode(std::string_view text, bool plus_is_space = false);
// The decoded value of the first `name=` in the query, or nullopt.
[[nodiscard]] std::optional<std::string> query_value(std::string_view query, std::string_view name);
// The query's names in order, decoded (a repeated name appears again; query_value reads its first value).
[[nodiscard]] std::vector<std::string> query_names(std::string_view query);

}  // namespace meshscope::server
