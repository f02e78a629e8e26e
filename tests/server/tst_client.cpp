// The C++ client: per-rank batching and bounds of its queue (heartbeats go first, lifecycle events never),
// delivery to a real collector, refusals, what it does when an overloaded collector answers 503 +
// Retry-After (asserted from what a fake collector observed), and the promises a training process relies
// on when the collector is down: bounded memory, bounded shutdown, no exceptions.
#include <QDateTime>
#include <QElapsedTimer>
#include <QHash>
#include <QJsonArray>
#include <QLocale>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <functional>

#include "http/collector_service.h"
#include "meshscope/client/event_kind.h"
#include "meshscope/client/rank_queue.h"
#include "meshscope/client/reporter.h"
#include "server_test_support.h"
#include "test_events.h"

using meshscope::client::EventKind;
using meshscope::client::RankQueue;
using meshscope::client::Reporter;
using meshscope::client::ReporterOptions;

namespace {
// A "done" event of a 64-rank job; `seq` (a field the protocol ignores) lets a test see the order of arrival.
std::string event_json(const std::string& job, std::int64_t rank, const char* phase = "heartbeat", int seq = -1) {
    auto json =
        to_json(meshscope::test::event(job, rank, 64, meshscope::parse_phase(phase).value(), meshscope::Status::done));
    if (seq >= 0) json["seq"] = seq;
    return json.dump();
}

// A stand-in collector on QTcpServer (served by the test thread's event loop, so tests wait with
// test::eventually): reads HTTP/1.1 POSTs on kept-alive connections, answers each as `answer` decides,
// and records what it saw and when. Arrival is recorded when the event loop reads the request and
// "answered" before the answer is written, so a gap between them is never larger than the real one was.
class FakeCollector : public QObject {
public:
    struct Answer {
        int status = 200;
        QByteArray retry_after;  // sent as Retry-After when not empty
        bool hang_up = false;    // close the connection without a word
    };
    struct Request {
        QJsonArray events;
        int status = 0;  // 0: hung up
        qint64 arrived_ms = 0;
        qint64 answered_ms = 0;
        QDateTime arrived_utc;
    };
    using Decide = std::function<Answer(int index, const QJsonArray& events)>;

    explicit FakeCollector(Decide decide) : decide_(std::move(decide)) {
        clock_.start();
        server_.listen(QHostAddress::LocalHost, 0);
        connect(&server_, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = server_.nextPendingConnection()) {
                connect(socket, &QTcpSocket::readyRead, this, [this, socket] { read(socket); });
                connect(socket, &QTcpSocket::disconnected, this, [this, socket] {
                    buffers_.remove(socket);
                    socket->deleteLater();
                });
            }
        });
    }
    ~FakeCollector() override {
        for (QTcpSocket* socket : server_.findChildren<QTcpSocket*>()) socket->disconnect(this);  // buffers_ goes first
    }
    FakeCollector(const FakeCollector&) = delete;
    FakeCollector& operator=(const FakeCollector&) = delete;
    [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(server_.serverPort()); }

    // The "seq" of every event in acknowledged requests, in arrival order; and of every event seen at all.
    [[nodiscard]] QList<int> acknowledged(const char* phase = nullptr) const { return seqs(true, phase); }
    [[nodiscard]] QList<int> seen(const char* phase = nullptr) const { return seqs(false, phase); }

    std::vector<Request> requests;

