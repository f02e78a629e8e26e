// Helpers for the collector tests: synchronous HTTP over loopback (QNetworkAccessManager), a raw socket
// for requests no well-behaved client sends, and `meshscope serve` / `simulate` as real processes.
#pragma once

#include <functional>

#include <QByteArray>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QTcpSocket>
#include <QTest>
#include <QTimer>

#include <memory>

namespace test {

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
        const auto end = data.indexOf("\r\n\r\n");
        if (end >= 0) {
            const auto at = data.toLower().indexOf("content-length:");
            const int length = at >= 0 ? data.mid(at + 15, data.indexOf("\r\n", at) - at - 15).trimmed().toInt() : 0;
            if (data.size() >= end + 4 + length) break;
        }
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

// `meshscope serve` on a free port; the port comes from its first stdout line.
class ServeProcess {
public:
    explicit ServeProcess(QStringList arguments) {
        process_.setProgram(MESHSCOPE_BIN);
        process_.setArguments(QStringList{"serve", "--listen", "127.0.0.1:0"} + arguments);
        process_.setProcessChannelMode(QProcess::SeparateChannels);
        process_.start();
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < 15000 && !process_.canReadLine()) {
            if (process_.state() == QProcess::NotRunning) break;
            process_.waitForReadyRead(100);
        }
        const auto line = QJsonDocument::fromJson(process_.readLine()).object();
        port_ = static_cast<quint16>(line.value("port").toInt());
        rebuilt_ = line.value("events_rebuilt").toInteger();
    }
    ~ServeProcess() { stop(); }
    void stop() {
        if (process_.state() == QProcess::NotRunning) return;
        process_.terminate();
        if (!process_.waitForFinished(10000)) {
            process_.kill();
            process_.waitForFinished(5000);
        }
    }
    void kill() {
        process_.kill();  // SIGKILL: no chance to flush anything
        process_.waitForFinished(5000);
    }
    [[nodiscard]] quint16 port() const { return port_; }
    [[nodiscard]] qint64 rebuilt() const { return rebuilt_; }
    [[nodiscard]] QString url() const { return QStringLiteral("http://127.0.0.1:%1").arg(port_); }
    [[nodiscard]] QByteArray errors() { return process_.readAllStandardError(); }

private:
    QProcess process_;
    quint16 port_ = 0;
    qint64 rebuilt_ = 0;
};

struct CommandResult {
    int exit_code = -1;
    QByteArray out;
    QByteArray err;
};

inline CommandResult run_meshscope(const QStringList& arguments, int timeout_ms = 60000) {
    QProcess process;
    process.start(MESHSCOPE_BIN, arguments);
    CommandResult result;
    if (!process.waitForFinished(timeout_ms)) {
        process.kill();
        process.waitForFinished();
        result.err = "timed out";
        return result;
    }
    result.exit_code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    return result;
}

// Polls until `ready` holds or the time is up.
template <typename F>
bool eventually(F ready, int timeout_ms = 15000, int step_ms = 100) {
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < timeout_ms) {
        if (ready()) return true;
        QTest::qWait(step_ms);
    }
    return ready();
}

// run_meshscope while this thread's event loop keeps serving (a fake collector in the test, sockets to
// sample): polls the process every `step_ms`, calling `each_poll` (if any) each time.
inline CommandResult run_meshscope_serving(const QStringList& arguments, int timeout_ms = 60000,
                                           const std::function<void()>& each_poll = {}, int step_ms = 20) {
    QProcess process;
    process.start(MESHSCOPE_BIN, arguments);
    CommandResult result;
    const bool ended = eventually(
        [&] {
            if (each_poll) each_poll();
            return process.state() == QProcess::NotRunning;
        },
        timeout_ms, step_ms);
    if (!ended) {
        process.kill();
        process.waitForFinished();
        result.err = "timed out";
        return result;
    }
    result.exit_code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    return result;
}

}  // namespace test
