// LiveClient: the Live page's connection to a collector (`meshscope serve`, or the one the desktop embeds):
// GET requests to its HTTP API and its WebSocket change stream (/api/v1/stream). The embedded demo and a
// remote collector go through this same class, so the page has one data path.
//
//   LiveClient client;
//   client.setServer(QUrl("http://127.0.0.1:7077"), "token");
//   client.get("/api/v1/jobs", this, [](const nlohmann::json& body, const QString& error) { ... });
//   connect(&client, &LiveClient::changeReceived, ...);  // parsed stream messages
//
// The stream reconnects by itself (every `reconnectMs`) after it drops; GET answers arrive on the thread
// that owns the client. Answers to requests made for an older server are dropped.
#pragma once

#include <QNetworkAccessManager>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QUrl>
#include <QWebSocket>

#include <functional>

#include <nlohmann/json.hpp>

namespace meshscope::ui {

class LiveClient : public QObject {
    Q_OBJECT

public:
    // body is null when error is set; error: "cannot reach http://...: Connection refused",
    // "GET /api/v1/jobs/x: 404 no job named \"x\"".
    using Answer = std::function<void(const nlohmann::json& body, const QString& error)>;

    explicit LiveClient(QObject* parent = nullptr);
    ~LiveClient() override;

    // An empty url disconnects. Starts the change stream.
    void setServer(const QUrl& url, const QString& token);
    [[nodiscard]] QUrl server() const { return url_; }
    [[nodiscard]] bool streaming() const { return streaming_; }
    void setReconnectMs(int ms) { reconnect_.setInterval(ms); }

    // `path` with its leading slash; the answer runs only while `context` lives.
    void get(const QString& path, QObject* context, Answer answer);

signals:
    void changeReceived(const nlohmann::json& message);
    void streamingChanged(bool streaming);
    void streamError(const QString& error);

private:
    void open_stream();
    void set_streaming(bool streaming);

    QNetworkAccessManager network_;
    QWebSocket socket_;
    QTimer reconnect_;
    QUrl url_;
    QByteArray token_;
    int generation_ = 0;  // bumped on setServer: answers for an older server are ignored
    bool streaming_ = false;
};

}  // namespace meshscope::ui
