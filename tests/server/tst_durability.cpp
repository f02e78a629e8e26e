// Durability: kill -9 the collector in the middle of a burst, restart it on the same database, and find
// every event it acknowledged (acknowledged means committed, not merely received). Heartbeats are kept as
// one summary per rank (docs/collector.md, "History"): an acknowledged heartbeat survives as the rank's
// last-seen time.
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <chrono>
#include <functional>
#include <set>

#include "server_test_support.h"
#include "test_events.h"

namespace {
QByteArray event_body(int rank, int world, const char* phase) {
    return QByteArray::fromStdString(meshscope::test::line(meshscope::test::event(
        "burst", rank, world, meshscope::parse_phase(phase).value(), meshscope::Status::started)));
}

// One request per rank; on_answer(rank, status) as each is answered.
void post_each_rank(QNetworkAccessManager& nam, const QString& url, int world, const char* phase, QObject* context,
                    const std::function<void(int, int)>& on_answer) {
    for (int r = 0; r < world; ++r) {
        QNetworkRequest request(QUrl(url + "/api/v1/events"));
        request.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
        QNetworkReply* reply = nam.post(request, event_body(r, world, phase));
        QObject::connect(reply, &QNetworkReply::finished, context, [on_answer, reply, r] {
            on_answer(r, reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt());
            reply->deleteLater();
        });
    }
}

double collector_clock() {  // as Collector::now()
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}
}  // namespace

class TestDurability : public QObject {
    Q_OBJECT
private slots:
    void acknowledged_events_survive_kill_9_data() {
        QTest::addColumn<int>("kill_after_acknowledged");
        QTest::addRow("early in the burst") << 20;
        QTest::addRow("mid burst") << 1000;
    }
    void acknowledged_events_survive_kill_9() {
        QFETCH(int, kill_after_acknowledged);
        QTemporaryDir dir;
        const QString db = dir.filePath("h.db");
        constexpr int world = 4096;
        std::set<int> acknowledged;
        int answered = 0;
        {
            test::ServeProcess serve({"--db", db});
            QVERIFY(serve.port());
            QNetworkAccessManager nam;
            // One event per request, each rank once: which ranks were acknowledged is exact.
            QList<QNetworkReply*> replies;
            for (int r = 0; r < world; ++r) {
                QNetworkRequest request(QUrl(serve.url() + "/api/v1/events"));
                request.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
                const QByteArray body = event_body(r, world, "launch");
                QNetworkReply* reply = nam.post(request, body);
                connect(reply, &QNetworkReply::finished, this, [&, reply, r] {
                    ++answered;
                    if (reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 200)
                        acknowledged.insert(r);
                    reply->deleteLater();
                });
            }
            QVERIFY(test::eventually([&] { return static_cast<int>(acknowledged.size()) >= kill_after_acknowledged; },
                                     30000, 1));
            serve.kill();
            QVERIFY(test::eventually([&] { return answered == world; }, 30000, 50));
        }
        QVERIFY2(!acknowledged.empty(), "the burst should have been partly acknowledged before the kill");
        QVERIFY2(acknowledged.size() < static_cast<std::size_t>(world), "the kill should have cut the burst");

        test::ServeProcess restarted({"--db", db});
        QVERIFY(restarted.port());
        QVERIFY(restarted.rebuilt() >= static_cast<qint64>(acknowledged.size()));
        QNetworkAccessManager nam;
        const auto ranks =
            test::http(nam, "GET", restarted.url() + "/api/v1/jobs/burst/ranks").json().value("ranks").toArray();
        QCOMPARE(ranks.size(), world);
        std::set<int> seen;
        for (const auto r : ranks)
            if (r.toObject().value("state").toString() != "pending") seen.insert(r.toObject().value("rank").toInt());
        for (const int r : acknowledged)
            QVERIFY2(seen.count(r), qPrintable(QString("acknowledged rank %1 lost").arg(r)));
        qInfo("acknowledged %zu of %d before kill -9; %zu found after restart", acknowledged.size(), world,
              seen.size());
    }

    // Every rank launches (all acknowledged), then heartbeats once, and the collector is killed during the
    // heartbeat burst: after the restart every acknowledged heartbeat shows as its rank's last-seen time,
    // which only a heartbeat can have set (it is later than every launch was acknowledged).
    void acknowledged_heartbeats_survive_kill_9_data() {
        QTest::addColumn<int>("kill_after_acknowledged");
        QTest::addRow("early in the burst") << 20;
        QTest::addRow("mid burst") << 1000;
    }
    void acknowledged_heartbeats_survive_kill_9() {
        QFETCH(int, kill_after_acknowledged);
        QTemporaryDir dir;
        const QString db = dir.filePath("h.db");
        constexpr int world = 4096;
        std::set<int> acknowledged;
        double heartbeats_from = 0;
        {
            test::ServeProcess serve({"--db", db});
            QVERIFY(serve.port());
            QNetworkAccessManager nam;
            int launched = 0;
            post_each_rank(nam, serve.url(), world, "launch", this,
                           [&](int, int status) { launched += status == 200; });
            QVERIFY(test::eventually([&] { return launched == world; }, 60000, 10));
            heartbeats_from = collector_clock();
            int answered = 0;
            post_each_rank(nam, serve.url(), world, "heartbeat", this, [&](int r, int status) {
                ++answered;
                if (status == 200) acknowledged.insert(r);
            });
            QVERIFY(test::eventually([&] { return static_cast<int>(acknowledged.size()) >= kill_after_acknowledged; },
                                     30000, 1));
            serve.kill();
            QVERIFY(test::eventually([&] { return answered == world; }, 30000, 50));
        }
        QVERIFY2(acknowledged.size() < static_cast<std::size_t>(world), "the kill should have cut the burst");

        test::ServeProcess restarted({"--db", db});
        QVERIFY(restarted.port());
        QNetworkAccessManager nam;
        const auto ranks =
            test::http(nam, "GET", restarted.url() + "/api/v1/jobs/burst/ranks").json().value("ranks").toArray();
        QCOMPARE(ranks.size(), world);
        std::size_t heartbeats_found = 0;
        for (const auto value : ranks) {
            const QJsonObject rank = value.toObject();
            QVERIFY(rank.value("state").toString() != "pending");  // every launch was acknowledged
            const bool heartbeat_seen = rank.value("last_seen").toDouble() >= heartbeats_from;
            heartbeats_found += heartbeat_seen;
            if (acknowledged.count(rank.value("rank").toInt()))
                QVERIFY2(heartbeat_seen,
                         qPrintable(QString("acknowledged heartbeat of rank %1 lost").arg(rank.value("rank").toInt())));
        }
        qInfo("acknowledged %zu of %d heartbeats before kill -9; %zu found after restart", acknowledged.size(), world,
              heartbeats_found);
    }
};

QTEST_GUILESS_MAIN(TestDurability)
#include "tst_durability.moc"