private:
    [[nodiscard]] QList<int> seqs(bool acknowledged_only, const char* phase) const {
        QList<int> out;
        for (const Request& r : requests) {
            if (acknowledged_only && (r.status < 200 || r.status >= 300)) continue;
            for (const auto& e : r.events)
                if (!phase || e.toObject().value("phase").toString() == QLatin1String(phase))
                    out << e.toObject().value("seq").toInt(-1);
        }
        return out;
    }

    void read(QTcpSocket* socket) {
        QByteArray& buffer = buffers_[socket];
        buffer += socket->readAll();
        for (;;) {
            const auto message_end = test::http_message_end(buffer);
            if (message_end < 0) return;
            const auto end = buffer.indexOf("\r\n\r\n");
            const auto length = message_end - end - 4;
            Request request;
            request.arrived_ms = clock_.elapsed();
            request.arrived_utc = QDateTime::currentDateTimeUtc();
            request.events = QJsonDocument::fromJson(buffer.mid(end + 4, length)).array();
            buffer.remove(0, end + 4 + length);
            const Answer answer = decide_(static_cast<int>(requests.size()), request.events);
            request.status = answer.hang_up ? 0 : answer.status;
            request.answered_ms = clock_.elapsed();
            requests.push_back(request);
            if (answer.hang_up) {
                socket->abort();  // `buffer` is gone with it: return at once
                return;
            }
            const QByteArray payload = answer.status / 100 == 2 ? R"({"accepted":1})" : R"({"error":"collector busy"})";
            socket->write(test::http_response(answer.status, payload,
                                              answer.retry_after.isEmpty()
                                                  ? QList<QByteArray>{}
                                                  : QList<QByteArray>{"Retry-After: " + answer.retry_after}));
        }
    }

    Decide decide_;
    QTcpServer server_;
    QElapsedTimer clock_;
    QHash<QTcpSocket*, QByteArray> buffers_;
};

// An HTTP-date `seconds` from now, truncated to the second as HTTP-dates are, and that instant.
std::pair<QByteArray, QDateTime> http_date_in(int seconds) {
    QDateTime when = QDateTime::currentDateTimeUtc().addSecs(seconds);
    when.setTime(QTime(when.time().hour(), when.time().minute(), when.time().second()));
    return {QLocale::c().toString(when, "ddd, dd MMM yyyy hh:mm:ss").toLatin1() + " GMT", when};
}
}  // namespace

class TestClient : public QObject {
    Q_OBJECT
private slots:
    void queue_batches_one_rank_at_a_time_data() {
        QTest::addColumn<QString>("pushes");  // "rank:event ..." in order
        QTest::addColumn<int>("max_batch");
        QTest::addColumn<QString>("batches");  // "rank:events|rank:events"
        QTest::addRow("two ranks interleaved") << "0:a 1:b 0:c 1:d 2:e" << 10 << "0:ac|1:bd|2:e";
        QTest::addRow("batch limit splits a rank") << "0:a 0:b 0:c 1:d" << 2 << "0:ab|1:d|0:c";
        QTest::addRow("one rank") << "5:a 5:b" << 10 << "5:ab";
    }
    void queue_batches_one_rank_at_a_time() {
        QFETCH(QString, pushes);
        QFETCH(int, max_batch);
        QFETCH(QString, batches);
        RankQueue queue(100, 1 << 20);
        for (const QString& p : pushes.split(' ')) {
            const auto parts = p.split(':');
            QVERIFY(queue.push(parts[0].toLongLong(), parts[1].toStdString()));
        }
        QStringList got;
        while (auto batch = queue.take(static_cast<std::size_t>(max_batch), 1 << 20)) {
            QString text = QString::number(batch->rank) + ":";
            for (const auto& e : batch->events) text += QString::fromStdString(e);
            got << text;
            queue.complete(std::move(*batch), true);
        }
        QCOMPARE(got.join('|'), batches);
        QCOMPARE(queue.events(), std::size_t{0});
    }

    void queue_keeps_rank_order_across_retries() {
        RankQueue queue(100, 1 << 20);
        queue.push(3, "a");
        queue.push(3, "b");
        auto first = queue.take(1, 1 << 20);
        QVERIFY(first);
        QVERIFY(!queue.take(10, 1 << 20));  // rank 3 is in flight: nobody else may send its events
        queue.push(3, "c");
        QCOMPARE(queue.complete(std::move(*first), false), std::size_t{0});  // failed: "a" goes back in front
        auto retry = queue.take(10, 1 << 20);
        QVERIFY(retry);
        QCOMPARE(retry->events, (std::vector<std::string>{"a", "b", "c"}));
    }

    void queue_drops_the_heartbeats_of_a_failed_batch() {
        RankQueue queue(100, 1 << 20);
        queue.push(1, "launch");
        queue.push(1, "beat-1", EventKind::heartbeat);
        queue.push(1, "ready");
        auto batch = queue.take(10, 1 << 20);
        QVERIFY(batch);
        queue.push(1, "beat-2", EventKind::heartbeat);
        QCOMPARE(queue.complete(std::move(*batch), false), std::size_t{1});  // beat-1 is not retried
        QCOMPARE(queue.events(), std::size_t{3});
        auto retry = queue.take(10, 1 << 20);
        QVERIFY(retry);
        QCOMPARE(retry->events, (std::vector<std::string>{"launch", "ready", "beat-2"}));
    }

