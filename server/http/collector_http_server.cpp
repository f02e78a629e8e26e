#include "collector_http_server.h"

#include <QHttpServerRequest>
#include <QTcpSocket>
#include <QUrlQuery>
#include <QWebSocket>

#include <deque>
#include <nlohmann/json.hpp>

#include "collector/collector.h"

namespace meshscope::server {

namespace {
constexpr auto api_events = "/api/v1/events";
constexpr auto api_stream = "/api/v1/stream";

QByteArray json_bytes(const nlohmann::json& value) {
    return QByteArray::fromStdString(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

QByteArray error_json(const std::string& message) {
    return QByteArray::fromStdString(error_body(message));
}

bool wants_close(const QHttpServerRequest& request) {
    return request.value("connection").toLower() == "close";
}
}  // namespace

// Results come back from the store and monitor threads; this posts them to the server's thread, and
// after the server is gone, nowhere.
struct CollectorHttpServer::Sink {
    std::mutex mutex;
    QObject* target = nullptr;
    std::deque<std::string> stream;  // change-feed messages waiting for the server thread
    bool stream_flush_posted = false;
    std::atomic<int> subscribers{0};
    std::size_t dropped = 0;

    void post(std::function<void()> fn) {
        std::lock_guard lock(mutex);
        if (target) QMetaObject::invokeMethod(target, std::move(fn), Qt::QueuedConnection);
    }
};

CollectorHttpServer::CollectorHttpServer(Collector& collector, HttpOptions options, QObject* parent)
    : QAbstractHttpServer(parent),
      collector_(collector),
      options_(std::move(options)),
      sink_(std::make_shared<Sink>()) {
    sink_->target = this;
    connect(this, &QAbstractHttpServer::newWebSocketConnection, this, &CollectorHttpServer::accept_websockets);
    // The change feed: serialize on the monitor thread (only while someone listens), flush here.
    subscription_ = collector_.subscribe([sink = sink_, this](const Change& change) {
        if (sink->subscribers.load(std::memory_order_relaxed) == 0) return;
        std::string message = to_json(change).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        std::lock_guard lock(sink->mutex);
        if (!sink->target) return;
        if (sink->stream.size() >= 200000) {  // the server thread is far behind: keep memory bounded
            sink->stream.pop_front();
            ++sink->dropped;
        }
        sink->stream.push_back(std::move(message));
        if (!sink->stream_flush_posted) {
            sink->stream_flush_posted = true;
            QMetaObject::invokeMethod(
                this, [this] { flush_stream(); }, Qt::QueuedConnection);
        }
    });
}

CollectorHttpServer::~CollectorHttpServer() {
    collector_.unsubscribe(subscription_);
    std::lock_guard lock(sink_->mutex);
    sink_->target = nullptr;
}

quint16 CollectorHttpServer::start() {
    tcp_ = new GuardedTcpServer(options_.limits, this);
    if (!tcp_->listen(options_.address, options_.port)) {
        error_ = tcp_->errorString();
        delete tcp_;
        tcp_ = nullptr;
        return 0;
    }
    bind(tcp_);
    return tcp_->serverPort();
}

bool CollectorHttpServer::authorized(const QHttpServerRequest& request) const {
    if (options_.token.isEmpty()) return true;
    const QByteArray header = request.value("authorization");
    if (header == "Bearer " + options_.token) return true;
    // Browsers cannot set headers on a WebSocket: the stream also takes ?token=.
    return request.url().path() == api_stream &&
           request.query().queryItemValue("token", QUrl::FullyDecoded).toUtf8() == options_.token;
}

bool CollectorHttpServer::handleRequest(const QHttpServerRequest& request, QTcpSocket* socket) {
    const bool close = wants_close(request);
    if (!authorized(request)) {
        write_http_response(socket, 401, error_json("missing or wrong bearer token"), "application/json",
                            {{"WWW-Authenticate", "Bearer"}}, close);
        return true;
    }
    const QString path = request.url().path(QUrl::FullyEncoded);
    const auto method = request.method();
    const bool get = method == QHttpServerRequest::Method::Get;
    if (path == api_events) {
        if (method != QHttpServerRequest::Method::Post) {
            write_http_response(socket, 405, error_json("use POST"), "application/json", {{"Allow", "POST"}}, close);
            return true;
        }
        answer_events(request, socket);
        return true;
    }
    if (!get) {
        write_http_response(socket, 405, error_json("use GET"), "application/json", {{"Allow", "GET"}}, close);
        return true;
    }
    if (path == api_stream) {
        if (request.value("upgrade").toLower() != "websocket") {
            write_http_response(socket, 400, error_json("/api/v1/stream is a WebSocket: send an upgrade request"),
                                "application/json", {}, close);
            return true;
        }
        release_connection_guard(socket);  // writing nothing lets QAbstractHttpServer upgrade it
        return true;
    }
    if (path == "/metrics") {
        write_http_response(socket, 200, QByteArray::fromStdString(collector_.metrics_text()),
                            "text/plain; version=0.0.4", {}, close);
        return true;
    }
    if (path == "/api/v1/health") {
        write_http_response(socket, 200, R"({"status":"ok"})", "application/json", {}, close);
        return true;
    }
    if (path == "/api/v1/jobs") {
        const auto jobs = collector_.call([](const Monitor& m) { return m.jobs_json(); });
        write_http_response(socket, 200, json_bytes(jobs), "application/json", {}, close);
        return true;
    }
    if (path.startsWith("/api/v1/jobs/")) {
        QStringList parts = path.mid(13).split('/');
        for (QString& part : parts) part = QUrl::fromPercentEncoding(part.toUtf8());
        answer_job(parts, socket, close);
        return true;
    }
    return false;  // missingHandler: 404
}

void CollectorHttpServer::missingHandler(const QHttpServerRequest& request, QTcpSocket* socket) {
    write_http_response(socket, 404, error_json("no such endpoint: " + request.url().path().toStdString()),
                        "application/json", {}, wants_close(request));
}

void CollectorHttpServer::answer_job(const QStringList& parts, QTcpSocket* socket, bool close) {
    const std::string job = parts.value(0).toStdString();
    const QString what = parts.size() >= 2 ? parts[1] : QString();
    if (parts.size() > 2 || (parts.size() == 2 && what != "ranks" && what != "findings") || job.empty()) {
        write_http_response(socket, 404, error_json("no such endpoint"), "application/json", {}, close);
        return;
    }
    const auto answer = collector_.call([&](const Monitor& m) -> std::optional<nlohmann::json> {
        if (what == "ranks") return m.ranks_json(job);
        if (what == "findings") return m.findings_json(job);
        return m.job_json(job);
    });
    if (!answer) {
        write_http_response(socket, 404, error_json("no job named \"" + job + "\""), "application/json", {}, close);
        return;
    }
    write_http_response(socket, 200, json_bytes(*answer), "application/json", {}, close);
}

void CollectorHttpServer::answer_events(const QHttpServerRequest& request, QTcpSocket* socket) {
    const QByteArray body = request.body();
    if (body.size() > options_.limits.max_body_bytes) {  // the guard normally refuses it earlier
        write_http_response(
            socket, 413,
            error_json("request body larger than " + std::to_string(options_.limits.max_body_bytes) + " bytes"),
            "application/json", {}, true);
        return;
    }
    const bool close = wants_close(request);
    QPointer<QTcpSocket> target(socket);
    collector_.submit(std::string_view(body.constData(), static_cast<std::size_t>(body.size())),
                      [sink = sink_, target, close](SubmitResult result) {
                          sink->post([target, close, result = std::move(result)] {
                              if (!target) return;  // the client left before its answer
                              write_http_response(target, result.status, QByteArray::fromStdString(result.body),
                                                  "application/json", {}, close);
                              if (close) target->disconnectFromHost();
                          });
                      });
}

void CollectorHttpServer::accept_websockets() {
    while (hasPendingWebSocketConnections()) {
        std::unique_ptr<QWebSocket> socket = nextPendingWebSocketConnection();
        if (!socket) continue;
        QWebSocket* raw = socket.get();
        connect(raw, &QWebSocket::disconnected, this, [this, raw] {
            // Deleted later: this runs inside the socket's own signal.
            for (auto& s : subscribers_)
                if (s.get() == raw) s.release()->deleteLater();
            std::erase_if(subscribers_, [](const auto& s) { return !s; });
            sink_->subscribers = static_cast<int>(subscribers_.size());
        });
        raw->sendTextMessage(R"({"type":"hello","protocol":"meshscope.stream/1"})");
        subscribers_.push_back(std::move(socket));
        sink_->subscribers = static_cast<int>(subscribers_.size());
    }
}

void CollectorHttpServer::flush_stream() {
    std::deque<std::string> messages;
    {
        std::lock_guard lock(sink_->mutex);
        messages.swap(sink_->stream);
        sink_->stream_flush_posted = false;
    }
    std::vector<QWebSocket*> too_slow;
    for (const auto& subscriber : subscribers_) {
        for (const std::string& m : messages) subscriber->sendTextMessage(QString::fromStdString(m));
        if (subscriber->bytesToWrite() > options_.max_stream_backlog_bytes) too_slow.push_back(subscriber.get());
    }
    for (QWebSocket* s : too_slow) s->abort();  // its disconnected() removes it
}

}  // namespace meshscope::server
