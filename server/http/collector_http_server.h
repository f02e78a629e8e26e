// CollectorHttpServer: the collector's HTTP API and WebSocket change stream (docs/collector.md), on
// QHttpServer's engine (QAbstractHttpServer) behind a GuardedTcpServer. It lives on one thread (the
// thread that creates it, or the one it is moved to before start()); parsing of HTTP happens there,
// storage and the monitor run on the Collector's threads, and POST answers are written when the store
// has committed, so the network thread never waits for the disk.
#pragma once

#include <QAbstractHttpServer>
#include <QHostAddress>
#include <QList>
#include <QPointer>
#include <QWebSocket>

#include <memory>
#include <mutex>

#include "connection_guard.h"

namespace meshscope::server {

class Collector;

struct HttpOptions {
    QHostAddress address = QHostAddress::LocalHost;
    quint16 port = 7077;  // 0: any free port (start() returns it)
    QByteArray token;     // required as "Authorization: Bearer <token>" when not empty
    ConnectionLimits limits;
    qint64 max_stream_backlog_bytes = 8 << 20;  // a WebSocket subscriber further behind is dropped
};

class CollectorHttpServer : public QAbstractHttpServer {
    Q_OBJECT
public:
    CollectorHttpServer(Collector& collector, HttpOptions options, QObject* parent = nullptr);
    ~CollectorHttpServer() override;

    // Listens; returns the bound port, or 0 with error_string() set.
    quint16 start();
    [[nodiscard]] QString error_string() const { return error_; }
    [[nodiscard]] int stream_subscribers() const { return static_cast<int>(subscribers_.size()); }

protected:
    bool handleRequest(const QHttpServerRequest& request, QTcpSocket* socket) override;
    void missingHandler(const QHttpServerRequest& request, QTcpSocket* socket) override;

private:
    struct Sink;  // hands results from collector threads back to this thread
    void answer_events(const QHttpServerRequest& request, QTcpSocket* socket);
    void answer_job(const QStringList& parts, QTcpSocket* socket, bool close);
    void accept_websockets();
    void flush_stream();
    [[nodiscard]] bool authorized(const QHttpServerRequest& request) const;

    Collector& collector_;
    HttpOptions options_;
    GuardedTcpServer* tcp_ = nullptr;
    QString error_;
    std::shared_ptr<Sink> sink_;
    int subscription_ = 0;
    std::vector<std::unique_ptr<QWebSocket>> subscribers_;
};

}  // namespace meshscope::server
