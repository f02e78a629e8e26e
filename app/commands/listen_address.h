// HOST:PORT as `--listen` and `--target` take it ("127.0.0.1:7077", "[::1]:7077", "localhost:0").
#pragma once

#include <cstdint>
#include <string>

#include "meshscope/mesh/error.h"

namespace meshscope::app {

struct ListenAddress {
    std::string host;  // an IP address as HttpOptions::address takes it: "127.0.0.1", "::1", "0.0.0.0"
    std::uint16_t port = 0;
    bool loopback = false;  // 127.0.0.0/8 or ::1
};

// ValueError "--listen must be HOST:PORT, got '{text}'" or "... unknown host '{host}'".
[[nodiscard]] Expected<ListenAddress> parse_listen_address(const std::string& text);

}  // namespace meshscope::app
