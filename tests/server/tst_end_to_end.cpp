// `meshscope serve` + `meshscope simulate` as a user runs them: for every fault kind the collector
// reports exactly the injected findings (kind and ranks), with no faults it reports none; export writes
// what replay reads back, and a replayed job shows the same findings.
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "server_test_support.h"
#include "store/event_store.h"
#include "test_events.h"

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

// The collector's findings by kind; nullopt unless it answered 200 with a "findings" array (an empty map
// must mean "no findings", never "no answer").
std::optional<ByKind> findings_of(QNetworkAccessManager& nam, const QString& url, const QString& job) {
    ByKind out;
    const auto reply = test::http(nam, "GET", url + "/api/v1/jobs/" + job + "/findings");
    if (reply.status != 200 || !reply.json().value("findings").isArray()) return std::nullopt;
    for (const auto f : reply.json().value("findings").toArray()) {
        const auto finding = f.toObject();
        Ranks& ranks = out[finding.value("kind").toString()];
        for (const auto r : finding.value("ranks").toArray()) ranks.insert(r.toInteger());
    }
    return out;
}

QString describe(const std::optional<ByKind>& maybe) {
    if (!maybe) return "(no answer)";
    const ByKind& kinds = *maybe;
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
    // Each row names the fault kinds by hand (one faulty rank each) and the world the layout makes. The
    // simulator's printed `injected` map must hold exactly those kinds, one distinct rank each inside the
    // world, and the collector must report exactly that map: each kind with exactly the injected ranks.
    void reports_exactly_the_injected_faults_data() {
        QTest::addColumn<QStringList>("kinds");
        QTest::addColumn<QStringList>("layout");
        QTest::addColumn<qint64>("world");
        QTest::addColumn<bool>("settle");  // also check again after missing/stale had their time
        const QStringList layout = {"--dp", "8", "--cp", "2", "--ep", "4", "--gpus-per-node", "4"};
        QTest::addRow("no faults") << QStringList() << layout << qint64{16} << true;
        // Every kind the simulator injects (slow_group and communicator_not_formed come from meshscope-probe's
        // measurements: tests/probe). creation_order_mismatch needs cp > 1 and ep > 1, which both layouts have.
        const QStringList simulated = {"topology_mismatch", "group_disagreement", "missing_rank",
                                       "duplicate_rank",    "straggler",          "stale_rank",
                                       "rank_error",        "reinit_mismatch",    "creation_order_mismatch"};
        for (const QString& kind : simulated)
            QTest::addRow("%s", qPrintable(kind)) << QStringList{kind} << layout << qint64{16} << false;
        QTest::addRow("every kind at once")
            << simulated << QStringList{"--dp", "16", "--cp", "2", "--ep", "8"} << qint64{32} << true;
        QTest::addRow("no expert mesh") << QStringList{"rank_error", "straggler"}
                                        << QStringList{"--dp", "16", "--cp", "1", "--ep", "1"} << qint64{16} << false;
    }
    void reports_exactly_the_injected_faults() {
        QFETCH(QStringList, kinds);
        QFETCH(QStringList, layout);
        QFETCH(qint64, world);
        QFETCH(bool, settle);
        QTemporaryDir dir;
        test::ServeProcess serve(serve_options + QStringList{"--db", dir.filePath("h.db")});
        QVERIFY2(serve.port(), serve.errors().constData());
        QStringList args = QStringList{"simulate", "--target", serve.url(), "--seed", "7", "--job", "e2e"} + layout;
        if (!kinds.isEmpty()) args << "--faults" << kinds.join("=1,") + "=1";
        const auto run = test::run_meshscope(args);
        QVERIFY2(run.exit_code == 0, run.err.constData());
        const auto summary = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(summary.value("job").toString(), QString("e2e"));
        QCOMPARE(summary.value("world_size").toInteger(), world);
        QCOMPARE(summary.value("acknowledged").toInteger(), summary.value("events").toInteger());

        // What the simulator says it injected: exactly the row's kinds, one distinct rank each.
        const ByKind injected = injected_of(summary);
        QStringList injected_kinds;
        Ranks faulty;
        for (const auto& [kind, ranks] : injected) {
            injected_kinds << kind;
            QVERIFY2(ranks.size() == 1, qPrintable(kind + ": " + describe(injected)));
            const qint64 rank = *ranks.begin();
            QVERIFY2(rank >= 0 && rank < world, qPrintable(describe(injected)));
            QVERIFY2(faulty.insert(rank).second, qPrintable("a rank with two faults: " + describe(injected)));
        }
        QStringList expected_kinds = kinds;
        expected_kinds.sort();
        QCOMPARE(injected_kinds, expected_kinds);  // std::map: already sorted

        // What the collector finds: the same kinds with exactly the same ranks, nothing else.
        QNetworkAccessManager nam;
        std::optional<ByKind> found;
        const bool same = test::eventually(
            [&] {
                found = findings_of(nam, serve.url(), "e2e");
                return found == injected;
            },
            15000, 200);
        QVERIFY2(same, qPrintable("injected " + describe(injected) + " / found " + describe(found)));
        if (!settle) return;
        // Stays exact once the time-based findings (missing after 1 s, stale after 2 s) had their chance. An
        // absence can only be watched for a while: every answer over the next 3 s (stale-after plus a margin
        // for the 0.25 s monitor tick) must still be exactly the injected map.
        QElapsedTimer watched;
        watched.start();
        while (watched.elapsed() < 3000) {
            found = findings_of(nam, serve.url(), "e2e");
            QVERIFY2(found == injected,
                     qPrintable("injected " + describe(injected) + " / later found " + describe(found)));
            QTest::qWait(100);
        }
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
            const auto summary = QJsonDocument::fromJson(run.out).object();
            events = summary.value("events").toInteger();
            original = injected_of(summary);
            QCOMPARE(static_cast<int>(original.size()), 2);  // the two kinds asked for, one rank each
            QCOMPARE(static_cast<int>(original["topology_mismatch"].size()), 1);
            QCOMPARE(static_cast<int>(original["straggler"].size()), 1);
            QNetworkAccessManager nam;
            std::optional<ByKind> live;
            QVERIFY2(test::eventually([&] {
                         live = findings_of(nam, serve.url(), "rec");
                         return live == original;
                     }),
                     qPrintable(describe(original) + " / " + describe(live)));
        }
        const QString jsonl = dir.filePath("rec.jsonl");
        const auto exported = test::run_meshscope({"export", "--db", db, "--job", "rec", "-o", jsonl});
        QVERIFY2(exported.exit_code == 0, exported.err.constData());
        QFile file(jsonl);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll().count('\n'), events + 2);  // the events between the export's first and end lines

        for (const bool from_file : {true, false}) {
            test::ServeProcess target(QStringList{"--db", dir.filePath(from_file ? "b.db" : "c.db")});
            QStringList args = {"replay", "--speed", "0", "--target", target.url()};
            args += from_file ? QStringList{"--input", jsonl} : QStringList{"--db", db, "--job", "rec"};
            const auto replayed = test::run_meshscope(args);
            QVERIFY2(replayed.exit_code == 0, replayed.err.constData());
            QCOMPARE(QJsonDocument::fromJson(replayed.out).object().value("acknowledged").toInteger(), events);
            QNetworkAccessManager nam;
            std::optional<ByKind> found;
            QVERIFY2(test::eventually([&] {
                         found = findings_of(nam, target.url(), "rec");
                         return found == original;
                     }),
                     qPrintable(describe(original) + " / " + describe(found)));
        }
    }

    // A job replayed into the collector that recorded it: every lifecycle event is a copy there, answered as stored
    // and not stored again, and replay says so (heartbeats have no identity and are stored again). Under another
    // name (--as-job) nothing is a copy.
    void replay_into_the_job_it_came_from() {
        QTemporaryDir dir;
        const QString db = dir.filePath("a.db");
        test::ServeProcess serve(QStringList{"--db", db});
        QVERIFY(serve.port());
        const auto run = test::run_meshscope({"simulate", "--target", serve.url(), "--dp", "4", "--job", "again"});
        QVERIFY2(run.exit_code == 0, run.err.constData());
        const QString jsonl = dir.filePath("again.jsonl");
        const auto exported = test::run_meshscope({"export", "--db", db, "--job", "again", "-o", jsonl});
        QVERIFY2(exported.exit_code == 0, exported.err.constData());
        QFile file(jsonl);
        QVERIFY(file.open(QIODevice::ReadOnly));
        qint64 lifecycle = 0, sent = 0;
        for (const QByteArray& line : file.readAll().split('\n')) {
            const QJsonObject e = QJsonDocument::fromJson(line).object();
            if (!e.contains("phase")) continue;  // the export's first and end lines
            ++sent;
            lifecycle += e.value("phase").toString() != "heartbeat";
        }
        QVERIFY(lifecycle > 0 && lifecycle < sent);

        const auto same = test::run_meshscope({"replay", "--speed", "0", "--target", serve.url(), "--input", jsonl});
        QVERIFY2(same.exit_code == 0, same.err.constData());
        const QJsonObject summary = QJsonDocument::fromJson(same.out).object();
        QCOMPARE(summary.value("acknowledged").toInteger(), sent);
        QCOMPARE(summary.value("duplicates").toInteger(), lifecycle);
        QCOMPARE(QString::fromUtf8(same.err), QString("meshscope replay: the target already had %1 of the %2 events of "
                                                      "\"again\" and did not store them again; --as-job NAME replays "
                                                      "them as a new job\n")
                                                  .arg(lifecycle)
                                                  .arg(sent));

        const auto renamed = test::run_meshscope(
            {"replay", "--speed", "0", "--target", serve.url(), "--input", jsonl, "--as-job", "again2"});
        QVERIFY2(renamed.exit_code == 0, renamed.err.constData());
        QCOMPARE(QJsonDocument::fromJson(renamed.out).object().value("duplicates").toInteger(), 0);
        QCOMPARE(renamed.err, QByteArray());
    }

    // The history keeps one heartbeat summary per rank; export writes it after the events as the rank's
    // last heartbeat with how many it stands for, and replay accepts the file.
    void export_summarizes_heartbeats() {
        QTemporaryDir dir;
        const QString db = dir.filePath("h.db");
        {
            auto store = meshscope::server::EventStore::open(db.toStdString());
            QVERIFY(store);
            auto event = [](meshscope::Phase phase, double ts, bool heartbeat) {
                auto e = meshscope::test::event("hb", 0, 1, phase, meshscope::Status::done);
                e.ts = ts;
                return meshscope::server::StoredEvent{"hb", 0, 100 + ts, meshscope::test::line(e), heartbeat};
            };
            using meshscope::Phase;
            QVERIFY(!(*store)->append(std::vector{event(Phase::launch, 1, false), event(Phase::heartbeat, 2, true)}));
            QVERIFY(
                !(*store)->append(std::vector{event(Phase::heartbeat, 7, true), event(Phase::heartbeat, 12, true)}));
        }
        const QString jsonl = dir.filePath("hb.jsonl");
        const auto exported = test::run_meshscope({"export", "--db", db, "--job", "hb", "-o", jsonl});
        QVERIFY2(exported.exit_code == 0, exported.err.constData());
        QVERIFY2(exported.err.contains("2 events of \"hb\" (3 heartbeats summarized in one line per rank)"),
                 exported.err);
        QFile file(jsonl);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto lines = file.readAll().trimmed().split('\n');
        QCOMPARE(lines.size(), 4);
        QCOMPARE(QJsonDocument::fromJson(lines[0]).object(),
                 QJsonDocument::fromJson(R"({"meshscope_export": "meshscope.export/1", "job": "hb"})").object());
        QCOMPARE(QJsonDocument::fromJson(lines[3]).object(),
                 QJsonDocument::fromJson(R"({"meshscope_export_end": {"events": 2}})").object());
        const auto launch = QJsonDocument::fromJson(lines[1]).object();
        QCOMPARE(launch.value("phase").toString(), "launch");
        QCOMPARE(launch.value("received").toDouble(), 101.0);
        QVERIFY(!launch.contains("heartbeats"));
        const auto heartbeat = QJsonDocument::fromJson(lines[2]).object();
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
                                       << "meshscope simulate: --faults: unknown finding kind 'oops'\n";
        QTest::addRow("bad ep") << QStringList{"simulate", "--target", "http://127.0.0.1:1", "--dp", "8", "--ep", "3"}
                                << "meshscope simulate: dp_size must be divisible by ep_size, got 8 % 3 != 0.\n";
        QTest::addRow("too many faults")
            << QStringList{"simulate", "--target", "http://127.0.0.1:1", "--dp", "4", "--faults", "rank_error=3"}
            << "meshscope simulate: --faults: 3 faulty ranks need a world of at least 7, got 4\n";
        QTest::addRow("creation order without a 4-dim expert mesh")
            << QStringList{"simulate", "--target", "http://127.0.0.1:1",       "--dp", "8", "--ep",
                           "2",        "--faults", "creation_order_mismatch=1"}
            << "meshscope simulate: --faults: creation_order_mismatch=1 needs ranks whose groups PyTorch 2.8 and 2.9 "
               "create in different orders (an expert mesh with cp > 1 and ep > 1), apart from the other faults; "
               "(dp, cp, ep) = (8, 1, 2) has room for 0\n";
        QTest::addRow("public address without token")
            << QStringList{"serve", "--listen", "0.0.0.0:0"}
            << "meshscope serve: 0.0.0.0:0 is not a loopback address: give --token or --token-file so that only your "
               "ranks can report\n";
        QTest::addRow("bad listen") << QStringList{"serve", "--listen", "nowhere"}
                                    << "meshscope serve: --listen must be HOST:PORT, got 'nowhere'\n";
    }
    void usage_errors() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const auto run = test::run_meshscope(args, 20000);
        QCOMPARE(run.exit_code, 2);
        QCOMPARE(QString::fromUtf8(run.err), message);
    }

    // Inputs the commands check but no other test feeds them: a --db that is not SQLite, a JSONL file with a
    // bad line, a file that is not there, a job that is not in the history. Each gets its exact message and
    // exit status, and replay sends nothing (the target collector stays empty). %DIR% stands for the row's
    // temporary directory, which holds: not-sqlite.db (text), history.db (job "rec" only), bad-json.jsonl
    // (line 2 is not JSON), bad-event.jsonl (line 3 has no rank).
    void bad_inputs_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exit_code");
        QTest::addColumn<QString>("message");
        QTest::addColumn<bool>("replays");  // run against a live collector that must stay empty
        QTest::addRow("serve: --db is not SQLite")
            << QStringList{"serve", "--listen", "127.0.0.1:0", "--db", "%DIR%/not-sqlite.db"} << 1
            << "meshscope serve: cannot open history database %DIR%/not-sqlite.db: file is not a database\n"
            << false;
        QTest::addRow("export: --db is not SQLite")
            << QStringList{"export", "--db", "%DIR%/not-sqlite.db", "--job", "rec"} << 1
            << "meshscope export: cannot open history database %DIR%/not-sqlite.db: file is not a database\n"
            << false;
        QTest::addRow("export: no such database") << QStringList{"export", "--db", "%DIR%/absent.db", "--job", "rec"}
                                                  << 2 << "meshscope export: no history database at %DIR%/absent.db\n"
                                                  << false;
        QTest::addRow("export: unknown job") << QStringList{"export", "--db", "%DIR%/history.db", "--job", "nope"} << 2
                                             << "meshscope export: no job named \"nope\" in %DIR%/history.db\n"
                                             << false;
        QTest::addRow("replay: --db is not SQLite")
            << QStringList{"replay", "--speed", "0", "--db", "%DIR%/not-sqlite.db", "--job", "rec"} << 2
            << "meshscope replay: cannot open history database %DIR%/not-sqlite.db: file is not a database\n"
            << true;
        QTest::addRow("replay: unknown job")
            << QStringList{"replay", "--speed", "0", "--db", "%DIR%/history.db", "--job", "nope"} << 2
            << "meshscope replay: no job named \"nope\" in %DIR%/history.db\n"
            << true;
        QTest::addRow("replay: a line that is not JSON")
            << QStringList{"replay", "--speed", "0", "--input", "%DIR%/bad-json.jsonl"} << 2
            << "meshscope replay: %DIR%/bad-json.jsonl:2: not valid JSON\n"
            << true;
        QTest::addRow("replay: a line that is not an event")
            << QStringList{"replay", "--speed", "0", "--input", "%DIR%/bad-event.jsonl"} << 2
            << "meshscope replay: %DIR%/bad-event.jsonl:3: field \"rank\" is required\n"
            << true;
        // An export is framed by its first and end lines: one that lost its end was cut short (docs/collector.md).
        QTest::addRow("replay: an export cut short")
            << QStringList{"replay", "--speed", "0", "--input", "%DIR%/cut.jsonl"} << 2
            << "meshscope replay: %DIR%/cut.jsonl: the export ends after line 2 without its end line: it was cut "
               "short\n"
            << true;
        QTest::addRow("replay: an export's end that does not match")
            << QStringList{"replay", "--speed", "0", "--input", "%DIR%/miscount.jsonl"} << 2
            << "meshscope replay: %DIR%/miscount.jsonl:3: the export's end line does not match its events (1 before "
               "it)\n"
            << true;
        QTest::addRow("replay: a line after the export's end")
            << QStringList{"replay", "--speed", "0", "--input", "%DIR%/after-end.jsonl"} << 2
            << "meshscope replay: %DIR%/after-end.jsonl:4: a line after the export's end line\n"
            << true;
        QTest::addRow("replay: a line nested too deep")
            << QStringList{"replay", "--speed", "0", "--input", "%DIR%/deep.jsonl"} << 2
            << "meshscope replay: %DIR%/deep.jsonl:2: invalid JSON: nested deeper than 64 levels\n"
            << true;
        QTest::addRow("replay: missing file") << QStringList{"replay", "--speed", "0", "--input", "%DIR%/absent.jsonl"}
                                              << 2 << "meshscope replay: cannot read %DIR%/absent.jsonl\n"
                                              << true;
    }
    void bad_inputs() {
        QFETCH(QStringList, args);
        QFETCH(int, exit_code);
        QFETCH(QString, message);
        QFETCH(bool, replays);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto write = [&](const QString& name, const QByteArray& bytes) {
            QFile file(dir.filePath(name));
            return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
        };
        QVERIFY(write("not-sqlite.db", QByteArray("this is a text file, not an SQLite database\n").repeated(100)));
        const QByteArray event =
            R"({"job":"rec","rank":0,"world_size":2,"phase":"launch","status":"started","received":100})";
        QVERIFY(write("bad-json.jsonl", event + "\n{\"job\":\"rec\",\n" + event + "\n"));
        QVERIFY(write("bad-event.jsonl", event + "\n\n" + R"({"job":"rec","world_size":2,"phase":"launch"})" + "\n"));
        const QByteArray header = R"({"meshscope_export":"meshscope.export/1","job":"rec"})";
        QVERIFY(write("cut.jsonl", header + "\n" + event + "\n"));
        QVERIFY(
            write("miscount.jsonl", header + "\n" + event + "\n" + R"({"meshscope_export_end":{"events":2}})" + "\n"));
        QVERIFY(write("after-end.jsonl",
                      header + "\n" + event + "\n" + R"({"meshscope_export_end":{"events":1}})" + "\n" + event + "\n"));
        QVERIFY(write("deep.jsonl", event + "\n" + QByteArray(65, '[') + QByteArray(65, ']') + "\n"));
        {
            auto store = meshscope::server::EventStore::open(dir.filePath("history.db").toStdString());
            QVERIFY(store);
            QVERIFY(!(*store)->append(std::vector{meshscope::server::StoredEvent{"rec", 0, 100, event.toStdString()}}));
        }
        for (QString& arg : args) arg.replace("%DIR%", dir.path());
        message.replace("%DIR%", dir.path());

        std::unique_ptr<test::ServeProcess> target;
        if (replays) {
            target = std::make_unique<test::ServeProcess>(QStringList{"--db", dir.filePath("target.db")});
            QVERIFY(target->port());
            args << "--target" << target->url();
        }
        const auto run = test::run_meshscope(args, 20000);
        QCOMPARE(QString::fromUtf8(run.err), message);
        QCOMPARE(run.exit_code, exit_code);
        QCOMPARE(run.out, QByteArray());
        if (target) {
            QNetworkAccessManager nam;
            const auto jobs = test::http(nam, "GET", target->url() + "/api/v1/jobs");
            QCOMPARE(jobs.status, 200);
            QCOMPARE(jobs.json().value("jobs").toArray().size(), 0);
            const auto metrics = test::http(nam, "GET", target->url() + "/metrics");
            QVERIFY2(metrics.body.contains("\nmeshscope_events_ingested_total 0\n"), metrics.body.constData());
        }
    }

    // With the collector shedding every heartbeat-only body (--heartbeat-shed-at 0: 503 at any load), a
    // healthy held run still succeeds: every lifecycle event is acknowledged and stored, and the refused
    // heartbeats are counted, not failures. dp 2 without experts: each rank sends 8 lifecycle events (launch
    // started and done, process_group, device_mesh for the model and data meshes, communicator started and done,
    // ready) and, held, no exit.
    void shed_heartbeats_are_not_failures() {
        QTemporaryDir dir;
        const QString db = dir.filePath("h.db");
        auto serve = std::make_unique<test::ServeProcess>(QStringList{"--db", db, "--heartbeat-shed-at", "0"});
        QVERIFY2(serve->port(), serve->errors().constData());
        QProcess simulate;
        simulate.start(MESHSCOPE_BIN, {"simulate", "--target", serve->url(), "--dp", "2", "--job", "shed", "--hold"});
        QVERIFY(simulate.waitForStarted(10000));
        // The summary line comes once every scripted event was handed over and the queue drained.
        QTRY_VERIFY_WITH_TIMEOUT(simulate.canReadLine() || simulate.state() == QProcess::NotRunning, 60000);
        const auto summary = QJsonDocument::fromJson(simulate.readLine()).object();
        QCOMPARE(summary.value("job").toString(), QString("shed"));
        // Nothing pending or rejected then: whatever was not acknowledged was a heartbeat.
        const auto early = summary.value("heartbeats").toObject();
        QCOMPARE(summary.value("events").toInteger(), summary.value("acknowledged").toInteger() +
                                                          early.value("refused").toInteger() +
                                                          early.value("evicted").toInteger());
        // Held heartbeats (one a second a rank, each body heartbeats only) are shed: wait until the collector
        // refused at least three bodies, then stop the ranks.
        QNetworkAccessManager nam;
        const auto shed_bodies = [&] {
            const auto text = test::http(nam, "GET", serve->url() + "/metrics").body;
            const auto at = text.indexOf("\nmeshscope_bodies_shed_total ");
            return at < 0 ? -1 : text.mid(at + 29, text.indexOf('\n', at + 1) - at - 29).toInt();
        };
        QVERIFY2(test::eventually([&] { return shed_bodies() >= 3; }, 60000, 100),
                 qPrintable(QString::number(shed_bodies())));
        QCOMPARE(::kill(static_cast<pid_t>(simulate.processId()), SIGINT), 0);
        QVERIFY(simulate.waitForFinished(30000));
        QCOMPARE(simulate.exitStatus(), QProcess::NormalExit);
        QVERIFY2(simulate.exitCode() == 0, simulate.readAllStandardError().constData());
        QVERIFY2(simulate.canReadLine(), "no line after the stop");
        const auto stopped = QJsonDocument::fromJson(simulate.readLine()).object();
        QCOMPARE(stopped.value("stopped").toBool(), true);
        QCOMPARE(stopped.value("rejected").toInteger(), 0);
        const auto heartbeats = stopped.value("heartbeats").toObject();
        const qint64 refused = heartbeats.value("refused").toInteger();
        QVERIFY2(refused >= 3, qPrintable(QString::number(refused)));
        // Everything handed over is accounted for: acknowledged, or a heartbeat refused, evicted or abandoned.
        QCOMPARE(stopped.value("events").toInteger(), stopped.value("acknowledged").toInteger() + refused +
                                                          heartbeats.value("evicted").toInteger() +
                                                          stopped.value("abandoned").toInteger());
        serve.reset();  // stops it: the history is complete

        // The history: all 16 lifecycle events (8 a rank), and as many heartbeats as were acknowledged beyond them.
        const QString jsonl = dir.filePath("shed.jsonl");
        const auto exported = test::run_meshscope({"export", "--db", db, "--job", "shed", "-o", jsonl});
        QVERIFY2(exported.exit_code == 0, exported.err.constData());
        QFile file(jsonl);
        QVERIFY(file.open(QIODevice::ReadOnly));
        qint64 lifecycle = 0, stored_heartbeats = 0;
        for (const QByteArray& line : file.readAll().trimmed().split('\n')) {
            const auto event = QJsonDocument::fromJson(line).object();
            if (event.contains("meshscope_export") || event.contains("meshscope_export_end")) continue;  // framing
            if (event.value("phase").toString() == "heartbeat")
                stored_heartbeats += event.value("heartbeats").toInteger();
            else
                ++lifecycle;
        }
        QCOMPARE(lifecycle, qint64{16});
        QCOMPARE(stopped.value("acknowledged").toInteger(), lifecycle + stored_heartbeats);
    }

    // The other side of the rule: a lifecycle event the collector refuses (401 here: no token) fails the run.
    // The last error is the client's: the status and the collector's body as it came.
    // dp 2 without experts, not held: 10 events a rank (8 lifecycle: launch started and done, process_group, the
    // model and data meshes, communicator started and done, ready; 1 heartbeat, exit), all 20 rejected.
    void refused_lifecycle_events_fail_the_run() {
        QTemporaryDir dir;
        test::ServeProcess serve(QStringList{"--db", dir.filePath("h.db"), "--token", "s3cret"});
        QVERIFY2(serve.port(), serve.errors().constData());
        const auto run = test::run_meshscope({"simulate", "--target", serve.url(), "--dp", "2", "--job", "refused"});
        QCOMPARE(run.exit_code, 1);
        QCOMPARE(QString::fromUtf8(run.err),
                 QString("meshscope simulate: not every lifecycle event was acknowledged (20 events rejected, 0 still "
                         "pending); last error: HTTP 401: {\"error\":\"missing or wrong bearer token\"}\n"));
        const auto summary = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(summary.value("events").toInteger(), 20);
        QCOMPARE(summary.value("acknowledged").toInteger(), 0);
    }

    // replay into a collector that sheds every heartbeat-only body: rank 1's recorded heartbeat is refused
    // (each rank's events go in their own request), rank 0's launch is stored, and the replay succeeds.
    void replay_counts_shed_heartbeats() {
        QTemporaryDir dir;
        const QString jsonl = dir.filePath("rec.jsonl");
        QFile file(jsonl);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"job":"rec","rank":0,"world_size":2,"phase":"launch","status":"started","received":100})"
                   "\n"
                   R"({"job":"rec","rank":1,"world_size":2,"phase":"heartbeat","status":"done","received":101})"
                   "\n");
        file.close();
        test::ServeProcess target(QStringList{"--db", dir.filePath("t.db"), "--heartbeat-shed-at", "0"});
        QVERIFY2(target.port(), target.errors().constData());
        const auto run = test::run_meshscope({"replay", "--speed", "0", "--target", target.url(), "--input", jsonl});
        QVERIFY2(run.exit_code == 0, run.err.constData());
        QCOMPARE(QJsonDocument::fromJson(run.out).object(),
                 QJsonDocument::fromJson(
                     R"({"job":"rec","events":2,"acknowledged":1,"duplicates":0,"heartbeats_refused":1})")
                     .object());
    }
};

QTEST_GUILESS_MAIN(TestEndToEnd)
#include "tst_end_to_end.moc"
