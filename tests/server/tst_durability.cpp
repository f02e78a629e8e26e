// Durability: kill -9 the collector in the middle of a burst, restart it on the same database, and find
// every event it acknowledged (acknowledged means committed, not merely received).
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <set>

#include "server_test_support.h"

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
                const QByteArray body =
                    QStringLiteral(R"({"job":"burst","rank":%1,"world_size":%2,"phase":"launch","status":"started"})")
                        .arg(r)
                        .arg(world)
                        .toUtf8();
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
};

QTEST_GUILESS_MAIN(TestDurability)
#include "tst_durability.moc"
