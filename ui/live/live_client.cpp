#include "live_client.h"

#include <QNetworkReply>
#include <QNetworkRequest>

namespace meshscope::ui {

namespace {
QString error_from(const QByteArray& body) {
    const auto parsed = nlohmann::json::parse(body.constData(), body.constData() + body.size(), nullptr, false);
    if (parsed.is_object() && parsed.contains("error") && parsed["error"].is_string())
        return QString::fromStdString(parsed["error"].get<std::string>());
    return QString::fromUtf8(body.left(200));
}
}  // namespace

LiveClient::LiveClient(QObject* parent) : QObject(parent) {
    reconnect_.setInterval(2000);
    reconnect_.setSingleShot(true);
    connect(&reconnect_, &QTimer::timeout, this, &LiveClient::open_stream);
    connect(&socket_, &QWebSocket::connected, this, [this] { set_streaming(true); });
    connect(&socket_, &QWebSocket::disconnected, this, [this] {
        set_streaming(false);
        if (!url_.isEmpty()) reconnect_.start();
    });
    connect(&socket_, qOverload<QAbstractSocket::SocketError>(&QWebSocket::error), this,
            [this](QAbstractSocket::SocketError) { emit streamError(socket_.errorString()); });
    connect(&socket_, &QWebSocket::textMessageReceived, this, [this](const QString& text) {
        const QByteArray utf8 = text.toUtf8();
        auto message = nlohmann::json::parse(utf8.constData(), utf8.constData() + utf8.size(), nullptr, false);
        if (message.is_object()) emit changeReceived(message);
    });
}

LiveClient::~LiveClient() {
    url_.clear();  // no reconnect while closing
    socket_.abort();
}

void LiveClient::setServer(const QUrl& url, const QString& token) {
    ++generation_;
    url_ = url;
    token_ = token.toUtf8();
    reconnect_.stop();
    socket_.abort();
    set_streaming(false);
    if (!url_.isEmpty()) open_stream();
}

void LiveClient::open_stream() {
    if (url_.isEmpty()) return;
    QUrl ws = url_;
    ws.setScheme(url_.scheme() == QLatin1String("https") ? QStringLiteral("wss") : QStringLiteral("ws"));
    ws.setPath(url_.path().chopped(url_.path().endsWith('/') ? 1 : 0) + QStringLiteral("/api/v1/stream"));
    QNetworkRequest request(ws);
    if (!token_.isEmpty()) request.setRawHeader("Authorization", "Bearer " + token_);
    socket_.open(request);
}

void LiveClient::set_streaming(bool streaming) {
    if (streaming == streaming_) return;
    streaming_ = streaming;
    emit streamingChanged(streaming);
}

void LiveClient::get(const QString& path, QObject* context, Answer answer) {
    if (url_.isEmpty()) {
        answer(nlohmann::json(), QStringLiteral("not connected to a collector"));
        return;
    }
    QUrl target = url_;
    target.setPath(url_.path().chopped(url_.path().endsWith('/') ? 1 : 0) + path);
    QNetworkRequest request(target);
    if (!token_.isEmpty()) request.setRawHeader("Authorization", "Bearer " + token_);
    request.setTransferTimeout(10000);
    QNetworkReply* reply = network_.get(request);
    const int generation = generation_;
    const QString base = url_.toString();
    QPointer<QObject> guard(context);
    connect(reply, &QNetworkReply::finished, this, [this, reply, generation, guard, path, base, answer] {
        reply->deleteLater();
        if (generation != generation_ || !guard) return;
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QByteArray body = reply->readAll();
        if (status == 0) {
            answer(nlohmann::json(), QStringLiteral("cannot reach %1: %2").arg(base, reply->errorString()));
            return;
        }
        if (status != 200) {
            answer(nlohmann::json(), QStringLiteral("GET %1: %2 %3").arg(path).arg(status).arg(error_from(body)));
            return;
        }
        auto parsed = nlohmann::json::parse(body.constData(), body.constData() + body.size(), nullptr, false);
        if (parsed.is_discarded()) {
            answer(nlohmann::json(), QStringLiteral("GET %1: the answer is not JSON").arg(path));
            return;
        }
        answer(parsed, QString());
    });
}

}  // namespace meshscope::ui
