// CollectorService: a running collector — the Collector (store + monitor threads) with its HTTP API and
// WebSocket stream on a network thread of their own (HttpServer, Boost.Beast). `meshscope serve` runs one;
// the desktop embeds one so that its GUI thread never does network or disk I/O. Qt-free:
//
//   auto service = CollectorService::start({.database = path}, {.port = 0}).value();
//   service->url();                    // "http://127.0.0.1:43123" for the simulator's Reporter
//   service->collector().subscribe(...);  // the change feed, in-process
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "collector/collector.h"
#include "http_options.h"
#include "http_server.h"

namespace meshscope::server {

class CollectorService {
public:
    // Opens the collector (rebuilding its jobs from the database) and starts listening. RuntimeError
    // "cannot open history database ..." or "cannot listen on {address}:{port}: {reason}".
    [[nodiscard]] static Expected<std::unique_ptr<CollectorService>> start(CollectorOptions collector,
                                                                           HttpOptions http);
    // Stops listening and closes every connection, then finishes (commits what was submitted) and closes
    // the collector.
    ~CollectorService();
    CollectorService(const CollectorService&) = delete;
    CollectorService& operator=(const CollectorService&) = delete;

    [[nodiscard]] Collector& collector() noexcept { return *collector_; }
    [[nodiscard]] std::uint16_t port() const noexcept { return server_->port(); }
    [[nodiscard]] std::string url() const;  // http(s)://address:port (a wildcard address reads as loopback)
    [[nodiscard]] const HttpServer& server() const noexcept { return *server_; }

private:
    CollectorService() = default;
    std::unique_ptr<Collector> collector_;
    std::unique_ptr<HttpServer> server_;
    HttpOptions http_;
};

}  // namespace meshscope::server
