#include "connection_guard.h"

#include <QPointer>
#include <QTcpSocket>

namespace meshscope::server {

namespace {
QByteArray reason(int status) {
    switch (status) {
        case 200: return "OK";
        case 400: return "Bad Request";
        case 401: return "Unauthorized";
        case 404: return "Not Found";
        case 405: return "Method Not Allowed";
        case 408: return "Request Timeout";
        case 413: return "Payload Too Large";
        case 415: return "Unsupported Media Type";
        case 431: return "Request Header Fields Too Large";
        case 500: return "Internal Server Error";
        case 503: return "Service Unavailable";
        default: return "Status";
    }
}

}  // namespace

// Watches one connection. Connected to readyRead before the HTTP server is, so it sees every chunk first
// and can swallow a request the server must never parse.
class ConnectionGuard : public QObject {
    Q_OBJECT
public:
    ConnectionGuard(QTcpSocket* socket, const ConnectionLimits& limits)
        : QObject(socket), socket_(socket), limits_(limits) {
        read_timer_.setSingleShot(true);
        idle_timer_.setSingleShot(true);
        connect(&read_timer_, &QTimer::timeout, this, [this] {
            if (!draining_) refuse(408, "request not received in time");
        });
        connect(&idle_timer_, &QTimer::timeout, this, [this] { socket_->disconnectFromHost(); });
        connect(socket, &QTcpSocket::readyRead, this, [this] { on_ready_read(); });
        connect(socket, &QTcpSocket::bytesWritten, this, [this] { on_response_written(); });
        idle_timer_.start(limits_.idle_timeout_ms);
    }

private:
    void on_ready_read() {
        if (draining_) {
            // Discard what a refused request still sends, so closing does not reset the connection
            // before the client has read our answer; give up after a bound.
            drained_ += socket_->skip(socket_->bytesAvailable());
            if (drained_ > 64 * limits_.max_body_bytes) socket_->abort();
            read_timer_.start(quiet_ms);
            return;
        }
        idle_timer_.stop();
        const qint64 available = socket_->bytesAvailable();
        if (request_bytes_ == 0) {
            read_timer_.start(limits_.read_timeout_ms);
            // A new request: refuse it from its Content-Length before any of the body is buffered.
            const QByteArray head = socket_->peek(std::min<qint64>(available, limits_.max_header_bytes));
            const qint64 length = content_length(head);
            if (length > limits_.max_body_bytes) {
                refuse(413, "request body larger than " + QByteArray::number(limits_.max_body_bytes) + " bytes");
                on_ready_read();
                return;
            }
        }
        request_bytes_ += available;
        if (request_bytes_ > limits_.max_body_bytes + limits_.max_header_bytes) {
            refuse(413, "request body larger than " + QByteArray::number(limits_.max_body_bytes) + " bytes");
            on_ready_read();
        }
    }

    // The server answered: the next bytes start a new request.
    void on_response_written() {
        if (draining_ || socket_->bytesToWrite() > 0) return;
        request_bytes_ = 0;
        read_timer_.stop();
        idle_timer_.start(limits_.idle_timeout_ms);
    }

    void refuse(int status, const QByteArray& message) {
        if (draining_) return;
        draining_ = true;
        read_timer_.stop();
        idle_timer_.stop();
        const QByteArray body = "{\"error\":\"" + message + "\"}";
        write_http_response(socket_, status, body, "application/json", {}, true);
        // Close once the client has gone quiet (closing while it still sends would reset the connection
        // before it reads the answer), and in any case after a bound.
        connect(&read_timer_, &QTimer::timeout, socket_, &QTcpSocket::disconnectFromHost);
        read_timer_.start(quiet_ms);
        QTimer::singleShot(10000, socket_, [s = QPointer<QTcpSocket>(socket_)] {
            if (s) s->abort();
        });
    }

    static qint64 content_length(const QByteArray& head) {
        const qsizetype end = head.indexOf("\r\n\r\n");
        const QByteArray headers = (end >= 0 ? head.left(end) : head).toLower();
        const qsizetype at = headers.indexOf("\ncontent-length:");
        if (at < 0) return -1;
        qsizetype i = at + 16;
        while (i < headers.size() && headers[i] == ' ') ++i;
        qsizetype j = i;
        while (j < headers.size() && headers[j] >= '0' && headers[j] <= '9') ++j;
        if (j == i) return -1;
        if (j - i > 15) return std::numeric_limits<qint64>::max();
        return headers.mid(i, j - i).toLongLong();
    }

    static constexpr int quiet_ms = 300;
    QTcpSocket* socket_;
    ConnectionLimits limits_;
    QTimer read_timer_;
    QTimer idle_timer_;
    qint64 request_bytes_ = 0;
    qint64 drained_ = 0;
    bool draining_ = false;
};

void release_connection_guard(QTcpSocket* socket) {
    if (auto* guard = socket->findChild<ConnectionGuard*>(QString(), Qt::FindDirectChildrenOnly)) delete guard;
}

void write_http_response(QTcpSocket* socket, int status, const QByteArray& body, const QByteArray& content_type,
                         const QList<QPair<QByteArray, QByteArray>>& headers, bool close) {
    if (!socket || socket->state() != QAbstractSocket::ConnectedState) return;
    QByteArray out;
    out.reserve(body.size() + 160);
    out += "HTTP/1.1 " + QByteArray::number(status) + " " + reason(status) + "\r\n";
    out += "Content-Type: " + content_type + "\r\n";
    out += "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
    for (const auto& [key, value] : headers) out += key + ": " + value + "\r\n";
    out += close ? "Connection: close\r\n\r\n" : "Connection: keep-alive\r\n\r\n";
    out += body;
    socket->write(out);
}

GuardedTcpServer::GuardedTcpServer(ConnectionLimits limits, QObject* parent) : QTcpServer(parent), limits_(limits) {}

void GuardedTcpServer::incomingConnection(qintptr descriptor) {
    auto* socket = new QTcpSocket(this);
    if (!socket->setSocketDescriptor(descriptor)) {
        delete socket;
        return;
    }
    if (open_ >= limits_.max_connections) {
        ++refused_;
        write_http_response(socket, 503, "{\"error\":\"too many connections\"}", "application/json", {}, true);
        socket->disconnectFromHost();
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        return;
    }
    ++open_;
    connect(socket, &QObject::destroyed, this, [this] { --open_; });
    new ConnectionGuard(socket, limits_);
    addPendingConnection(socket);
}

}  // namespace meshscope::server

#include "connection_guard.moc"
