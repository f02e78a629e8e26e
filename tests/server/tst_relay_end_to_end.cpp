// The node relay against the real collector, as a cluster runs it (docs/live-at-scale.md, "Beyond one
// collector's connections"): `meshscope serve` + `meshscope relay` processes + `meshscope simulate
// --per-rank`, all real binaries on loopback. Ranks spread over two relays, a bad event refused for its
// rank alone, a relay behind a relay, the collector restarted under running ranks; and more ranks than
// the collector's --max-connections reporting directly.
#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QSet>
#include <QTcpServer>
#include <QTemporaryDir>

#include <sqlite3.h>

#include <csignal>

#include "server_test_support.h"
#include "test_events.h"

namespace {

QJsonObject last_json_line(const QByteArray& out) {
    const auto lines = out.trimmed().split('\n');
    return QJsonDocument::fromJson(lines.isEmpty() ? QByteArray() : lines.last()).object();
}

// `meshscope serve` or `meshscope relay` as a process: the port comes from its first stdout line
// ({"port": N, ...}, both print one); the pid lets the test count its sockets.
class Daemon {
public:
    explicit Daemon(const QStringList& arguments) {
        process_.setProgram(MESHSCOPE_BIN);
        process_.setArguments(arguments);
        process_.start();
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < 15000 && !process_.canReadLine()) {
            if (process_.state() == QProcess::NotRunning) break;
            process_.waitForReadyRead(100);
        }
        port_ = static_cast<quint16>(QJsonDocument::fromJson(process_.readLine()).object().value("port").toInt());
    }
    ~Daemon() { stop(); }
    Daemon(const Daemon&) = delete;
    Daemon& operator=(const Daemon&) = delete;
    void stop() {
        if (process_.state() == QProcess::NotRunning) return;
        process_.terminate();
        if (!process_.waitForFinished(10000)) {
            process_.kill();
            process_.waitForFinished(5000);
        }
    }
    [[nodiscard]] quint16 port() const { return port_; }
    [[nodiscard]] QString url() const { return QStringLiteral("http://127.0.0.1:%1").arg(port_); }
    [[nodiscard]] qint64 pid() const { return process_.processId(); }
    [[nodiscard]] QByteArray errors() { return process_.readAllStandardError(); }

private:
    QProcess process_;
    quint16 port_ = 0;
};

Daemon* serve(const QString& db, const QStringList& extra = {}, quint16 port = 0) {
    return new Daemon(QStringList{"serve", "--listen", QStringLiteral("127.0.0.1:%1").arg(port), "--db", db} + extra);
}

Daemon* relay(const QString& upstream, const QStringList& extra = {}) {
    return new Daemon(QStringList{"relay", "--listen", "127.0.0.1:0", "--upstream", upstream} + extra);
}

// A free loopback port below the ephemeral range: a collector restarted on it finds it free, where a port
// from the range may meanwhile be the local end of some outgoing connection (bind: address in use).
quint16 port_outside_ephemeral_range() {
    QFile range("/proc/sys/net/ipv4/ip_local_port_range");
    int low = 32768;
    if (range.open(QIODevice::ReadOnly)) low = range.readAll().simplified().split(' ').value(0).toInt();
    for (int attempt = 0; attempt < 200; ++attempt) {
        const auto port = static_cast<quint16>(10000 + QRandomGenerator::global()->bounded(std::max(low - 10000, 1)));
        QTcpServer probe;
        if (probe.listen(QHostAddress::LocalHost, port)) return port;
    }
    return 0;
}

// The sockets a process holds (listening, accepted and outgoing): its /proc/PID/fd links "socket:[inode]".
QSet<QString> sockets_of(qint64 pid) {
    QSet<QString> inodes;
    const QDir fds(QStringLiteral("/proc/%1/fd").arg(pid));
    for (const QString& fd : fds.entryList(QDir::NoDotAndDotDot | QDir::System | QDir::Files)) {
        const QString target = QFile::symLinkTarget(fds.filePath(fd));
        if (target.contains("socket:")) inodes.insert(target);
    }
    return inodes;
}

