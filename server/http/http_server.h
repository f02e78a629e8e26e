// HttpServer: the collector's network side on Boost.Beast / Asio (epoll): one network thread (a
// net::IoThread, ms-network) runs the HTTP engine (net/http_engine.h: the listening socket and every
// HTTP/1.1 keep-alive connection) and every WebSocket subscriber (docs/collector.md, docs/live-at-scale.md).
// Limits per connection: header and body size (431 / 413 from Content-Length, before the body is read), a
// started request must arrive within read_timeout_ms (408), idle keep-alive connections close after
// idle_timeout_ms, connections beyond max_connections get 503 + Retry-After and are closed. With
// options.tls_cert/tls_key every connection is TLS (https, wss) and nothing else is spoken on the port. What a
// request asks is decided by ApiRouter; answers from the collector's threads are posted back here, so this
// thread never waits on the disk.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "http_options.h"
#include "meshscope/mesh/error.h"

namespace meshscope::server {

class Collector;

// Whether `serve --tls-cert CERT --tls-key KEY` could serve with these files: true, or the RuntimeError
// HttpServer::start would give (tls_context.h lists the texts).
[[nodiscard]] Expected<bool> check_tls_files(const std::string& cert_file, const std::string& key_file);

class HttpServer {
public:
    // Raises the descriptor limit, listens and starts the network thread. RuntimeError
    // "cannot listen on {address}:{port}: {reason}", or a TLS file's error (tls_context.h).
    [[nodiscard]] static Expected<std::unique_ptr<HttpServer>> start(Collector& collector, HttpOptions options);
    // Closes the listening socket and every connection, then stops the network thread. Answers the
    // collector has not given yet are dropped (their events are still committed by the collector).
    ~HttpServer();
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    [[nodiscard]] std::uint16_t port() const noexcept;
    [[nodiscard]] std::size_t max_connections() const noexcept;   // in force (the option, or the default)
    [[nodiscard]] std::size_t open_connections() const noexcept;  // HTTP and WebSocket, refused ones not counted

    struct Impl;

private:
    HttpServer() = default;
    std::unique_ptr<Impl> impl_;
};

}  // namespace meshscope::server
