// `meshscope simulate --per-rank` (the start-up storm, simulator/storm.h) as a user runs it: every rank
// its own connection against a real `meshscope serve`; a collector nobody runs; a collector that refuses
// with 503 + Retry-After (a fake in this test, which records what it is sent); bad values; and the stream
// messages a dashboard reads.
#include <QFile>
#include <QSet>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>

#include <sys/resource.h>

#include <functional>

#include "server_test_support.h"
#include "storm_stream.h"

namespace {

const QString bin = MESHSCOPE_BIN;

QJsonObject last_json_line(const QByteArray& out) {
    const auto lines = out.trimmed().split('\n');
    return QJsonDocument::fromJson(lines.isEmpty() ? QByteArray() : lines.last()).object();
}

// A collector stand-in on loopback: answers each POST from a script of answers (the last one repeats) and
// records every request's body, its arrival (ms since start) and the connection it came on.
class FakeCollector : public QObject {
public:
    struct Request {
        QByteArray body;
        qint64 at_ms = 0;
        int connection = 0;
    };
    // The answer to the n-th request (from 0) with this body.
    using Answers = std::function<QByteArray(qsizetype n, const QByteArray& body)>;
    explicit FakeCollector(Answers answers) : answers_(std::move(answers)) {
        clock_.start();
        server_.listen(QHostAddress::LocalHost, 0);
        connect(&server_, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = server_.nextPendingConnection()) {
                const int id = ++connections_;
                auto buffer = std::make_shared<QByteArray>();
                connect(socket, &QTcpSocket::readyRead, this, [this, socket, id, buffer] {
                    *buffer += socket->readAll();
                    while (true) {
                        const auto end = buffer->indexOf("\r\n\r\n");
                        if (end < 0) return;
                        const QByteArray head = buffer->left(end).toLower();
                        const auto at = head.indexOf("content-length:");
                        const int length =
                            at >= 0 ? head.mid(at + 15, head.indexOf("\r\n", at) - at - 15).trimmed().toInt() : 0;
                        if (buffer->size() < end + 4 + length) return;
                        requests_.push_back({buffer->mid(end + 4, length), clock_.elapsed(), id});
                        buffer->remove(0, end + 4 + length);
                        socket->write(answers_(requests_.size() - 1, requests_.back().body));
                    }
                });
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }
    [[nodiscard]] QString url() const { return QStringLiteral("http://127.0.0.1:%1").arg(server_.serverPort()); }
    [[nodiscard]] const QList<Request>& requests() const { return requests_; }
    [[nodiscard]] int connections() const { return connections_; }

private:
    QTcpServer server_;
    QElapsedTimer clock_;
    Answers answers_;
    QList<Request> requests_;
    int connections_ = 0;
};

QByteArray answer(int status, const QByteArray& reason, const QByteArray& body, const QByteArray& extra = {}) {
    return "HTTP/1.1 " + QByteArray::number(status) + " " + reason +
           "\r\nContent-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n" + extra +
           "\r\n" + body;
}

// "phase/status" of each event of a request body (a JSON array, as the reporters send).
QStringList phases_of(const QByteArray& body) {
    QStringList out;
    for (const auto e : QJsonDocument::fromJson(body).array())
        out << e.toObject().value("phase").toString() + "/" + e.toObject().value("status").toString();
    return out;
}

bool only_heartbeats(const QByteArray& body) {
    const QStringList phases = phases_of(body);
    return !phases.isEmpty() && phases.count("heartbeat/done") == phases.size();
}

// A shedding collector: every body made only of heartbeats gets 503 + Retry-After, everything else 200.
FakeCollector::Answers shedding_heartbeats(int retry_after_s) {
    return [retry_after_s](qsizetype, const QByteArray& body) {
        return only_heartbeats(body)
                   ? answer(503, "Service Unavailable", R"({"error":"collector busy: heartbeat not stored"})",
                            "Retry-After: " + QByteArray::number(retry_after_s) + "\r\n")
                   : answer(200, "OK", R"({"accepted":1})");
    };
}
}  // namespace

class TstStorm : public QObject {
    Q_OBJECT

private slots:
    void bad_values_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("error");
        const QStringList base{"simulate", "--target", "http://127.0.0.1:1", "--dp", "8"};
        QTest::addRow("negative start window")
            << base + QStringList{"--per-rank", "--start-window=-1"}
            << "meshscope simulate: --start-window must be from 0 to 600 seconds, got -1\n";
        QTest::addRow("start window too long")
            << base + QStringList{"--per-rank", "--start-window", "601"}
            << "meshscope simulate: --start-window must be from 0 to 600 seconds, got 601\n";
        QTest::addRow("no processes") << base + QStringList{"--per-rank", "--processes", "0"}
                                      << "meshscope simulate: --processes must be from 1 to 256, got 0\n";
        QTest::addRow("negative duration")
            << base + QStringList{"--per-rank", "--duration=-5"}
            << "meshscope simulate: --duration must be from 0 to 604800 seconds, got -5\n";
        QTest::addRow("negative dashboards") << base + QStringList{"--per-rank", "--dashboards=-2"}
                                             << "meshscope simulate: --dashboards must be from 0 to 1000, got -2\n";
        QTest::addRow("zero request timeout")
            << base + QStringList{"--per-rank", "--request-timeout", "0"}
            << "meshscope simulate: --request-timeout must be from 0.01 to 600 seconds, got 0\n";
        QTest::addRow("not http") << QStringList{"simulate", "--target", "ftp://x:1", "--dp", "8", "--per-rank"}
                                  << "meshscope simulate: --target: 'ftp://x:1' is not an http://HOST:PORT URL\n";
        QTest::addRow("second target without port")
            << QStringList{"simulate", "--target", "http://127.0.0.1:1,http://127.0.0.1", "--dp", "8", "--per-rank"}
            << "meshscope simulate: --target: 'http://127.0.0.1' is not an http://HOST:PORT URL\n";
        QTest::addRow("port out of range")
            << QStringList{"simulate", "--target", "http://127.0.0.1:70000", "--dp", "8", "--per-rank"}
            << "meshscope simulate: --target: 'http://127.0.0.1:70000' is not an http://HOST:PORT URL\n";
        QTest::addRow("unknown protocol") << base + QStringList{"--per-rank", "--protocol", "grpc"}
                                          << "meshscope simulate: --protocol must be meshscope or otlp, got 'grpc'\n";
        QTest::addRow("start window without per-rank")
            << base + QStringList{"--start-window", "2"} << "meshscope simulate: --start-window needs --per-rank\n";
        QTest::addRow("ranks-out without per-rank")
            << base + QStringList{"--ranks-out", "x.jsonl"} << "meshscope simulate: --ranks-out needs --per-rank\n";
        QTest::addRow("dashboards without per-rank")
            << base + QStringList{"--dashboards", "2"} << "meshscope simulate: --dashboards needs --per-rank\n";
        QTest::addRow("several targets without per-rank")
            << QStringList{"simulate", "--target", "http://127.0.0.1:1,http://127.0.0.1:2", "--dp", "8"}
            << "meshscope simulate: --target: several URLs need --per-rank\n";
        QTest::addRow("hold with per-rank")
            << base + QStringList{"--per-rank", "--hold"}
            << "meshscope simulate: --hold cannot be combined with --per-rank: give --duration\n";
        QTest::addRow("connections with per-rank")
            << base + QStringList{"--per-rank", "--connections", "8"}
            << "meshscope simulate: --connections cannot be combined with --per-rank (one connection a rank)\n";
        // The descriptor limit comes from the OS: one process holds its hard limit less 64 ranks.
        rlimit limit{};
        getrlimit(RLIMIT_NOFILE, &limit);
        const qint64 per_process = static_cast<qint64>(limit.rlim_max) - 64;
        const qint64 world = per_process + 8 - per_process % 8 + 8;  // a multiple of 8 above the limit
        QTest::addRow("more ranks than a process holds")
            << QStringList{"simulate", "--target", "http://127.0.0.1:1", "--dp",        QString::number(world / 8),
                           "--cp",     "8",        "--per-rank",         "--processes", "1"}
            << QStringLiteral(
                   "meshscope simulate: --processes 1: %1 ranks need more than %2 connections a process (the "
                   "descriptor limit less 64); give --processes 2 or more\n")
                   .arg(world)
                   .arg(per_process);
    }
    void bad_values() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, error);
        const auto run = test::run_meshscope(arguments, 30000);
        QCOMPARE(QString::fromUtf8(run.err), error);
        QCOMPARE(run.exit_code, 2);
        QVERIFY(run.out.isEmpty());
    }

    // 64 ranks, each its own connection, against the real collector: every ready acknowledged, no finding,
    // and both dashboards see every rank turn ready. The ranks heartbeat until --duration before they exit:
    // a rank that exits right after its ready may have both changes collapsed into one `exited` in the same
    // 100 ms stream message (docs/collector.md, "Stream"), and no dashboard could see it ready.
    void every_rank_ready_against_serve() {
        QTemporaryDir dir;
        test::ServeProcess serve({"--db", dir.filePath("history.db")});
        QVERIFY(serve.port() != 0);
        const auto run = test::run_meshscope({"simulate",       "--per-rank",
                                              "--target",       serve.url(),
                                              "--dp",           "8",
                                              "--cp",           "8",
                                              "--ep",           "8",
                                              "--job",          "storm64",
                                              "--start-window", "1",
                                              "--dashboards",   "2",
                                              "--duration",     "8",
                                              "--processes",    "2",
                                              "--ranks-out",    dir.filePath("ranks.jsonl")},
                                             90000);
        QVERIFY2(run.exit_code == 0, run.err.constData());
        const QJsonObject summary = last_json_line(run.out);
        QCOMPARE(summary.value("ranks").toInt(), 64);
        QCOMPARE(summary.value("processes").toInt(), 2);
        QCOMPARE(summary.value("ready_expected").toInt(), 64);
        QCOMPARE(summary.value("ready_acked").toInt(), 64);
        QCOMPARE(summary.value("ranks_never_ready").toInt(), 0);
        QCOMPARE(summary.value("rejected").toInt(), 0);
        const QJsonArray dashboards = summary.value("dashboards").toArray();
        QCOMPARE(dashboards.size(), 2);
        for (const auto d : dashboards) {
            QCOMPARE(d.toObject().value("seen").toInt(), 64);
            QCOMPARE(d.toObject().value("missed").toInt(), 0);
        }
        // One line per rank: connected, ready sent and acknowledged in that order, every scripted request
        // acknowledged.
        QFile ranks(dir.filePath("ranks.jsonl"));
        QVERIFY(ranks.open(QIODevice::ReadOnly));
        QSet<int> seen;
        for (const QByteArray& line : ranks.readAll().trimmed().split('\n')) {
            const QJsonObject r = QJsonDocument::fromJson(line).object();
            seen.insert(r.value("rank").toInt());
            QVERIFY(r.value("first_connect_s").toDouble() <= r.value("ready_sent_s").toDouble());
            QVERIFY(r.value("ready_sent_s").toDouble() <= r.value("ready_ack_s").toDouble());
            for (const auto ack : r.value("acks_s").toArray()) QVERIFY(!ack.isNull());
        }
        QCOMPARE(seen.size(), 64);
        QNetworkAccessManager nam;
        const auto job = test::http(nam, "GET", serve.url() + "/api/v1/jobs/storm64");
        QCOMPARE(job.status, 200);
        QCOMPARE(job.json().value("ranks_seen").toInt(), 64);
        QCOMPARE(job.json().value("findings").toInt(), 0);
    }

    // The same 64-rank storm once as meshscope.event/1 and once as OTLP/HTTP JSON logs (--protocol otlp, POST
    // /v1/logs of the collector itself, as an OpenTelemetry Collector agent forwards them): every OTLP body is
    // accepted (every ready acknowledged, nothing rejected), and the collector stores exactly the lifecycle events
    // that the meshscope protocol run stores, rank by rank, every rank exited and no finding.
    void otlp_bodies_are_accepted_by_serve() {
        const auto lifecycle = [](const QString& protocol, QJsonObject& summary, QJsonObject& job) {
            QTemporaryDir dir;
            const QString db = dir.filePath("history.db");
            test::ServeProcess serve({"--db", db});
            if (serve.port() == 0) return QStringList{"serve did not start"};
            const auto run = test::run_meshscope(
                {"simulate", "--per-rank", "--protocol", protocol, "--target", serve.url(), "--dp", "8", "--cp", "8",
                 "--ep", "8", "--job", "storm64", "--start-window", "1", "--duration", "3"},
                90000);
            if (run.exit_code != 0) return QStringList{QString::fromUtf8(run.err)};
            summary = last_json_line(run.out);
            QNetworkAccessManager nam;
            job = test::http(nam, "GET", serve.url() + "/api/v1/jobs/storm64").json();
            const auto exported = test::run_meshscope({"export", "--db", db, "--job", "storm64"});
            QStringList events;
            for (const QByteArray& line : exported.out.trimmed().split('\n')) {
                const QJsonObject e = QJsonDocument::fromJson(line).object();
                if (!e.contains("phase") || e.value("phase").toString() == "heartbeat") continue;
                events << QStringLiteral("%1 %2/%3 %4")
                              .arg(e.value("rank").toInt())
                              .arg(e.value("phase").toString(), e.value("status").toString(),
                                   QString::fromUtf8(QJsonDocument(QJsonObject{{"groups", e.value("groups")}})
                                                         .toJson(QJsonDocument::Compact)));
            }
            events.sort();
            return events;
        };
        QJsonObject summary, job, meshscope_summary, meshscope_job;
        const QStringList expected = lifecycle("meshscope", meshscope_summary, meshscope_job);
        const QStringList stored = lifecycle("otlp", summary, job);
        QCOMPARE(summary.value("protocol").toString(), QString("otlp"));
        QCOMPARE(summary.value("ready_acked").toInt(), 64);
        QCOMPARE(summary.value("rejected").toInt(), 0);
        QCOMPARE(job.value("ranks_seen").toInt(), 64);
        QCOMPARE(job.value("findings").toInt(), 0);
        QCOMPARE(job.value("states").toObject().value("exited").toInt(), 64);
        // Every rank's phases, their groups included, as the meshscope protocol run stores them; what the simulator
        // counts as acknowledged is all stored.
        QVERIFY2(expected.size() > 64 * 5, qPrintable(expected.mid(0, 4).join("; ")));
        QCOMPARE(stored, expected);
        QCOMPARE(summary.value("lifecycle_events_acked").toInt(), stored.size());
        QCOMPARE(meshscope_summary.value("lifecycle_events_acked").toInt(), expected.size());
    }

    // Nobody listens: the run ends at --duration with a clear message, never hangs.
    void collector_away_ends_with_a_message() {
        quint16 port = 0;
        {
            QTcpServer probe;
            QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
            port = probe.serverPort();
        }
        const auto run =
            test::run_meshscope({"simulate", "--per-rank", "--target", QStringLiteral("http://127.0.0.1:%1").arg(port),
                                 "--dp", "8", "--start-window", "0.5", "--duration", "2"},
                                60000);
        QCOMPARE(run.exit_code, 1);
        QCOMPARE(QString::fromUtf8(run.err),
                 QStringLiteral("meshscope simulate: 0 of 8 ranks got their ready acknowledged; last error: connect: "
                                "Connection refused\n"));
        const QJsonObject summary = last_json_line(run.out);
        QCOMPARE(summary.value("ready_acked").toInt(), 0);
        QCOMPARE(summary.value("ranks_never_ready").toInt(), 8);
        QVERIFY(summary.value("failures").toInt() >= 8);
        QVERIFY(summary.value("retries").toInt() >= 8);
        QVERIFY(summary.value("first_connect_s").isNull());
    }

    // 503 + Retry-After: 1, then 200: the rank sends its refused event again, on the same kept-alive
    // connection, no sooner than one second later, first in its next request (the same bytes, as the
    // reporters resend it) with the events that came due meanwhile; then the rest of its script in order.
    void retry_after_is_honoured() {
        FakeCollector fake([](qsizetype n, const QByteArray&) {
            return n == 0 ? answer(503, "Service Unavailable", R"({"error":"collector busy"})", "Retry-After: 1\r\n")
                          : answer(200, "OK", R"({"accepted":1})");
        });
        const auto run = test::run_meshscope_serving(
            {"simulate", "--per-rank", "--target", fake.url(), "--dp", "1", "--job", "one", "--start-window", "0"});
        QVERIFY2(run.exit_code == 0, run.err.constData());
        const auto& requests = fake.requests();
        QVERIFY(requests.size() >= 2);
        QVERIFY(requests[1].body.startsWith(requests[0].body.chopped(1)));  // "[refused" then ",..." or "]"
        QVERIFY(requests[1].at_ms - requests[0].at_ms >= 1000);
        QCOMPARE(fake.connections(), 1);
        QStringList phases;
        for (const auto& r : requests) phases << phases_of(r.body);
        QCOMPARE(phases_of(requests[0].body), QStringList{"launch/started"});
        QCOMPARE(phases[1], QString("launch/started"));
        QCOMPARE(phases.count("launch/started"), 2);  // only the refused one went twice
        QCOMPARE(phases.count("ready/done"), 1);
        QVERIFY(phases.indexOf("ready/done") > phases.indexOf("communicator/done"));
        QCOMPARE(phases.last(), QString("exit/done"));
        const QJsonObject summary = last_json_line(run.out);
        QCOMPARE(summary.value("refusals").toInt(), 1);
        QCOMPARE(summary.value("retries").toInt(), 1);
        QCOMPARE(summary.value("ready_acked").toInt(), 1);
    }

    // Bodies made only of heartbeats refused (503 + Retry-After), as a shedding collector does: no heartbeat
    // is sent twice, none makes a retry, the next comes on time (5 s after ready), and the rank still exits
    // at the end of the run. (A heartbeat that came due while `ready` waited rides with it, as in the
    // reporters, and is stored with it.) The run lasts 9 s: the tick 5 s after ready falls inside it even when ready
    // took 3 s on a busy machine, the next one (10 s after ready) never does.
    void refused_heartbeats_are_not_retried() {
        FakeCollector fake(shedding_heartbeats(1));
        const auto run = test::run_meshscope_serving({"simulate", "--per-rank", "--target", fake.url(), "--dp", "1",
                                                      "--job", "one", "--start-window", "0", "--duration", "9"});
        QVERIFY2(run.exit_code == 0, run.err.constData());
        QStringList phases;
        QSet<double> heartbeat_times;
        int heartbeats = 0, refused_bodies = 0;
        for (const auto& r : fake.requests()) {
            refused_bodies += only_heartbeats(r.body);
            for (const auto e : QJsonDocument::fromJson(r.body).array()) {
                phases << e.toObject().value("phase").toString();
                if (phases.last() == "heartbeat") {
                    ++heartbeats;
                    heartbeat_times.insert(e.toObject().value("ts").toDouble());
                }
            }
        }
        QCOMPARE(heartbeat_times.size(), heartbeats);  // none sent twice
        QCOMPARE(heartbeats, 2);                       // the scripted one, and one 5 s after ready
        QCOMPARE(phases.last(), QString("exit"));
        const QJsonObject summary = last_json_line(run.out);
        QCOMPARE(summary.value("retries").toInt(), 0);
        QCOMPARE(summary.value("refusals").toInt(), refused_bodies);
        const QJsonObject heartbeats_summary = summary.value("heartbeats").toObject();
        QCOMPARE(heartbeats_summary.value("sent").toInt(), 2);
        QCOMPARE(heartbeats_summary.value("refused").toInt(), refused_bodies);
        QCOMPARE(heartbeats_summary.value("acked").toInt(), 2 - refused_bodies);
    }

    // Refused heartbeats say Retry-After: 6, longer than the 5 s between heartbeats. As the Python reporter
    // does, the rank sends nothing for 6-9 s after a refusal: its next request, a heartbeat, comes 6 s or more
    // after the first refused one, not on its 5 s tick. (On a busy machine the scripted heartbeat that follows
    // ready by 0.5 s may ride with ready and be accepted; then the first refused one is the next tick's, and
    // the run lasts long enough for the one after it.)
    void refused_heartbeats_hold_back_the_rank() {
        FakeCollector fake(shedding_heartbeats(6));
        const auto run = test::run_meshscope_serving({"simulate", "--per-rank", "--target", fake.url(), "--dp", "1",
                                                      "--job", "one", "--start-window", "0", "--duration", "16"});
        QVERIFY2(run.exit_code == 0, run.err.constData());
        const auto& requests = fake.requests();
        QStringList phases, timeline;
        qsizetype first_refused = -1;
        for (qsizetype i = 0; i < requests.size(); ++i) {
            phases << phases_of(requests[i].body);
            timeline << QString("%1 ms: %2").arg(requests[i].at_ms).arg(phases_of(requests[i].body).join(' '));
            if (first_refused < 0 && only_heartbeats(requests[i].body)) first_refused = i;
        }
        const QByteArray told = timeline.join("; ").toUtf8();
        QVERIFY2(first_refused >= 0 && first_refused + 1 < requests.size(), told.constData());
        QVERIFY2(only_heartbeats(requests[first_refused + 1].body), told.constData());
        const qint64 quiet = requests[first_refused + 1].at_ms - requests[first_refused].at_ms;
        QVERIFY2(quiet >= 6000, told.constData());
        QCOMPARE(phases.count("ready/done"), 1);
        QCOMPARE(phases.last(), QString("exit/done"));
    }

    // What a dashboard takes from a stream message: both forms, only this job, only ready.
    void stream_messages_data() {
        QTest::addColumn<QByteArray>("message");
        QTest::addColumn<QList<qint64>>("ranks");
        QTest::addRow("hello") << QByteArray(R"({"type":"hello","protocol":"meshscope.stream/1"})") << QList<qint64>{};
        QTest::addRow("one change, ready")
            << QByteArray(R"({"type":"rank_changed","job":"j","rank":5,"state":"ready","phase":"ready"})")
            << QList<qint64>{5};
        QTest::addRow("one change, not ready")
            << QByteArray(R"({"type":"rank_changed","job":"j","rank":5,"state":"initializing","phase":"launch"})")
            << QList<qint64>{};
        QTest::addRow("other job")
            << QByteArray(R"({"type":"rank_changed","job":"k","rank":5,"state":"ready","phase":"ready"})")
            << QList<qint64>{};
        QTest::addRow("batch")
            << QByteArray(R"({"type":"changes","changes":[)"
                          R"({"type":"rank_changed","job":"j","rank":1,"state":"ready","phase":"ready"},)"
                          R"({"type":"finding_added","job":"j","id":"x"},)"
                          R"({"type":"rank_changed","job":"j","rank":2,"state":"initializing","phase":"communicator"},)"
                          R"({"type":"rank_changed","job":"k","rank":3,"state":"ready","phase":"ready"},)"
                          R"({"type":"rank_changed","job":"j","rank":7,"state":"ready","phase":"heartbeat"}]})")
            << QList<qint64>{1, 7};
        QTest::addRow("not json") << QByteArray(R"({"state":"ready")") << QList<qint64>{};
    }
    void stream_messages() {
        QFETCH(QByteArray, message);
        QFETCH(QList<qint64>, ranks);
        const auto got = meshscope::sim::storm::ready_ranks_in_message(message.toStdString(), "j");
        QCOMPARE(QList<qint64>(got.begin(), got.end()), ranks);
    }
};

QTEST_GUILESS_MAIN(TstStorm)
#include "tst_storm.moc"