// `meshscope simulate --per-rank` run to its end while `each_poll` runs every 50 ms (sampling, stopping things).
test::CommandResult simulate(const QStringList& arguments, const std::function<void()>& each_poll = {},
                             int timeout_ms = 180000) {
    return test::run_meshscope_serving(QStringList{"simulate", "--per-rank"} + arguments, timeout_ms, each_poll, 50);
}

// One number from the collector's /metrics (the first sample of that name), -1 when absent.
double metric(QNetworkAccessManager& nam, const QString& url, const QByteArray& name) {
    const auto reply = test::http(nam, "GET", url + "/metrics");
    for (const QByteArray& line : reply.body.split('\n'))
        if (line.startsWith(name + ' ') || line.startsWith(name + '{'))
            return line.mid(line.lastIndexOf(' ') + 1).toDouble();
    return -1;
}

QJsonArray findings(QNetworkAccessManager& nam, const QString& url, const QString& job) {
    return test::http(nam, "GET", url + "/api/v1/jobs/" + job + "/findings").json().value("findings").toArray();
}

// Ranks of `job` with an event of `phase` in the history file (the collector stopped).
int ranks_stored_with(const QString& db, const QString& job, const QString& phase) {
    sqlite3* handle = nullptr;
    if (sqlite3_open_v2(db.toUtf8().constData(), &handle, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        sqlite3_close(handle);
        return -1;
    }
    sqlite3_stmt* statement = nullptr;
    sqlite3_prepare_v2(handle,
                       "SELECT count(DISTINCT rank) FROM events WHERE job = ?1 AND json_extract(event, '$.phase') = ?2",
                       -1, &statement, nullptr);
    const QByteArray j = job.toUtf8(), p = phase.toUtf8();
    sqlite3_bind_text(statement, 1, j.constData(), static_cast<int>(j.size()), SQLITE_TRANSIENT);
    sqlite3_bind_text(statement, 2, p.constData(), static_cast<int>(p.size()), SQLITE_TRANSIENT);
    const int n = sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int(statement, 0) : -1;
    sqlite3_finalize(statement);
    sqlite3_close(handle);
    return n;
}

// Lifecycle events of `job` in the history file: (distinct (rank, phase, status, ts), rows).
std::pair<int, int> lifecycle_rows(const QString& db, const QString& job) {
    sqlite3* handle = nullptr;
    if (sqlite3_open_v2(db.toUtf8().constData(), &handle, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        sqlite3_close(handle);
        return {-1, -1};
    }
    sqlite3_stmt* statement = nullptr;
    sqlite3_prepare_v2(handle,
                       "SELECT count(DISTINCT rank || '/' || json_extract(event, '$.phase') || '/' || "
                       "json_extract(event, '$.status') || '/' || json_extract(event, '$.ts')), count(*) FROM events "
                       "WHERE job = ?1 AND json_extract(event, '$.phase') <> 'heartbeat'",
                       -1, &statement, nullptr);
    const QByteArray j = job.toUtf8();
    sqlite3_bind_text(statement, 1, j.constData(), static_cast<int>(j.size()), SQLITE_TRANSIENT);
    std::pair<int, int> out{-1, -1};
    if (sqlite3_step(statement) == SQLITE_ROW)
        out = {sqlite3_column_int(statement, 0), sqlite3_column_int(statement, 1)};
    sqlite3_finalize(statement);
    sqlite3_close(handle);
    return out;
}

QByteArray launch_event(int rank, int world, const char* phase = "launch") {
    auto e = meshscope::test::event("relayed", rank, world, meshscope::parse_phase(phase).value(),
                                    meshscope::Status::started);
    e.host = "n0";
    e.pid = 100 + rank;
    return QByteArray::fromStdString(meshscope::test::line(e));
}

}  // namespace

class TstRelayEndToEnd : public QObject {
    Q_OBJECT

private slots:
    // 128 ranks over two relays: every ready acknowledged, no finding, and the collector held a few
    // connections (the relays' upstream ones, the dashboard's, its listening socket), never one per rank.
    // The ranks heartbeat for 8 s: one that exited within 100 ms of its ready could reach the dashboard as
    // one collapsed `exited` change (tst_storm, every_rank_ready_against_serve).
    void ranks_over_two_relays() {
        QTemporaryDir dir;
        std::unique_ptr<Daemon> collector(serve(dir.filePath("history.db")));
        QVERIFY(collector->port() != 0);
        std::unique_ptr<Daemon> a(relay(collector->url())), b(relay(collector->url()));
        QVERIFY(a->port() != 0 && b->port() != 0);
        int most_sockets = 0;
        const auto run =
            simulate({"--target",
                      a->url() + "," + b->url(),
                      "--dashboard-target",
                      collector->url(),
                      "--dashboards",
                      "1",
                      "--dp",
                      "16",
                      "--cp",
                      "8",
                      "--ep",
                      "8",
                      "--job",
                      "relay128",
                      "--start-window",
                      "1",
                      "--processes",
                      "2",
                      "--duration",
                      "8"},
                     [&] { most_sockets = std::max(most_sockets, int(sockets_of(collector->pid()).size())); });
        QVERIFY2(run.exit_code == 0, run.err.constData());
        const QJsonObject summary = last_json_line(run.out);
        QCOMPARE(summary.value("ranks").toInt(), 128);
        QCOMPARE(summary.value("ready_acked").toInt(), 128);
        QCOMPARE(summary.value("ranks_never_ready").toInt(), 0);
        QCOMPARE(summary.value("rejected").toInt(), 0);
        const QJsonArray dashboards = summary.value("dashboards").toArray();
        QCOMPARE(dashboards.size(), 1);
        QCOMPARE(dashboards[0].toObject().value("seen").toInt(), 128);
        QNetworkAccessManager nam;
        const auto job = test::http(nam, "GET", collector->url() + "/api/v1/jobs/relay128").json();
        QCOMPARE(job.value("ranks_seen").toInt(), 128);
        QCOMPARE(job.value("findings").toInt(), 0);
        // Each rank posted at least launch .. ready (6 requests, one event each) through the relays.
        QVERIFY(metric(nam, collector->url(), "meshscope_events_stored_total") >= 128 * 6);
        // Listening socket + 2 relays x --max-in-flight 1 (+ one reconnect each) + the dashboard + this
        // test's own scrape: far below the 128 ranks.
        QVERIFY2(most_sockets >= 2 && most_sockets <= 12, qPrintable(QString::number(most_sockets)));
    }

    // Four ranks of one node in one batch (the relay waits for 4 bodies), one of them bad: that rank gets
    // the collector's 400 and exact text (docs/protocol.md), its three neighbours 200 and their events
    // are stored.
    void bad_event_refuses_only_its_rank() {
        QTemporaryDir dir;
        std::unique_ptr<Daemon> collector(serve(dir.filePath("history.db")));
        std::unique_ptr<Daemon> node(relay(collector->url(), {"--batch-ms", "60000", "--batch-bodies", "4"}));
        QVERIFY(collector->port() != 0 && node->port() != 0);
        const QString expected = R"(event 0: field "rank" must be less than world_size (4), got 4)";
        QNetworkAccessManager nam;
        QList<QNetworkReply*> replies;
        for (int rank = 0; rank < 4; ++rank) {
            QNetworkRequest request{QUrl(node->url() + "/api/v1/events")};
            request.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
            request.setTransferTimeout(60000);
            replies << nam.post(request,
                                rank == 3 ? launch_event(4, 4) : launch_event(rank, 4));  // rank 3 sends a bad rank
        }
        QTRY_VERIFY_WITH_TIMEOUT(std::all_of(replies.begin(), replies.end(), [](auto* r) { return r->isFinished(); }),
                                 30000);
        for (int rank = 0; rank < 4; ++rank) {
            const int status = replies[rank]->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
            const QJsonObject body = QJsonDocument::fromJson(replies[rank]->readAll()).object();
            if (rank == 3) {
                QCOMPARE(status, 400);
                QCOMPARE(body.value("error").toString(), expected);
            } else {
                QCOMPARE(status, 200);
                QCOMPARE(body.value("accepted").toInt(), 1);
            }
        }
        qDeleteAll(replies);
        // The collector answers the same body with the same text when it is sent there directly.
        QCOMPARE(test::http(nam, "POST", collector->url() + "/api/v1/events", launch_event(4, 4)).error(), expected);
        const auto ranks = test::http(nam, "GET", collector->url() + "/api/v1/jobs/relayed/ranks").json();
        QStringList states;
        for (const auto r : ranks.value("ranks").toArray()) states << r.toObject().value("state").toString();
        QCOMPARE(states, (QStringList{"initializing", "initializing", "initializing", "pending"}));
        collector->stop();
        QCOMPARE(ranks_stored_with(dir.filePath("history.db"), "relayed", "launch"), 3);
    }

    // rank -> relay -> relay -> collector: every ready acknowledged, no finding.
    void relay_behind_a_relay() {
        QTemporaryDir dir;
        std::unique_ptr<Daemon> collector(serve(dir.filePath("history.db")));
        std::unique_ptr<Daemon> spine(relay(collector->url()));
        std::unique_ptr<Daemon> leaf(relay(spine->url()));
        QVERIFY(collector->port() != 0 && spine->port() != 0 && leaf->port() != 0);
        const auto run = simulate({"--target", leaf->url(), "--dp", "4", "--cp", "4", "--job", "chain16",
                                   "--start-window", "0.5", "--processes", "1"});
        QVERIFY2(run.exit_code == 0, run.err.constData());
        QCOMPARE(last_json_line(run.out).value("ready_acked").toInt(), 16);
        QNetworkAccessManager nam;
        const auto job = test::http(nam, "GET", collector->url() + "/api/v1/jobs/chain16").json();
        QCOMPARE(job.value("ranks_seen").toInt(), 16);
        QCOMPARE(job.value("ranks_ready").toInt() + job.value("states").toObject().value("exited").toInt(), 16);
        QCOMPARE(job.value("findings").toInt(), 0);
    }

    // The collector stops while ranks start (over 20 s) behind a relay: the relay answers them 503 +
    // Retry-After, their reporters keep the events, and once a collector runs again on the same port and
    // file every rank's ready is acknowledged, and acknowledged means stored.
    void collector_restarted_under_running_ranks() {
        QTemporaryDir dir;
        const QString db = dir.filePath("history.db");
        const quint16 port = port_outside_ephemeral_range();
        std::unique_ptr<Daemon> collector(serve(db, {}, port));
        QVERIFY(port != 0 && collector->port() == port);
        std::unique_ptr<Daemon> node(relay(collector->url()));
        QVERIFY(node->port() != 0);
        QNetworkAccessManager nam;
        enum class Step { running, stopped, back } step = Step::running;
        QSet<QString> sockets_when_stopped;
        QString probe_error;
        QByteArray probe_retry_after;
        const auto run = simulate(
            {"--target", node->url(), "--dp", "32", "--job", "restart32", "--start-window", "20", "--processes", "1",
             "--ranks-out", dir.filePath("ranks.jsonl")},
            [&] {
                if (step == Step::running && test::http(nam, "GET", collector->url() + "/api/v1/jobs/restart32")
                                                     .json()
                                                     .value("ranks_ready")
                                                     .toInt() >= 2) {
                    collector->stop();
                    // What a rank hears from the relay now.
                    const auto probe = test::http(nam, "POST", node->url() + "/api/v1/events", launch_event(0, 1));
                    probe_error = probe.error();
                    probe_retry_after = probe.header("Retry-After");
                    sockets_when_stopped = sockets_of(node->pid());
                    step = Step::stopped;
                } else if (step == Step::stopped && (sockets_of(node->pid()) - sockets_when_stopped).size() >= 2) {
                    // Two more ranks connected to the relay while the collector was away: the first of them
                    // has been answered 503 by now. Bring the collector back.
                    collector.reset(serve(db, {}, port));
                    step = Step::back;
                }
            });
        QCOMPARE(int(step), int(Step::back));
        QVERIFY2(collector->port() == port, collector->errors().constData());
        QVERIFY2(run.exit_code == 0, run.err.constData());
        QVERIFY2(probe_error.startsWith("collector unreachable: "), qPrintable(probe_error));
        QCOMPARE(probe_retry_after, QByteArray("2"));
        QCOMPARE(collector->port(), port);
        const QJsonObject summary = last_json_line(run.out);
        QCOMPARE(summary.value("ready_acked").toInt(), 32);
        QVERIFY(summary.value("refusals").toInt() >= 1);
        QVERIFY(summary.value("retries").toInt() >= 1);
        QCOMPARE(test::http(nam, "GET", collector->url() + "/api/v1/jobs/restart32").json().value("ranks_seen").toInt(),
                 32);
        collector->stop();
        // Every acknowledged ready is in the file.
        QFile ranks(dir.filePath("ranks.jsonl"));
        QVERIFY(ranks.open(QIODevice::ReadOnly));
        int acked = 0;
        for (const QByteArray& line : ranks.readAll().trimmed().split('\n'))
            if (QJsonDocument::fromJson(line).object().value("ready_ack_s").toDouble(-1) >= 0) ++acked;
        QCOMPARE(acked, 32);
        QCOMPARE(ranks_stored_with(db, "restart32", "ready"), 32);
        QCOMPARE(ranks_stored_with(db, "restart32", "launch"), 32);
    }

    // Overload never loses a rank: the collector freezes (SIGSTOP) under 64 starting ranks until
    // the relay refuses a body because it would wait past its rank's 3 s timeout, then thaws. The ranks are
    // answered 503 + Retry-After by the relay (not left to time out), come back, and every ready is
    // acknowledged; every lifecycle event is stored exactly once, even one resent by a rank whose request timed
    // out (an answer the rank no longer read): the collector does not store a copy again.
    void overload_refuses_in_time_and_loses_no_event() {
        QTemporaryDir dir;
        const QString db = dir.filePath("history.db");
        std::unique_ptr<Daemon> collector(serve(db));
        std::unique_ptr<Daemon> node(relay(collector->url()));
        QVERIFY(collector->port() != 0 && node->port() != 0);
        QNetworkAccessManager nam;
        enum class Step { running, frozen, thawed } step = Step::running;
        QJsonObject relay_stats;
        const auto run =
            simulate({"--target", node->url(), "--dp", "8", "--cp", "8", "--job", "frozen64", "--start-window", "4",
                      "--processes", "1", "--request-timeout", "3"},
                     [&] {
                         if (step == Step::running && test::http(nam, "GET", collector->url() + "/api/v1/jobs/frozen64")
                                                              .json()
                                                              .value("ranks_seen")
                                                              .toInt() >= 8) {
                             ::kill(static_cast<pid_t>(collector->pid()), SIGSTOP);
                             step = Step::frozen;
                         } else if (step == Step::frozen) {
                             relay_stats = test::http(nam, "GET", node->url() + "/api/v1/relay").json();
                             if (relay_stats.value("bodies_refused_wait").toInt() +
                                     relay_stats.value("bodies_expired").toInt() >=
                                 1) {
                                 ::kill(static_cast<pid_t>(collector->pid()), SIGCONT);
                                 step = Step::thawed;
                             }
                         }
                     });
        if (step == Step::frozen) ::kill(static_cast<pid_t>(collector->pid()), SIGCONT);
        QCOMPARE(int(step), int(Step::thawed));
        QVERIFY2(run.exit_code == 0, run.err.constData());
        const QJsonObject summary = last_json_line(run.out);
        QCOMPARE(summary.value("ready_acked").toInt(), 64);
        QVERIFY(summary.value("refusals").toInt() >= 1);
        const auto job = test::http(nam, "GET", collector->url() + "/api/v1/jobs/frozen64").json();
        QCOMPARE(job.value("ranks_seen").toInt(), 64);
        QVERIFY2(job.value("findings").toInt() == 0,
                 test::http(nam, "GET", collector->url() + "/api/v1/jobs/frozen64/findings").body.constData());
        collector->stop();
        const auto [distinct, rows] = lifecycle_rows(db, "frozen64");
        QCOMPARE(ranks_stored_with(db, "frozen64", "launch"), 64);
        QCOMPARE(ranks_stored_with(db, "frozen64", "ready"), 64);
        QVERIFY2(distinct >= 64 * 6, qPrintable(QString::number(distinct)));  // launch started .. ready, each rank
        QVERIFY2(rows == distinct, qPrintable(QStringLiteral("%1 duplicate rows, %2 timeouts")
                                                  .arg(rows - distinct)
                                                  .arg(summary.value("timeouts").toInt())));
    }

    // The refusal past --max-connections is a whole HTTP answer: its Content-Length is the length of its
    // body (32 bytes, counted by hand), so a client reads it to the end instead of failing on a partial
    // message.
    void refusal_past_the_limit_is_a_whole_answer() {
        QTemporaryDir dir;
        std::unique_ptr<Daemon> collector(serve(dir.filePath("history.db"), {"--max-connections", "1"}));
        QVERIFY(collector->port() != 0);
        const int listening = int(sockets_of(collector->pid()).size());
        QTcpSocket holder;
        holder.connectToHost(QHostAddress::LocalHost, collector->port());
        QVERIFY(holder.waitForConnected(10000));
        QTRY_VERIFY_WITH_TIMEOUT(int(sockets_of(collector->pid()).size()) > listening, 10000);
        const auto reply = test::raw_http(collector->port(), "GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        QCOMPARE(reply.status, 503);
        QCOMPARE(reply.body, QByteArray(R"({"error":"too many connections"})"));
        QCOMPARE(reply.header("Content-Length"), QByteArray("32"));
        QCOMPARE(reply.header("Retry-After"), QByteArray("2"));
    }

    // 64 ranks straight at a collector that holds 16 connections: the rest are refused (503 +
    // Retry-After: 2) and come back; every ready is acknowledged, and the missing_rank raised after 1 s
    // for the ranks not yet in is gone once they are.
    void more_ranks_than_connections() {
        QTemporaryDir dir;
        std::unique_ptr<Daemon> collector(
            serve(dir.filePath("history.db"), {"--max-connections", "16", "--missing-after", "1"}));
        QVERIFY(collector->port() != 0);
        QNetworkAccessManager nam;
        bool missing_seen = false;
        const auto run = simulate({"--target", collector->url(), "--dp", "8", "--cp", "8", "--job", "over16",
                                   "--start-window", "1", "--processes", "1"},
                                  [&] {
                                      if (missing_seen) return;
                                      for (const auto f : findings(nam, collector->url(), "over16"))
                                          if (f.toObject().value("kind").toString() == "missing_rank")
                                              missing_seen = true;
                                  });
        QVERIFY2(run.exit_code == 0, run.err.constData());
        const QJsonObject summary = last_json_line(run.out);
        QCOMPARE(summary.value("ranks").toInt(), 64);
        QCOMPARE(summary.value("ready_acked").toInt(), 64);
        QCOMPARE(summary.value("ranks_never_ready").toInt(), 0);
        QVERIFY(summary.value("refusals").toInt() >= 1);  // 48 ranks could not all get in at once
        QVERIFY(missing_seen);
        const QString job = collector->url() + "/api/v1/jobs/over16";
        QCOMPARE(test::http(nam, "GET", job).json().value("ranks_seen").toInt(), 64);
        // The monitor ticks once a second: the missing list is rebuilt from the ranks seen.
        QTRY_VERIFY_WITH_TIMEOUT(findings(nam, collector->url(), "over16").isEmpty(), 15000);
        QCOMPARE(test::http(nam, "GET", job).json().value("findings").toInt(), 0);
    }
};

QTEST_GUILESS_MAIN(TstRelayEndToEnd)
#include "tst_relay_end_to_end.moc"
