// A scripted HTTP server on loopback for LiveClient tests: each path answers a fixed status and body, now or
// when the test releases it, so a test decides in which order answers reach the client (a real collector
// answers in request order). Test-only; one request per connection ("Connection: close").
#pragma once

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QTcpServer>
#include <QTcpSocket>

#include "http_test_support.h"

namespace meshscope::test {

class ScriptedHttp {
public:
    struct Route {
        int status = 200;
        QByteArray body;
        bool held = false;  // answered only by release()
    };

    ScriptedHttp() {
        server_.listen(QHostAddress::LocalHost, 0);
        QObject::connect(&server_, &QTcpServer::newConnection, &server_, [this] {
            while (QTcpSocket* socket = server_.nextPendingConnection()) {
                QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
                QObject::connect(socket, &QTcpSocket::readyRead, socket, [this, socket] { on_read(socket); });
            }
        });
    }

    [[nodiscard]] QString url() const { return QStringLiteral("http://127.0.0.1:%1").arg(server_.serverPort()); }
    void route(const QString& path, Route route) { routes_[path] = std::move(route); }
    // Paths requested so far, in arrival order.
    [[nodiscard]] QStringList requested() const { return requested_; }
    // Paths answered so far (body written), in order.
    [[nodiscard]] QStringList answered() const { return answered_; }

    void release(const QString& path) {
        routes_[path].held = false;
        const QList<QPointer<QTcpSocket>> waiting = held_.take(path);
        for (const auto& socket : waiting)
            if (socket) answer(socket, path);
    }

private:
    void on_read(QTcpSocket* socket) {
        QByteArray& buffer = buffers_[socket];
        buffer += socket->readAll();
        if (!buffer.contains("\r\n\r\n")) return;
        const QList<QByteArray> line = buffer.left(buffer.indexOf("\r\n")).split(' ');
        buffers_.remove(socket);
        const QString path = line.size() > 1 ? QString::fromLatin1(line[1]) : QString();
        requested_ << path;
        if (routes_.value(path).held) {
            held_[path] << QPointer<QTcpSocket>(socket);
            return;
        }
        answer(socket, path);
    }

    void answer(QTcpSocket* socket, const QString& path) {
        const auto it = routes_.constFind(path);
        const Route route = it == routes_.constEnd() ? Route{404, R"({"error":"no such path"})", false} : *it;
        socket->write(::test::http_response(route.status, route.body, {"Connection: close"}));
        socket->disconnectFromHost();
        answered_ << path;
    }

    QTcpServer server_;
    QHash<QString, Route> routes_;
    QHash<QTcpSocket*, QByteArray> buffers_;
    QHash<QString, QList<QPointer<QTcpSocket>>> held_;
    QStringList requested_;
    QStringList answered_;
};

}  // namespace meshscope::test
