#include "live_client.h"

#include <QFutureWatcher>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QtConcurrent/QtConcurrentRun>

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
        if (!message.is_object()) return;
        // The collector batches its changes: {"type":"changes","changes":[...]} at most every 100 ms
        // (docs/live-at-scale.md). Each change is emitted on its own, as single messages are.
        const auto type = message.find("type");
        const auto changes = message.find("changes");
        if (type != message.end() && *type == "changes" && changes != message.end() && changes->is_array()) {
            for (const auto& change : *changes) {
                if (!change.is_object()) continue;
                ++changes_received_;
                emit changeReceived(change);
            }
            return;
        }
        ++changes_received_;
        emit changeReceived(message);
    });
}

LiveClient::~LiveClient() {
    url_.clear();  // no reconnect while closing
    socket_.abort();
}

void LiveClient::setServer(const QUrl& url, const QString& token) {
    ++generation_;
    for (auto& [kind, lane] : lanes_) {  // bodies of the old server; parses in flight drop theirs
        if (lane.waiting) ++lane.settled;
        lane.waiting.reset();
    }
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

QNetworkReply* LiveClient::send_get(const QString& path) {
    QUrl target = url_;
    target.setPath(url_.path().chopped(url_.path().endsWith('/') ? 1 : 0) + path);
    QNetworkRequest request(target);
    if (!token_.isEmpty()) request.setRawHeader("Authorization", "Bearer " + token_);
    request.setTransferTimeout(10000);
    return network_.get(request);
}

namespace {
// What the worker hands back: rows, or "not JSON". Built and read by value only.
struct Parsed {
    std::any rows;
    bool not_json = false;
};
}  // namespace

std::uint64_t LiveClient::getConverted(const QString& kind, const QString& path, QObject* context, Convert convert,
                                       RowsAnswer answer) {
    const std::uint64_t seq = ++lanes_[kind].requested;
    if (url_.isEmpty()) {
        settle(kind);  // counted first: an answer may end this client
        deliver(kind, seq, answer, {}, QStringLiteral("not connected to a collector"), changes_received_);
        return seq;
    }
    QNetworkReply* reply = send_get(path);
    const int generation = generation_;
    const QString base = url_.toString();
    QPointer<QObject> guard(context);
    connect(reply, &QNetworkReply::finished, this,
            [this, reply, generation, guard, kind, seq, path, base, convert = std::move(convert),
             answer = std::move(answer)]() mutable {
                reply->deleteLater();
                if (generation != generation_ || !guard) {
                    settle(kind);
                    return;
                }
                const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
                QByteArray body = reply->readAll();
                if (status == 0) {
                    settle(kind);
                    deliver(kind, seq, answer, {},
                            QStringLiteral("cannot reach %1: %2").arg(base, reply->errorString()), changes_received_);
                    return;
                }
                if (status != 200) {
                    settle(kind);
                    deliver(kind, seq, answer, {},
                            QStringLiteral("GET %1: %2 %3").arg(path).arg(status).arg(error_from(body)),
                            changes_received_);
                    return;
                }
                on_body(Body{kind, seq, generation, path, std::move(body), changes_received_, std::move(convert),
                             std::move(answer), guard});
            });
    return seq;
}

void LiveClient::on_body(Body body) {
    Lane& lane = lanes_[body.kind];
    if (body.seq <= lane.delivered) {  // a newer answer is on the page already
        ++lane.settled;
        return;
    }
    if (!lane.parsing) {
        start_parse(std::move(body));
        return;
    }
    // Bounded: one parse in flight, one body waiting (the newest); the other one is dropped.
    if (lane.waiting) ++lane.settled;
    if (!lane.waiting || lane.waiting->seq < body.seq) lane.waiting = std::move(body);
}

void LiveClient::start_parse(Body body) {
    lanes_[body.kind].parsing = true;
    ++parses_started_;
    // The worker gets its own copies (QByteArray is shared read-only; the converter is a pure function):
    // nothing of the client, which may be gone before the parse ends.
    auto work = [bytes = body.bytes, convert = body.convert]() -> Parsed {
        auto parsed = nlohmann::json::parse(bytes.constData(), bytes.constData() + bytes.size(), nullptr, false);
        if (parsed.is_discarded()) return Parsed{{}, true};
        return Parsed{convert(parsed), false};
    };
    // Parented to the client: destroyed with it, and with it goes the delivery of a parse still running.
    auto* watcher = new QFutureWatcher<Parsed>(this);
    connect(watcher, &QFutureWatcher<Parsed>::finished, this, [this, watcher, body = std::move(body)]() mutable {
        watcher->deleteLater();
        Parsed parsed = watcher->future().takeResult();  // moved out: no copy of the rows on this thread
        Lane& lane = lanes_[body.kind];
        lane.parsing = false;
        const bool delivers = body.generation == generation_ && body.context;
        // Start the next parse before this answer runs, so the worker parses while the GUI thread applies. A
        // waiting body older than this one would be dropped once this one is delivered: skip it.
        if (lane.waiting) {
            Body next = std::move(*lane.waiting);
            lane.waiting.reset();
            if (next.generation == generation_ && next.seq > lane.delivered && (!delivers || next.seq > body.seq))
                start_parse(std::move(next));
            else
                ++lane.settled;
        }
        settle(body.kind);
        if (!delivers) return;
        if (parsed.not_json)
            deliver(body.kind, body.seq, body.answer, {},
                    QStringLiteral("GET %1: the answer is not JSON").arg(body.path), body.stream_mark);
        else
            deliver(body.kind, body.seq, body.answer, std::move(parsed.rows), QString(), body.stream_mark);
    });
    watcher->setFuture(QtConcurrent::run(std::move(work)));
}

std::uint64_t LiveClient::answersSettled(const QString& kind) const {
    const auto lane = lanes_.find(kind);
    return lane == lanes_.end() ? 0 : lane->second.settled;
}

void LiveClient::deliver(const QString& kind, std::uint64_t seq, const RowsAnswer& answer, std::any rows,
                         const QString& error, std::uint64_t stream_mark) {
    Lane& lane = lanes_[kind];
    if (seq <= lane.delivered) return;
    lane.delivered = seq;
    if (lane.waiting && lane.waiting->seq <= seq) {
        lane.waiting.reset();
        ++lane.settled;
    }
    const RowsAnswer run = answer;  // the answer may start requests that touch lanes_; keep our own copy
    run(std::move(rows), error, stream_mark);
}

}  // namespace meshscope::ui