    // pushes: "rank:Kn" in order, K = L (lifecycle) or H (heartbeat); left: what take() then hands out,
    // "rank:events|rank:events" in order.
    void queue_evicts_heartbeats_first_data() {
        QTest::addColumn<int>("max_events");
        QTest::addColumn<int>("max_bytes");
        QTest::addColumn<QString>("pushes");
        QTest::addColumn<QString>("left");
        QTest::addColumn<int>("refused");
        QTest::addColumn<int>("evicted");
        QTest::addColumn<int>("over_bound");
        QTest::addRow("room: nothing dropped") << 10 << 1000 << "0:L1 0:H1 1:L2"
                                               << "0:L1H1|1:L2" << 0 << 0 << 0;
        QTest::addRow("full: a lifecycle event evicts the oldest heartbeat") << 3 << 1000 << "0:H1 1:L1 0:H2 1:L2"
                                                                             << "0:H2|1:L1L2" << 0 << 1 << 0;
        QTest::addRow("full: a heartbeat evicts the oldest heartbeat") << 2 << 1000 << "0:H1 1:L1 1:H2"
                                                                       << "1:L1H2" << 0 << 1 << 0;
        QTest::addRow("full of lifecycle events: a heartbeat is refused") << 2 << 1000 << "0:L1 1:L2 0:H1"
                                                                          << "0:L1|1:L2" << 1 << 0 << 0;
        QTest::addRow("full of lifecycle events: more are kept and counted") << 2 << 1000 << "0:L1 0:L2 1:L3 1:L4"
                                                                             << "0:L1L2|1:L3L4" << 0 << 0 << 2;
        QTest::addRow("by bytes: a lifecycle event evicts a heartbeat") << 100 << 4 << "0:H1 0:L1 0:L2"
                                                                        << "0:L1L2" << 0 << 1 << 0;
    }
    void queue_evicts_heartbeats_first() {
        QFETCH(int, max_events);
        QFETCH(int, max_bytes);
        QFETCH(QString, pushes);
        QFETCH(QString, left);
        QFETCH(int, refused);
        QFETCH(int, evicted);
        QFETCH(int, over_bound);
        RankQueue queue(static_cast<std::size_t>(max_events), static_cast<std::size_t>(max_bytes));
        int not_taken = 0;
        for (const QString& p : pushes.split(' ')) {
            const auto parts = p.split(':');
            const auto kind = parts[1].startsWith('H') ? EventKind::heartbeat : EventKind::lifecycle;
            not_taken += queue.push(parts[0].toLongLong(), parts[1].toStdString(), kind) ? 0 : 1;
        }
        QStringList got;
        while (auto batch = queue.take(100, 1 << 20)) {
            QString text = QString::number(batch->rank) + ":";
            for (const auto& e : batch->events) text += QString::fromStdString(e);
            got << text;
            queue.complete(std::move(*batch), true);
        }
        QCOMPARE(got.join('|'), left);
        QCOMPARE(not_taken, refused);
        QCOMPARE(queue.heartbeats_evicted(), static_cast<std::uint64_t>(evicted));
        QCOMPARE(queue.over_bound(), static_cast<std::uint64_t>(over_bound));
        QCOMPARE(queue.events(), std::size_t{0});
    }

