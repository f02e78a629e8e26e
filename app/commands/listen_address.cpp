#include "listen_address.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>

namespace meshscope::app {

Expected<ListenAddress> parse_listen_address(const std::string& text) {
    const auto bad = [&] { return ValueError("--listen must be HOST:PORT, got '" + text + "'"); };
    const auto colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0) return bad();
    std::string host = text.substr(0, colon);
    const std::string port_text = text.substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    if (port_text.empty() || port_text.size() > 5 ||
        !std::all_of(port_text.begin(), port_text.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return bad();
    const unsigned long port = std::stoul(port_text);
    if (port > 65535) return bad();
    ListenAddress address;
    address.port = static_cast<std::uint16_t>(port);
    if (host == "localhost") host = "127.0.0.1";
    if (host == "*") host = "0.0.0.0";
    in_addr v4{};
    in6_addr v6{};
    if (inet_pton(AF_INET, host.c_str(), &v4) == 1) {
        address.loopback = (ntohl(v4.s_addr) >> 24) == 127;
    } else if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) {
        address.loopback = std::memcmp(&v6, &in6addr_loopback, sizeof v6) == 0;
    } else {
        return ValueError("--listen: unknown host '" + host + "' (give an IP address)");
    }
    address.host = host;
    return address;
}

}  // namespace meshscope::app
