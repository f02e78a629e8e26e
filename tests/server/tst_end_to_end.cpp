// `meshscope serve` + `meshscope simulate` as a user runs them: for every fault kind the collector
// reports exactly the injected findings (kind and ranks), with no faults it reports none; export writes
// what replay reads back, and a replayed job shows the same findings.
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <set>

#include "server_test_support.h"
#include "store/event_store.h"

namespace {
using Ranks = std::set<qint64>;
using ByKind = std::map<QString, Ranks>;

ByKind injected_of(const QJsonObject& summary) {
    ByKind out;
    const auto injected = summary.value("injected").toObject();
    for (auto it = injected.begin(); it != injected.end(); ++it)
        for (const auto r : it.value().toArray()) out[it.key()].insert(r.toInteger());
    return out;
}

ByKind findings_of(QNetworkAccessManager& nam, const QString& url, const QString& job) {
    ByKind out;
    const auto reply = test::http(nam, "GET", url + "/api/v1/jobs/" + job + "/findings");
    for (const auto f : reply.json().value("findings").toArray()) {
        const auto finding = f.toObject();
        Ranks& ranks = out[finding.value("kind").toString()];
        for (const auto r : finding.value("ranks").toArray()) ranks.insert(r.toInteger());
    }
    return out;
}

QString describe(const ByKind& kinds) {
    QStringList parts;
    for (const auto& [kind, ranks] : kinds) {
        QStringList r;
        for (auto x : ranks) r << QString::number(x);
        parts << kind + "=[" + r.join(',') + "]";
    }
    return parts.join(' ');
}

const QStringList serve_options = {"--missing-after", "1", "--stale-after", "2"};
}  // namespace

class TestEndToEnd : public QObject {
    Q_OBJECT
private slots:
    void reports_exactly_the_injected_faults_data() {
        QTest::addColumn<QString>("faults");
        QTest::addColumn<QStringList>("layout");
        QTest::addColumn<bool>("settle");  // also check again after missing/stale had their time
        const QStringList layout = {"--dp", "8", "--cp", "2", "--ep", "4", "--gpus-per-node", "4"};
        QTest::addRow("no faults") << "" << layout << true;
        for (const char* kind : {"topology_mismatch", "group_disagreement", "missing_rank", "duplicate_rank",
                                 "straggler", "stale_rank", "rank_error", "reinit_mismatch"})
            QTest::addRow("%s", kind) << QString(kind) + "=1" << layout << false;
        QTest::addRow("every kind at once")
            << "topology_mismatch=1,group_disagreement=1,missing_rank=1,duplicate_rank=1,straggler=1,stale_rank=1,"
               "rank_error=1,reinit_mismatch=1"
            << QStringList{"--dp", "16", "--cp", "2", "--ep", "8"} << true;
        QTest::addRow("no expert mesh") << "rank_error=1,straggler=1"
                                        << QStringList{"--dp", "16", "--cp", "1", "--ep", "1"} << false;
    }
    void reports_exactly_the_injected_faults() {
        QFETCH(QString, faults);
        QFETCH(QStringList, layout);
        QFETCH(bool, settle);
        QTemporaryDir dir;
        test::ServeProcess serve(serve_options + QStringList{"--db", dir.filePath("h.db")});
        QVERIFY2(serve.port(), serve.errors().constData());
        QStringList args = QStringList{"simulate", "--target", serve.url(), "--seed", "7", "--job", "e2e"} + layout;
        if (!faults.isEmpty()) args << "--faults" << faults;
        const auto run = test::run_meshscope(args);
        QVERIFY2(run.exit_code == 0, run.err.constData());
        const auto summary = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(summary.value("job").toString(), QString("e2e"));
        QCOMPARE(summary.value("acknowledged").toInteger(), summary.value("events").toInteger());
        const ByKind injected = injected_of(summary);
        QCOMPARE(static_cast<int>(injected.size()), faults.isEmpty() ? 0 : static_cast<int>(faults.count(',') + 1));

        QNetworkAccessManager nam;
        ByKind found;
        const bool same = test::eventually(
            [&] {
                found = findings_of(nam, serve.url(), "e2e");
                return found == injected;
            },
            15000, 200);
        QVERIFY2(same, qPrintable("injected " + describe(injected) + " / found " + describe(found)));
        if (!settle) return;
        // Stays exact once the time-based findings (missing after 1 s, stale after 2 s) had their chance.
        QTest::qWait(2500);
        found = findings_of(nam, serve.url(), "e2e");
        QVERIFY2(found == injected, qPrintable("injected " + describe(injected) + " / later found " + describe(found)));
    }

    void export_then_replay() {
        QTemporaryDir dir;
        const QString db = dir.filePath("a.db");
        QString events_json;
        qint64 events = 0;
        ByKind original;
        {
            test::ServeProcess serve(QStringList{"--db", db});
            QVERIFY(serve.port());
            const auto run = test::run_meshscope({"simulate", "--target", serve.url(), "--dp", "16", "--ep", "4",
                                                  "--job", "rec", "--faults", "topology_mismatch=1,straggler=1"});
            QVERIFY2(run.exit_code == 0, run.err.constData());
            events = QJsonDocument::fromJson(run.out).object().value("events").toInteger();
            QNetworkAccessManager nam;
            QVERIFY(test::eventually([&] {
                original = findings_of(nam, serve.url(), "rec");
                return original.size() == 2;
            }));
        }
        const QString jsonl = dir.filePath("rec.jsonl");
        const auto exported = test::run_meshscope({"export", "--db", db, "--job", "rec", "-o", jsonl});
        QVERIFY2(exported.exit_code == 0, exported.err.constData());
        QFile file(jsonl);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll().count('\n'), events);