    void event_kind_reads_the_top_level_phase_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<bool>("heartbeat");
        QTest::addRow("heartbeat") << R"({"job":"j","rank":1,"phase":"heartbeat","status":"done"})" << true;
        QTest::addRow("spaces") << "{ \"phase\" :\t\"heartbeat\" }" << true;
        QTest::addRow("ready") << R"({"phase":"ready","status":"done"})" << false;
        QTest::addRow("nested phase is not the event's")
            << R"({"reporter":{"phase":"heartbeat"},"phase":"ready"})" << false;
        // (escaped the plain way: moc misreads some raw strings, and then finds no test class)
        QTest::addRow("inside a string")
            << "{\"error\":{\"message\":\"\\\"phase\\\":\\\"heartbeat\\\"\"},\"phase\":\"error\"}" << false;
        QTest::addRow("another word") << R"({"phase":"heartbeats"})" << false;
        QTest::addRow("cut short") << "{\"phase\":\"heart" << false;
        QTest::addRow("not an object") << R"(["phase","heartbeat"])" << false;
        QTest::addRow("empty") << "" << false;
    }
    void event_kind_reads_the_top_level_phase() {
        QFETCH(QString, json);
        QFETCH(bool, heartbeat);
        QCOMPARE(meshscope::client::event_kind(json.toStdString()) == EventKind::heartbeat, heartbeat);
    }

    // Heartbeats alone keep the queue within its bounds: each new one evicts the oldest.
    void queue_is_bounded_data() {
        QTest::addColumn<int>("max_events");
        QTest::addColumn<int>("max_bytes");
        QTest::addColumn<int>("pushed");
        QTest::addColumn<int>("held");
        QTest::addRow("by count") << 10 << 1000000 << 25 << 10;
        QTest::addRow("by bytes") << 1000 << 35 << 25 << 5;  // 7 bytes each
    }
    void queue_is_bounded() {
        QFETCH(int, max_events);
        QFETCH(int, max_bytes);
        QFETCH(int, pushed);
        QFETCH(int, held);
        RankQueue queue(static_cast<std::size_t>(max_events), static_cast<std::size_t>(max_bytes));
        int ok = 0;
        for (int i = 0; i < pushed; ++i)
            ok += queue.push(i % 3, "event-" + std::to_string(i % 10), EventKind::heartbeat) ? 1 : 0;
        QCOMPARE(ok, pushed);
        QCOMPARE(queue.events(), static_cast<std::size_t>(held));
        QCOMPARE(queue.heartbeats_evicted(), static_cast<std::uint64_t>(pushed - held));
    }

    // Nothing listens: enqueue stays non-blocking, memory stays bounded, shutdown returns in time.
    void unreachable_collector_data() {
        QTest::addColumn<QString>("url");
        QTest::addRow("connection refused") << "http://127.0.0.1:1";
        QTest::addRow("black hole") << "blackhole";
        QTest::addRow("not a url") << "::::";
    }
    void unreachable_collector() {
        QFETCH(QString, url);
        QTcpServer black_hole;  // accepts connections (kernel backlog) and never answers
        if (url == "blackhole") {
            QVERIFY(black_hole.listen(QHostAddress::LocalHost, 0));
            black_hole.pauseAccepting();
            url = QStringLiteral("http://127.0.0.1:%1").arg(black_hole.serverPort());
        }
        ReporterOptions options;
        options.url = url.toStdString();
        options.max_queue_events = 100;
        options.connections = 2;
        // An answer would take an hour: if enqueue or shutdown waited for the network, the test would hang until
        // ctest's timeout fails it. No clock is read; what is under test is that nothing waits at all.
        options.request_timeout = std::chrono::hours(1);
        {
            Reporter reporter(options);
            for (int i = 0; i < 1000; ++i) reporter.enqueue(i % 16, event_json("j", i % 16));
            const auto stats = reporter.stats();
            QCOMPARE(stats.dropped + stats.enqueued, std::uint64_t{1000});
            QVERIFY(stats.pending <= 100);  // heartbeats: the oldest make room for the newest
            QCOMPARE(stats.acknowledged, std::uint64_t{0});
            reporter.shutdown(std::chrono::milliseconds(200));
            QVERIFY(!reporter.enqueue(0, event_json("j", 0)));  // closed: dropped, no throw
            const auto after = reporter.stats();
            QCOMPARE(after.abandoned + after.rejected + after.heartbeats_evicted + after.heartbeats_refused +
                         after.acknowledged,
                     after.enqueued);
            QCOMPARE(after.pending, std::size_t{0});
        }
    }

    // 503 / 429 + Retry-After, as seconds or an HTTP-date: the next request comes no earlier than asked,
    // and every event is stored exactly once.
    void retry_after_is_honoured_data() {
        QTest::addColumn<int>("status");
        QTest::addColumn<bool>("http_date");
        QTest::addRow("503, delta-seconds") << 503 << false;
        QTest::addRow("429, delta-seconds") << 429 << false;
        QTest::addRow("503, HTTP-date") << 503 << true;
    }
    void retry_after_is_honoured() {
        QFETCH(int, status);
        QFETCH(bool, http_date);
        std::vector<QDateTime> dates;  // of each refusal, when http_date
        FakeCollector collector([&](int index, const QJsonArray&) {
            if (index >= 2) return FakeCollector::Answer{};
            if (!http_date) return FakeCollector::Answer{status, "1", false};
            auto [text, when] = http_date_in(2);  // at least 1 s ahead once truncated
            dates.push_back(when);
            return FakeCollector::Answer{status, text, false};
        });
        ReporterOptions options;
        options.url = collector.url();
        Reporter reporter(options);
        const char* phases[] = {"launch", "process_group", "ready"};
        for (int seq = 0; seq < 3; ++seq) reporter.enqueue(0, event_json("ra", 0, phases[seq], seq));
        QVERIFY(test::eventually([&] { return collector.acknowledged().size() >= 3; }, 30000));
        QVERIFY(reporter.flush(std::chrono::seconds(10)));
        const auto& seen = collector.requests;
        QVERIFY(seen.size() >= 3);
        QCOMPARE((QList<int>{seen[0].status, seen[1].status, seen[2].status}), (QList<int>{status, status, 200}));
        for (std::size_t i = 0; i < 2; ++i) {
            if (http_date)  // not before the date (50 ms for the clocks' resolution)
                QVERIFY2(seen[i + 1].arrived_utc.msecsTo(dates[i]) <= 50,
                         qPrintable(seen[i + 1].arrived_utc.toString(Qt::ISODateWithMs) + " < " + dates[i].toString()));
            else
                QVERIFY2(seen[i + 1].arrived_ms - seen[i].answered_ms >= 1000,
                         qPrintable(QString::number(seen[i + 1].arrived_ms - seen[i].answered_ms)));
        }
        QCOMPARE(collector.acknowledged(), (QList<int>{0, 1, 2}));  // each once, in order
        const auto stats = reporter.stats();
        QCOMPARE(stats.acknowledged, std::uint64_t{3});
        QCOMPARE(stats.failures, std::uint64_t{2});
    }

    // A request refused (503 shedding) or not answered is retried for its lifecycle events only: its
    // heartbeat is dropped, the next one follows.
    void undelivered_heartbeats_are_not_retried_data() {
        QTest::addColumn<int>("status");  // 0: hang up without an answer
        QTest::addColumn<QByteArray>("retry_after");
        QTest::addRow("503 shedding, Retry-After 1") << 503 << QByteArray("1");
        QTest::addRow("503 too many connections, Retry-After 2") << 503 << QByteArray("2");
        QTest::addRow("500 without Retry-After") << 500 << QByteArray();
        QTest::addRow("no answer") << 0 << QByteArray();
    }
    void undelivered_heartbeats_are_not_retried() {
        QFETCH(int, status);
        QFETCH(QByteArray, retry_after);
        FakeCollector collector([&](int index, const QJsonArray&) {
            if (index >= 2) return FakeCollector::Answer{};
            return FakeCollector::Answer{status, retry_after, status == 0};
        });
        ReporterOptions options;
        options.url = collector.url();
        options.initial_backoff = std::chrono::milliseconds(100);
        Reporter reporter(options);
        reporter.enqueue(0, event_json("hb", 0, "heartbeat", 0));  // rank 0 first: its request is refused
        reporter.enqueue(1, event_json("hb", 1, "launch", 1));     // then rank 1's, once refused, then stored
        QVERIFY(test::eventually([&] { return !collector.acknowledged("launch").isEmpty(); }, 30000));
        QVERIFY(reporter.flush(std::chrono::seconds(10)));
        QCOMPARE(collector.seen("heartbeat"), QList<int>{0});  // sent once, never again
        QCOMPARE(collector.acknowledged("heartbeat"), QList<int>{});
        QCOMPARE(collector.seen("launch"), (QList<int>{1, 1}));
        QCOMPARE(collector.acknowledged("launch"), QList<int>{1});
        const auto stats = reporter.stats();
        QCOMPARE(stats.heartbeats_refused, std::uint64_t{1});
        QCOMPARE(stats.acknowledged, std::uint64_t{1});
        QCOMPARE(stats.pending, std::size_t{0});
    }

    // No Retry-After: the waits double from initial_backoff, each at least half its base (U(0.5, 1.5)).
    void backoff_is_exponential_with_jitter() {
        FakeCollector collector([](int index, const QJsonArray&) {
            return index < 4 ? FakeCollector::Answer{500, {}, false} : FakeCollector::Answer{};
        });
        ReporterOptions options;
        options.url = collector.url();
        options.initial_backoff = std::chrono::milliseconds(100);
        options.max_backoff = std::chrono::milliseconds(400);
        Reporter reporter(options);
        reporter.enqueue(0, event_json("bo", 0, "launch", 0));
        QVERIFY(test::eventually([&] { return !collector.acknowledged().isEmpty(); }, 30000));
        const auto& seen = collector.requests;
        QCOMPARE(seen.size(), std::size_t{5});
        const qint64 least[] = {50, 100, 200, 200};  // bases 100, 200, 400, 400 (capped), halved
        for (std::size_t i = 0; i < 4; ++i)
            QVERIFY2(seen[i + 1].arrived_ms - seen[i].answered_ms >= least[i],
                     qPrintable(QString("wait %1: %2 ms").arg(i).arg(seen[i + 1].arrived_ms - seen[i].answered_ms)));
        QCOMPARE(collector.acknowledged(), QList<int>{0});
    }

    // Against a real collector: everything acknowledged, several events per request.
    void delivers_batches_to_a_collector() {
        QTemporaryDir dir;
        meshscope::server::CollectorOptions collector;
        collector.database = dir.filePath("h.db").toStdString();
        meshscope::server::HttpOptions http;
        http.port = 0;
        auto service = meshscope::server::CollectorService::start(collector, http);
        QVERIFY(service);
        ReporterOptions options;
        options.url = (*service)->url();
        Reporter reporter(options);
        for (int i = 0; i < 400; ++i)
            reporter.enqueue(i % 20, event_json("deliver", i % 20, i < 20 ? "launch" : "heartbeat"));
        QVERIFY(reporter.flush(std::chrono::seconds(20)));
        const auto stats = reporter.stats();
        QCOMPARE(stats.acknowledged, std::uint64_t{400});
        QVERIFY2(stats.requests < 400, "pending events of a rank travel together");
        QCOMPARE((*service)->collector().stats().events_stored, std::int64_t{400});
    }

    // A refused event is counted and never retried; the others still arrive.
    void refused_events_are_not_retried() {
        QTemporaryDir dir;
        meshscope::server::CollectorOptions collector;
        collector.database = dir.filePath("h.db").toStdString();
        meshscope::server::HttpOptions http;
        http.port = 0;
        auto service = meshscope::server::CollectorService::start(collector, http);
        QVERIFY(service);
        ReporterOptions options;
        options.url = (*service)->url();
        Reporter reporter(options);
        reporter.enqueue(1, R"({"job":"r","rank":1,"world_size":4,"phase":"launch"})");  // no status
        QVERIFY(reporter.flush(std::chrono::seconds(10)));
        reporter.enqueue(2, event_json("r", 2));
        QVERIFY(reporter.flush(std::chrono::seconds(10)));
        const auto stats = reporter.stats();
        QCOMPARE(stats.rejected, std::uint64_t{1});
        QCOMPARE(stats.acknowledged, std::uint64_t{1});
        QVERIFY2(QString::fromStdString(stats.last_error).contains("HTTP 400") &&
                     QString::fromStdString(stats.last_error).contains("status"),
                 stats.last_error.c_str());
    }

    // protocol "otlp": OTLP/HTTP JSON logs to <url>/v1/logs, one log record per event, the same queue and batching.
    // Each row: the events of 20 ranks (lifecycle, then heartbeats), and what the collector holds after.
    void delivers_otlp_to_a_collector_data() {
        QTest::addColumn<QString>("protocol");  // ReporterOptions::protocol
        QTest::addColumn<QByteArray>("env");    // MESHSCOPE_PROTOCOL
        QTest::newRow("option") << "otlp" << QByteArray();
        QTest::newRow("MESHSCOPE_PROTOCOL") << "" << QByteArray("OTLP");
    }
    void delivers_otlp_to_a_collector() {
        QFETCH(QString, protocol);
        QFETCH(QByteArray, env);
        QTemporaryDir dir;
        meshscope::server::CollectorOptions collector;
        collector.database = dir.filePath("h.db").toStdString();
        meshscope::server::HttpOptions http;
        http.port = 0;
        auto service = meshscope::server::CollectorService::start(collector, http);
        QVERIFY(service);
        if (!env.isEmpty()) qputenv("MESHSCOPE_PROTOCOL", env);
        ReporterOptions options;
        options.url = (*service)->url();
        options.protocol = protocol.toStdString();
        Reporter reporter(options);
        qunsetenv("MESHSCOPE_PROTOCOL");
        for (int i = 0; i < 400; ++i) {
            auto event = nlohmann::json::parse(event_json("otlp", i % 20, i < 20 ? "launch" : "heartbeat"));
            event["ts"] = 1764451200.25 + i;
            event["host"] = "node-" + std::to_string(i % 20 / 8);
            event["groups"] = {{"ep", {i % 20, (i % 20) ^ 1}}};
            reporter.enqueue(i % 20, event.dump());
        }
        QVERIFY(reporter.flush(std::chrono::seconds(20)));
        const auto stats = reporter.stats();
        QCOMPARE(stats.acknowledged, std::uint64_t{400});
        QCOMPARE(stats.rejected, std::uint64_t{0});
        QVERIFY2(stats.requests < 400, "pending events of a rank travel together");
        QCOMPARE((*service)->collector().stats().events_stored, std::int64_t{400});
        const auto rank = (*service)->collector().call([](const meshscope::Monitor& m) { return m.rank("otlp", 13); });
        QVERIFY(rank);
        QCOMPARE(rank->host.value_or(""), std::string("node-1"));
        QCOMPARE(rank->timings[meshscope::index_of(meshscope::Phase::launch)].done.value_or(0), 1764451200.25 + 13);
    }

    // OTLP's partial success: the refused record is counted as rejected (never retried), the other stored.
    void otlp_partial_success_counts_the_refused_records() {
        QTemporaryDir dir;
        meshscope::server::CollectorOptions collector;
        collector.database = dir.filePath("h.db").toStdString();
        meshscope::server::HttpOptions http;
        http.port = 0;
        auto service = meshscope::server::CollectorService::start(collector, http);
        QVERIFY(service);
        ReporterOptions options;
        options.url = (*service)->url();
        options.protocol = "otlp";
        Reporter reporter(options);
        reporter.enqueue(1, event_json("p", 1, "launch"));
        reporter.enqueue(1, R"({"job":"p","rank":1,"world_size":64,"phase":"ready"})");  // no status
        QVERIFY(reporter.flush(std::chrono::seconds(10)));
        const auto stats = reporter.stats();
        QCOMPARE(stats.acknowledged, std::uint64_t{1});
        QCOMPARE(stats.rejected, std::uint64_t{1});
        // One request (a partial success) or two (the second all refused: 400), as the sender took them.
        QVERIFY2(
            stats.last_error == R"(partial success: 1 rejected: event 1: field "status" is required)" ||
                stats.last_error == "HTTP 400: {\"code\":3,\"message\":\"event 0: field \\\"status\\\" is required\"}",
            stats.last_error.c_str());
        QCOMPARE((*service)->collector().stats().events_stored, std::int64_t{1});
    }

    void an_unknown_protocol_sends_nothing() {
        ReporterOptions options;
        options.url = "http://127.0.0.1:9";
        options.protocol = "grpc";
        Reporter reporter(options);
        QVERIFY(!reporter.enqueue(0, event_json("x", 0, "launch")));
        const auto stats = reporter.stats();
        QCOMPARE(stats.dropped, std::uint64_t{1});
        QCOMPARE(stats.last_error,
                 std::string(R"(protocol "grpc" is neither meshscope nor otlp (MESHSCOPE_PROTOCOL): nothing is sent)"));
    }
};

QTEST_GUILESS_MAIN(TestClient)
#include "tst_client.moc"
