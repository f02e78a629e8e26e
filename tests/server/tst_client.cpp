// The C++ client: per-rank batching and bounds of its queue, delivery to a real collector, refusals,
// and the promises a training process relies on when the collector is down: bounded memory, bounded
// shutdown, no exceptions.
#include <QElapsedTimer>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include "http/collector_service.h"
#include "meshscope/client/rank_queue.h"
#include "meshscope/client/reporter.h"
#include "server_test_support.h"

using meshscope::client::RankQueue;
using meshscope::client::Reporter;
using meshscope::client::ReporterOptions;

namespace {
std::string event_json(const std::string& job, std::int64_t rank, const char* phase = "heartbeat") {
    return R"({"job":")" + job + R"(","rank":)" + std::to_string(rank) + R"(,"world_size":64,"phase":")" + phase +
           R"(","status":"done"})";
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
        queue.complete(std::move(*first), false);  // failed: "a" goes back in front
        auto retry = queue.take(10, 1 << 20);
        QVERIFY(retry);
        QCOMPARE(retry->events, (std::vector<std::string>{"a", "b", "c"}));
    }

    void queue_is_bounded_data() {
        QTest::addColumn<int>("max_events");
        QTest::addColumn<int>("max_bytes");
        QTest::addColumn<int>("pushed");
        QTest::addColumn<int>("accepted");
        QTest::addRow("by count") << 10 << 1000000 << 25 << 10;
        QTest::addRow("by bytes") << 1000 << 35 << 25 << 5;  // 7 bytes each
    }
    void queue_is_bounded() {
        QFETCH(int, max_events);
        QFETCH(int, max_bytes);
        QFETCH(int, pushed);
        QFETCH(int, accepted);
        RankQueue queue(static_cast<std::size_t>(max_events), static_cast<std::size_t>(max_bytes));
        int ok = 0;
        for (int i = 0; i < pushed; ++i) ok += queue.push(i % 3, "event-" + std::to_string(i % 10)) ? 1 : 0;
        QCOMPARE(ok, accepted);
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
        options.request_timeout = std::chrono::seconds(30);  // shutdown must not wait for it
        QElapsedTimer clock;
        clock.start();
        {
            Reporter reporter(options);
            QElapsedTimer enqueue_clock;
            enqueue_clock.start();
            int accepted = 0;
            for (int i = 0; i < 1000; ++i) accepted += reporter.enqueue(i % 16, event_json("j", i % 16)) ? 1 : 0;
            QVERIFY2(enqueue_clock.elapsed() < 500, "enqueue must not wait for the network");
            QVERIFY(accepted <= 100);
            QTest::qWait(300);
            const auto stats = reporter.stats();
            QCOMPARE(stats.dropped + stats.enqueued, std::uint64_t{1000});
            QVERIFY(stats.pending <= 100);
            QCOMPARE(stats.acknowledged, std::uint64_t{0});
            QElapsedTimer shutdown_clock;
            shutdown_clock.start();
            reporter.shutdown(std::chrono::milliseconds(200));
            QVERIFY2(shutdown_clock.elapsed() < 1500, qPrintable(QString::number(shutdown_clock.elapsed())));
            QVERIFY(!reporter.enqueue(0, event_json("j", 0)));  // closed: dropped, no throw
            QCOMPARE(reporter.stats().abandoned + reporter.stats().rejected, stats.enqueued);
        }
        QVERIFY(clock.elapsed() < 3000);
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
};

QTEST_GUILESS_MAIN(TestClient)
#include "tst_client.moc"
