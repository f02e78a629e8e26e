#include "relay.h"

#include <sys/resource.h>

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

int raise_open_file_limit() {
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
    if (limit.rlim_cur < limit.rlim_max) {
        rlimit raised = limit;
        raised.rlim_cur = limit.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
    }
    constexpr rlim_t cap = 1 << 30;
    return static_cast<int>(std::min(limit.rlim_cur, cap));
}

int default_max_connections(int open_file_limit) {
    // The reserve holds the upstream connections, the listening socket and whatever the process opens.
    return std::max(16, open_file_limit - 64);
}

}  // namespace meshscope::relay
