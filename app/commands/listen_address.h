// HOST:PORT as `--listen` and `--target` take it ("127.0.0.1:7077", "[::1]:7077", "localhost:0").
#pragma once

#include <QHostAddress>
#include <string>

#include "meshscope/error.h"

namespace meshscope::app {

struct ListenAddress {
    QHostAddress host;
    quint16 port = 0;
};

// ValueError "--listen must be HOST:PORT, got '{text}'" or "... unknown host '{host}'".
[[nodiscard]] Expected<ListenAddress> parse_listen_address(const std::string& text);

}  // namespace meshscope::app
