// GuardedTcpServer: the listening socket in front of the HTTP server, adding what QHttpServer 6.4 lacks
// (docs/libraries.md): a connection limit, a body-size limit that answers 413 without buffering the body,
// a read timeout for requests that stall half-way (408), and an idle timeout for keep-alive connections.
// One slow or hostile client costs one socket and a timer; everything stays on the server's thread and
// never blocks the other connections.
#pragma once

#include <QTcpServer>
#include <QTimer>

class QTcpSocket;

namespace meshscope::server {

struct ConnectionLimits {
    int max_connections = 1024;
    qint64 max_body_bytes = qint64{1} << 20;  // 1 MiB; larger bodies get 413
    qint64 max_header_bytes = 64 * 1024;      // request line + headers
    int read_timeout_ms = 10000;              // a started request must arrive within this
    int idle_timeout_ms = 60000;              // keep-alive connections idle longer are closed
};

class GuardedTcpServer : public QTcpServer {
    Q_OBJECT
public:
    explicit GuardedTcpServer(ConnectionLimits limits, QObject* parent = nullptr);
    [[nodiscard]] int open_connections() const noexcept { return open_; }
    [[nodiscard]] quint64 refused_connections() const noexcept { return refused_; }

protected:
    void incomingConnection(qintptr descriptor) override;

private:
    ConnectionLimits limits_;
    int open_ = 0;
    quint64 refused_ = 0;
};

// Stops guarding a socket that left HTTP (a WebSocket upgrade): no more timeouts or byte counts on it.
void release_connection_guard(QTcpSocket* socket);

// Writes a complete HTTP/1.1 response on the socket (JSON or text body, exact Content-Length).
void write_http_response(QTcpSocket* socket, int status, const QByteArray& body,
                         const QByteArray& content_type = "application/json",
                         const QList<QPair<QByteArray, QByteArray>>& headers = {}, bool close = false);

}  // namespace meshscope::server
