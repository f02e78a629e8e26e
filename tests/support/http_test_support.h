// HTTP for the tests over loopback (tests/server, tests/probe, tests/live-ui): a synchronous request through
// QNetworkAccessManager (status, body, headers; the JSON body and its "error"), raw bytes over a socket for
// requests no well-behaved client sends, and for the tests' stand-in servers the end of a whole message in a
// buffer, a header of a head and a JSON response's bytes.
#pragma once

#include <QByteArray>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QHostAddress>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QPair>
#include <QString>
#include <QTcpSocket>

namespace test {

// Where the first whole HTTP/1.1 message in `data` ends (head + Content-Length body); -1 while incomplete.
inline qsizetype http_message_end(const QByteArray& data) {
    const auto head_end = data.indexOf("\r\n\r\n");
    if (head_end < 0) return -1;
    const QByteArray head = data.left(head_end).toLower();
    const auto at = head.indexOf("content-length:");
    const int length = at >= 0 ? head.mid(at + 15, head.indexOf("\r\n", at) - at - 15).trimmed().toInt() : 0;
    return data.size() >= head_end + 4 + length ? head_end + 4 + length : -1;
}

// The value of header `name` (any case) in a message head; empty when absent.
inline QByteArray http_header(const QByteArray& head, const QByteArray& name) {
    for (const QByteArray& line : head.split('\n')) {
        const auto colon = line.indexOf(':');
        if (colon > 0 && line.left(colon).trimmed().toLower() == name.toLower()) return line.mid(colon + 1).trimmed();
    }
    return {};
}

// A JSON response's bytes: status line, Content-Type, Content-Length, `extra` header lines ("Name: value"), body.
inline QByteArray http_response(int status, const QByteArray& body, const QList<QByteArray>& extra = {}) {
    QByteArray out = "HTTP/1.1 " + QByteArray::number(status) +
                     " X\r\nContent-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size()) +
                     "\r\n";
    for (const QByteArray& line : extra) out += line + "\r\n";
    return out + "\r\n" + body;
}

struct HttpReply {
    int status = 0;  // 0: no answer
    QByteArray body;
    QList<QPair<QByteArray, QByteArray>> headers;
    [[nodiscard]] QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
    [[nodiscard]] QString error() const { return json().value("error").toString(); }
    [[nodiscard]] QByteArray header(const QByteArray& name) const {
        for (const auto& [key, value] : headers)
            if (key.toLower() == name.toLower()) return value;
        return {};
    }
};

inline HttpReply http(QNetworkAccessManager& nam, const QByteArray& method, const QString& url,
                      const QByteArray& body = {}, const QByteArray& token = {}, int timeout_ms = 10000) {
    QNetworkRequest request{QUrl(url)};
    request.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
    if (!token.isEmpty()) request.setRawHeader("Authorization", "Bearer " + token);
    request.setTransferTimeout(timeout_ms);
    QNetworkReply* reply = nam.sendCustomRequest(request, method, body);
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    HttpReply out;
    out.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    out.body = reply->readAll();
    out.headers = reply->rawHeaderPairs();
    reply->deleteLater();
    return out;
}

// Sends raw bytes and reads until the server closes or answers with a complete response.
inline HttpReply raw_http(quint16 port, const QByteArray& bytes, int timeout_ms = 10000) {
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, port);
    if (!socket.waitForConnected(timeout_ms)) return {};
    socket.write(bytes);
    socket.waitForBytesWritten(timeout_ms);
    QByteArray data;
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < timeout_ms) {
        if (socket.bytesAvailable() || socket.waitForReadyRead(100)) data += socket.readAll();
        if (http_message_end(data) >= 0) break;
        if (socket.state() != QAbstractSocket::ConnectedState && !socket.bytesAvailable()) break;
    }
    HttpReply out;
    if (data.startsWith("HTTP/1.1 ")) out.status = data.mid(9, 3).toInt();
    const auto end = data.indexOf("\r\n\r\n");
    if (end >= 0) out.body = data.mid(end + 4);
    const QList<QByteArray> lines = data.left(end).split('\n');
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const auto colon = lines[i].indexOf(':');
        if (colon > 0) out.headers.append({lines[i].left(colon).trimmed(), lines[i].mid(colon + 1).trimmed()});
    }
    return out;
}

}  // namespace test
