// CollectorService: a running collector — the Collector (store + monitor threads) with its HTTP API and
// WebSocket stream on a network thread of their own. `meshscope serve` runs one; the desktop embeds one
// so that its GUI thread never does network or disk I/O:
//
//   auto service = CollectorService::start({.database = path}, {.port = 0}).value();
//   service->url();                    // "http://127.0.0.1:43123" for the simulator's Reporter
//   service->collector().subscribe(...);  // the change feed, in-process
//
// Needs a QCoreApplication (or QGuiApplication) to exist.
#pragma once

#include <QString>
#include <QThread>

#include <memory>

#include "collector/collector.h"
#include "collector_http_server.h"

namespace meshscope::server {

class CollectorService {
public:
    // Opens the collector (rebuilding its jobs from the database) and starts listening. RuntimeError
    // "cannot open history database ..." or "cannot listen on {address}:{port}: {reason}".
    [[nodiscard]] static Expected<std::unique_ptr<CollectorService>> start(CollectorOptions collector,
                                                                           HttpOptions http);
    ~CollectorService();  // stops listening, then finishes and closes the collector
    CollectorService(const CollectorService&) = delete;
    CollectorService& operator=(const CollectorService&) = delete;

    [[nodiscard]] Collector& collector() noexcept { return *collector_; }
    [[nodiscard]] quint16 port() const noexcept { return port_; }
    [[nodiscard]] QString url() const;  // http://address:port

private:
    CollectorService() = default;
    std::unique_ptr<Collector> collector_;
    QThread thread_;
    QObject* context_ = nullptr;             // lives on thread_
    CollectorHttpServer* server_ = nullptr;  // created, used and deleted on thread_
    HttpOptions http_;
    quint16 port_ = 0;
};

}  // namespace meshscope::server
