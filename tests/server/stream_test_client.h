// A WebSocket subscriber of /api/v1/stream for the tests: every text message it gets, in order, and how
// the collector closed it.
#pragma once

#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkRequest>
#include <QStringList>
#include <QWebSocket>
#include <QWebSocketHandshakeOptions>

namespace test {

class StreamClient {
public:
    StreamClient() {
        QObject::connect(&socket, &QWebSocket::textMessageReceived, &socket,
                         [this](const QString& message) { messages << message; });
        QObject::connect(&socket, &QWebSocket::disconnected, &socket, [this] { closed = true; });
    }
    void open(const QNetworkRequest& request) { socket.open(request); }
    void open(const QString& url) { socket.open(QNetworkRequest(QUrl(url))); }
    void open(const QString& url, const QStringList& subprotocols) {
        QWebSocketHandshakeOptions options;
        options.setSubprotocols(subprotocols);
        socket.open(QNetworkRequest(QUrl(url)), options);
    }
    [[nodiscard]] QJsonObject json(qsizetype i) const {
        return QJsonDocument::fromJson(messages.value(i).toUtf8()).object();
    }
    [[nodiscard]] QString type(qsizetype i) const { return json(i).value("type").toString(); }
    [[nodiscard]] qint64 seq(qsizetype i) const { return json(i).value("seq").toInteger(-1); }

    QWebSocket socket;
    QStringList messages;
    bool closed = false;
};

}  // namespace test
