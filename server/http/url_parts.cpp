#include "url_parts.h"

namespace meshscope::server {

namespace {
int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}
}  // namespace

std::string percent_decode(std::string_view text, bool plus_is_space) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '%' && i + 2 < text.size()) {
            const int high = hex(text[i + 1]), low = hex(text[i + 2]);
            if (high >= 0 && low >= 0) {
                out += static_cast<char>(high * 16 + low);
                i += 2;
                continue;
            }
        }
        out += plus_is_space && c == '+' ? ' ' : c;
    }
    return out;
}

UrlParts split_target(std::string_view target) {
    UrlParts parts;
    const auto question = target.find('?');
    parts.path = std::string(target.substr(0, question));
    if (question != std::string_view::npos) parts.query = std::string(target.substr(question + 1));
    std::string_view rest = parts.path;
    if (!rest.empty() && rest.front() == '/') rest.remove_prefix(1);
    while (true) {
        const auto slash = rest.find('/');
        parts.segments.push_back(percent_decode(rest.substr(0, slash)));
        if (slash == std::string_view::npos) break;
        rest.remove_prefix(slash + 1);
    }
    return parts;
}

std::optional<std::string> query_value(std::string_view query, std::string_view name) {
    while (!query.empty()) {
        const auto amp = query.find('&');
        const std::string_view item = query.substr(0, amp);
        const auto eq = item.find('=');
        if (percent_decode(item.substr(0, eq), true) == name)
            return eq == std::string_view::npos ? std::string() : percent_decode(item.substr(eq + 1), true);
        if (amp == std::string_view::npos) break;
        query.remove_prefix(amp + 1);
    }
    return std::nullopt;
}

std::vector<std::string> query_names(std::string_view query) {
    std::vector<std::string> out;
    while (!query.empty()) {
        const auto amp = query.find('&');
        const std::string_view item = query.substr(0, amp);
        if (!item.empty()) out.push_back(percent_decode(item.substr(0, item.find('=')), true));
        if (amp == std::string_view::npos) break;
        query.remove_prefix(amp + 1);
    }
    return out;
}

}  // namespace meshscope::server
