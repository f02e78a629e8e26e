// LiveClient: the Live page's connection to a collector (`meshscope serve`, or the one the desktop embeds):
// GET requests to its HTTP API and its WebSocket change stream (/api/v1/stream). The embedded demo and a
// remote collector go through this same class, so the page has one data path.
//
//   LiveClient client;
//   client.setServer(QUrl("http://127.0.0.1:7077"), "token");
//   client.getRows<std::vector<RankRow>>("ranks", "/api/v1/jobs/x/ranks", this, parse_ranks,
//       [](std::vector<RankRow> rows, const QString& error, std::uint64_t streamMark) { ... });
//   connect(&client, &LiveClient::changeReceived, ...);  // parsed stream messages, one per change
//
// The stream reconnects by itself (every `reconnectMs`) after it drops; GET answers arrive on the thread
// that owns the client. Answers to requests made for an older server are dropped.
//
// getRows parses the body and turns it into rows on a worker thread (QtConcurrent), so a 16,384-rank
// snapshot (3.4 MB of JSON) never stalls the GUI thread. Each request kind is a lane: at most one parse in
// flight, only the newest body waiting behind it, and answers delivered oldest to newest (an answer older
// than one already delivered is dropped, its callback never runs).
#pragma once

#include <QNetworkAccessManager>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QUrl>
#include <QWebSocket>

#include <any>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <type_traits>

#include <nlohmann/json.hpp>

namespace meshscope::ui {

class LiveClient : public QObject {
    Q_OBJECT

public:
    explicit LiveClient(QObject* parent = nullptr);
    ~LiveClient() override;

    // An empty url disconnects. Starts the change stream.
    void setServer(const QUrl& url, const QString& token);
    [[nodiscard]] QUrl server() const { return url_; }
    [[nodiscard]] bool streaming() const { return streaming_; }
    void setReconnectMs(int ms) { reconnect_.setInterval(ms); }

    // Runs on a worker thread: must only read `body` (no QObject, no captured GUI state).
    using Convert = std::function<std::any(const nlohmann::json& body)>;
    // rows is empty when error is set. streamMark: changesReceived() when the body arrived, so stream
    // messages after it (mark > streamMark) are newer than the snapshot.
    using RowsAnswer = std::function<void(std::any rows, const QString& error, std::uint64_t streamMark)>;

    // GET `path` (leading slash); JSON parse and `convert` run on a worker thread; `answer` runs on the
    // client's thread while `context` lives, in request order within `kind` (see the top of this file).
    // Errors: "not connected to a collector", "cannot reach http://...: Connection refused",
    // "GET /api/v1/jobs/x: 404 no job named \"x\"", "GET %1: the answer is not JSON".
    // Returns the request's number within its kind (1, 2, ...).
    std::uint64_t getConverted(const QString& kind, const QString& path, QObject* context, Convert convert,
                               RowsAnswer answer);

    // getConverted with a typed converter: a free function such as parse_ranks, so it captures nothing.
    template <typename Rows>
    std::uint64_t getRows(
        const QString& kind, const QString& path, QObject* context, Rows (*convert)(const nlohmann::json&),
        std::type_identity_t<std::function<void(Rows rows, const QString& error, std::uint64_t streamMark)>> answer) {
        return getConverted(
            kind, path, context, [convert](const nlohmann::json& body) { return std::any(convert(body)); },
            [answer = std::move(answer)](std::any rows, const QString& error, std::uint64_t mark) {
                auto* typed = std::any_cast<Rows>(&rows);
                answer(typed ? std::move(*typed) : Rows{}, error, mark);
            });
    }

    // Changes emitted as changeReceived so far (a {"type":"changes"} message counts each of its changes).
    [[nodiscard]] std::uint64_t changesReceived() const { return changes_received_; }
    // Parses started on worker threads so far (all kinds); for tests and benchmarks.
    [[nodiscard]] int parsesStarted() const { return parses_started_; }
    // Answers of `kind` that are done with here: delivered, or dropped (older than one delivered, replaced by
    // a newer body, for an older server or a context gone). What a test waits on instead of a sleep.
    [[nodiscard]] std::uint64_t answersSettled(const QString& kind) const;

signals:
    void changeReceived(const nlohmann::json& message);
    void streamingChanged(bool streaming);
    void streamError(const QString& error);

private:
    // A 200 answer's body waiting for (or in) its parse; owns everything the worker reads.
    struct Body {
        QString kind;
        std::uint64_t seq = 0;
        int generation = 0;
        QString path;
        QByteArray bytes;
        std::uint64_t stream_mark = 0;
        Convert convert;
        RowsAnswer answer;
        QPointer<QObject> context;
    };
    struct Lane {
        std::uint64_t requested = 0;  // numbers handed out
        std::uint64_t delivered = 0;  // newest answer delivered; older ones are dropped
        bool parsing = false;
        std::optional<Body> waiting;  // the newest body that arrived while parsing
        std::uint64_t settled = 0;    // answers done with (answersSettled)
    };

    void open_stream();
    void set_streaming(bool streaming);
    // GET url_ + path with the bearer token and a 10 s transfer timeout.
    [[nodiscard]] QNetworkReply* send_get(const QString& path);
    void on_body(Body body);
    void settle(const QString& kind) { ++lanes_[kind].settled; }
    void start_parse(Body body);
    // Runs `answer` unless a newer answer of `kind` was delivered already.
    void deliver(const QString& kind, std::uint64_t seq, const RowsAnswer& answer, std::any rows, const QString& error,
                 std::uint64_t stream_mark);

    QNetworkAccessManager network_;
    QWebSocket socket_;
    QTimer reconnect_;
    QUrl url_;
    QByteArray token_;
    int generation_ = 0;  // bumped on setServer: answers for an older server are ignored
    bool streaming_ = false;
    std::uint64_t changes_received_ = 0;
    int parses_started_ = 0;
    std::map<QString, Lane> lanes_;  // by kind; a map so references survive insertions
};

}  // namespace meshscope::ui
