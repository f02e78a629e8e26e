// What keeps a web page the user happens to open from using a collector or relay that has no token
// (docs/collector.md, "Limits and security"). Without a token anything that can reach the port may report and
// read, which on loopback means the user's own programs; a browser is the exception, as it runs other sites'
// scripts there:
// - Host must be a name the server answers to (loopback names and addresses, the listen address, --allow-host):
//   a DNS-rebinding page reaches 127.0.0.1 under its own name, and is refused here;
// - Origin, when a browser sends one, must be the server's own: a page of another origin cannot post events (a
//   text/plain POST needs no preflight), open the stream or read an answer.
// Clients outside a browser (reporters, relays, the desktop, curl) send no Origin and pass. Shared by the
// collector (api_router.cpp) and the relay; plain std, no Beast.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshscope::net {

namespace browser_guard_detail {
inline std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

// 127.0.0.0/8 written as four decimal numbers.
inline bool is_ipv4_loopback(std::string_view name) {
    int parts = 0;
    int value = -1;
    for (std::size_t i = 0; i <= name.size(); ++i) {
        if (i == name.size() || name[i] == '.') {
            if (value < 0 || (parts == 0 && value != 127)) return false;
            ++parts;
            value = -1;
            continue;
        }
        if (name[i] < '0' || name[i] > '9') return false;
        value = (value < 0 ? 0 : value * 10) + (name[i] - '0');
        if (value > 255) return false;
    }
    return parts == 4;
}
}  // namespace browser_guard_detail

// "127.0.0.1:7077" -> "127.0.0.1", "[::1]:7077" -> "[::1]", "Localhost." -> "localhost"; an IPv6 address without
// brackets (as --allow-host may give it) is one name: "fd00::1" -> "[fd00::1]".
[[nodiscard]] inline std::string host_name(std::string_view host) {
    std::string_view name = host;
    if (std::count(name.begin(), name.end(), ':') > 1 && name.find('[') == std::string_view::npos)
        return "[" + browser_guard_detail::lower(name) + "]";
    if (!name.empty() && name.front() == '[') {
        const auto close = name.find(']');
        if (close != std::string_view::npos) name = name.substr(0, close + 1);
    } else if (const auto colon = name.rfind(':'); colon != std::string_view::npos) {
        name = name.substr(0, colon);
    }
    if (name.size() > 1 && name.back() == '.') name.remove_suffix(1);
    return browser_guard_detail::lower(name);
}

// The message of the 403 for a request a token-less server listening on `address` must not serve, or nullopt.
// With a token the token decides (a page cannot learn it) and this is not asked.
[[nodiscard]] inline std::optional<std::string> browser_refusal(const std::optional<std::string>& host,
                                                                const std::optional<std::string>& origin,
                                                                std::string_view address,
                                                                const std::vector<std::string>& allowed_hosts) {
    using browser_guard_detail::lower;
    if (host) {
        const std::string name = host_name(*host);
        const std::string listen = host_name(address);
        const bool known = name == "localhost" || name == "[::1]" || browser_guard_detail::is_ipv4_loopback(name) ||
                           name == listen ||
                           std::any_of(allowed_hosts.begin(), allowed_hosts.end(),
                                       [&](const std::string& allowed) { return host_name(allowed) == name; });
        if (!known)
            return "Host \"" + *host + "\" is not a name this collector answers to: give --allow-host " + name +
                   " to serve it";
    }
    if (origin) {
        // Same origin: the Origin's host and port are the Host the request was sent to (the scheme is left out,
        // so that a TLS proxy in front keeps working).
        std::string_view authority = *origin;
        for (std::string_view scheme : {"http://", "https://"})
            if (authority.starts_with(scheme)) authority.remove_prefix(scheme.size());
        const bool same = host && authority.size() < origin->size() && lower(authority) == lower(*host);
        if (!same)
            return "Origin \"" + *origin + "\" is not this collector's: requests from other web pages are refused";
    }
    return std::nullopt;
}

}  // namespace meshscope::net