        const auto missing = test::run_meshscope({"export", "--db", db, "--job", "nope"});
        QCOMPARE(missing.exit_code, 2);
        QVERIFY(missing.err.contains("no job named \"nope\""));

        for (const bool from_file : {true, false}) {
            test::ServeProcess target(QStringList{"--db", dir.filePath(from_file ? "b.db" : "c.db")});
            QStringList args = {"replay", "--speed", "0", "--target", target.url()};
            args += from_file ? QStringList{"--input", jsonl} : QStringList{"--db", db, "--job", "rec"};
            const auto replayed = test::run_meshscope(args);
            QVERIFY2(replayed.exit_code == 0, replayed.err.constData());
            QCOMPARE(QJsonDocument::fromJson(replayed.out).object().value("acknowledged").toInteger(), events);
            QNetworkAccessManager nam;
            ByKind found;
            QVERIFY2(test::eventually([&] {
                         found = findings_of(nam, target.url(), "rec");
                         return found == original;
                     }),
                     qPrintable(describe(original) + " / " + describe(found)));
        }
    }

    // The history keeps one heartbeat summary per rank; export writes it after the events as the rank's
    // last heartbeat with how many it stands for, and replay accepts the file.
    void export_summarizes_heartbeats() {
        QTemporaryDir dir;
        const QString db = dir.filePath("h.db");
        {
            auto store = meshscope::server::EventStore::open(db.toStdString());
            QVERIFY(store);
            auto event = [](const char* phase, double ts, bool heartbeat) {
                const QJsonObject json{{"job", "hb"},    {"rank", 0},        {"world_size", 1},
                                       {"phase", phase}, {"status", "done"}, {"ts", ts}};
                return meshscope::server::StoredEvent{
                    "hb", 0, 100 + ts, QJsonDocument(json).toJson(QJsonDocument::Compact).toStdString(), heartbeat};
            };
            QVERIFY(!(*store)->append(std::vector{event("launch", 1, false), event("heartbeat", 2, true)}));
            QVERIFY(!(*store)->append(std::vector{event("heartbeat", 7, true), event("heartbeat", 12, true)}));
        }
        const QString jsonl = dir.filePath("hb.jsonl");
        const auto exported = test::run_meshscope({"export", "--db", db, "--job", "hb", "-o", jsonl});
        QVERIFY2(exported.exit_code == 0, exported.err.constData());
        QVERIFY2(exported.err.contains("2 events of \"hb\" (3 heartbeats summarized in one line per rank)"),
                 exported.err);
        QFile file(jsonl);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto lines = file.readAll().trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        const auto launch = QJsonDocument::fromJson(lines[0]).object();
        QCOMPARE(launch.value("phase").toString(), "launch");
        QCOMPARE(launch.value("received").toDouble(), 101.0);
        QVERIFY(!launch.contains("heartbeats"));
        const auto heartbeat = QJsonDocument::fromJson(lines[1]).object();
        QCOMPARE(heartbeat.value("phase").toString(), "heartbeat");
        QCOMPARE(heartbeat.value("ts").toDouble(), 12.0);
        QCOMPARE(heartbeat.value("received").toDouble(), 112.0);
        QCOMPARE(heartbeat.value("first_received").toDouble(), 102.0);
        QCOMPARE(heartbeat.value("heartbeats").toInt(), 3);

        test::ServeProcess target(QStringList{"--db", dir.filePath("t.db")});
        const auto replayed =
            test::run_meshscope({"replay", "--speed", "0", "--target", target.url(), "--input", jsonl});
        QVERIFY2(replayed.exit_code == 0, replayed.err.constData());
        QCOMPARE(QJsonDocument::fromJson(replayed.out).object().value("acknowledged").toInteger(), 2);
    }

    void usage_errors_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::addRow("unknown fault") << QStringList{"simulate", "--target", "http://127.0.0.1:1", "--dp", "8",
                                                      "--faults", "oops=1"}
                                       << "--faults: unknown finding kind 'oops'";
        QTest::addRow("bad ep") << QStringList{"simulate", "--target", "http://127.0.0.1:1", "--dp", "8", "--ep", "3"}
                                << "dp_size must be divisible by ep_size, got 8 % 3 != 0.";
        QTest::addRow("too many faults") << QStringList{"simulate", "--target", "http://127.0.0.1:1", "--dp",
                                                        "4",        "--faults", "rank_error=3"}
                                         << "--faults: 3 faulty ranks need a world of at least 7, got 4";
        QTest::addRow("public address without token") << QStringList{"serve", "--listen", "0.0.0.0:0"}
                                                      << "is not a loopback address: give --token or --token-file";
        QTest::addRow("bad listen") << QStringList{"serve", "--listen", "nowhere"}
                                    << "--listen must be HOST:PORT, got 'nowhere'";
    }
    void usage_errors() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const auto run = test::run_meshscope(args, 20000);
        QCOMPARE(run.exit_code, 2);
        QVERIFY2(QString::fromUtf8(run.err).contains(message), run.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestEndToEnd)
#include "tst_end_to_end.moc"
