#include "relay.h"

#include <algorithm>
#include <charconv>

namespace meshscope::relay {

Expected<UpstreamUrl> parse_upstream_url(const std::string& text) {
    const auto bad = [&] { return ValueError("--upstream must be http://HOST:PORT, got '" + text + "'"); };
    constexpr std::string_view scheme = "http://";
    if (!text.starts_with(scheme)) return bad();
    std::string rest = text.substr(scheme.size());
    UpstreamUrl url;
    if (const auto slash = rest.find('/'); slash != std::string::npos) {
        url.prefix = rest.substr(slash);
        rest.resize(slash);
        while (!url.prefix.empty() && url.prefix.back() == '/') url.prefix.pop_back();
    }
    const auto colon = rest.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == rest.size()) return bad();
    url.host = rest.substr(0, colon);
    url.port = rest.substr(colon + 1);
    if (url.host.size() >= 2 && url.host.front() == '[' && url.host.back() == ']')
        url.host = url.host.substr(1, url.host.size() - 2);
    unsigned port = 0;
    const auto [end, ec] = std::from_chars(url.port.data(), url.port.data() + url.port.size(), port);
    if (ec != std::errc{} || end != url.port.data() + url.port.size() || port == 0 || port > 65535) return bad();
    return url;
}

int default_max_connections(std::size_t open_file_limit) {
    constexpr std::size_t reserve = 64;
    return static_cast<int>(std::clamp<std::size_t>(open_file_limit, 16 + reserve, 1 << 30) - reserve);
}

}  // namespace meshscope::relay
