// Each event is stored once (docs/collector.md, "History"): a copy of an event already stored (the same job, rank,
// phase, status, sender's ts, host and pid), as a rank's retry or an OpenTelemetry agent's resend brings it, is
// answered as stored, not stored again, not seen twice by the monitor, and counted in
// meshscope_events_duplicate_total; by every ingest path (POST /api/v1/events, POST /v1/logs, POST /api/v1/batches)
// and across a restart on the same database.
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

#include <sqlite3.h>

#include "collector_fixture.h"
#include "server_test_support.h"

namespace {
// One lifecycle event of rank 0 of a two-rank job, from host n0, pid 7 (unless given), at ts.
struct Sent {
    const char* phase;
    const char* status;
    double ts;
    int pid = 7;
};

QByteArray event_json(const QString& job, const Sent& e) {
    return QJsonDocument(QJsonObject{{"job", job},
                                     {"rank", 0},
                                     {"world_size", 2},
                                     {"phase", e.phase},
                                     {"status", e.status},
                                     {"ts", e.ts},
                                     {"host", "n0"},
                                     {"pid", e.pid}})
        .toJson(QJsonDocument::Compact);
}

QJsonObject attribute(const char* key, const QJsonObject& value) {
    return QJsonObject{{"key", key}, {"value", value}};
}

// An ExportLogsServiceRequest: one resource (the rank) per event, its ts as timeUnixNano (docs/protocol.md, "OTLP
// logs"). The ts values below are whole milliseconds, exact in nanoseconds.
QByteArray otlp_body(const QString& job, const QList<Sent>& events) {
    QJsonArray resources;
    for (const Sent& e : events) {
        const QJsonArray resource{
            attribute("meshscope.job", {{"stringValue", job}}), attribute("meshscope.rank", {{"intValue", "0"}}),
            attribute("meshscope.world_size", {{"intValue", "2"}}), attribute("host.name", {{"stringValue", "n0"}}),
            attribute("process.pid", {{"intValue", QString::number(e.pid)}})};
        const QJsonObject record{
            {"timeUnixNano", QString::number(static_cast<qint64>(e.ts * 1000)) + "000000"},
            {"attributes", QJsonArray{attribute("meshscope.phase", {{"stringValue", e.phase}}),
                                      attribute("meshscope.status", {{"stringValue", e.status}})}}};
        resources.append(QJsonObject{{"resource", QJsonObject{{"attributes", resource}}},
                                     {"scopeLogs", QJsonArray{QJsonObject{{"logRecords", QJsonArray{record}}}}}});
    }
    return QJsonDocument(QJsonObject{{"resourceLogs", resources}}).toJson(QJsonDocument::Compact);
}

// Posts the events as one request of `protocol` (meshscope, otlp, batch: a relay's batch of one body) and returns
// the HTTP status, or -1 when a batch's own result was not 200.
int post(QNetworkAccessManager& nam, const QString& url, const QString& protocol, const QString& job,
         const QList<Sent>& events) {
    QByteArray array = "[";
    for (const Sent& e : events) array += (array.size() > 1 ? "," : "") + event_json(job, e);
    array += "]";
    if (protocol == "otlp") return test::http(nam, "POST", url + "/v1/logs", otlp_body(job, events)).status;
    if (protocol == "meshscope") return test::http(nam, "POST", url + "/api/v1/events", array).status;
    const QByteArray batch =
        QJsonDocument(QJsonObject{{"bodies", QJsonArray{QString::fromUtf8(array)}}}).toJson(QJsonDocument::Compact);
    const auto reply = test::http(nam, "POST", url + "/api/v1/batches", batch);
    if (reply.status != 200) return reply.status;
    return reply.json().value("results").toArray().at(0).toObject().value("status").toInt() == 200 ? 200 : -1;
}

// Rows of the history's events table for `job` (read as another process would).
int history_rows(const QString& database, const QString& job) {
    sqlite3* db = nullptr;
    sqlite3_stmt* stmt = nullptr;
    int rows = -1;
    if (sqlite3_open_v2(database.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM events WHERE job = ?1", -1, &stmt, nullptr) == SQLITE_OK) {
        const QByteArray name = job.toUtf8();
        sqlite3_bind_text(stmt, 1, name.constData(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
        if (sqlite3_step(stmt) == SQLITE_ROW) rows = sqlite3_column_int(stmt, 0);
    }
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return rows;
}

// A counter of GET /metrics, -1 when absent.
qint64 metric(QNetworkAccessManager& nam, const QString& url, const QByteArray& name) {
    const QByteArray text = test::http(nam, "GET", url + "/metrics").body;
    for (const QByteArray& line : text.split('\n'))
        if (line.startsWith(name + " ")) return line.mid(name.size() + 1).toLongLong();
    return -1;
}

// How many events the monitor ingested for rank 0 of the job.
int monitor_events(QNetworkAccessManager& nam, const QString& url, const QString& job) {
    return test::http(nam, "GET", url + "/api/v1/jobs/" + job + "/ranks/0").json().value("events").toInt(-1);
}

void protocols() {
    QTest::addColumn<QString>("protocol");
    QTest::newRow("POST /api/v1/events") << "meshscope";
    QTest::newRow("POST /v1/logs") << "otlp";
    QTest::newRow("POST /api/v1/batches") << "batch";
}
}  // namespace

class TestEventOnce : public QObject {
    Q_OBJECT
private slots:
    // The same event twice (the answer to the first was lost): both answered 200, one row, one event in the monitor,
    // the copy counted once.
    void a_copy_is_answered_and_not_stored_again_data() { protocols(); }
    void a_copy_is_answered_and_not_stored_again() {
        QFETCH(QString, protocol);
        auto s = test::start_collector();
        QVERIFY(s);
        QNetworkAccessManager nam;
        const QList<Sent> launch{{"launch", "started", 1765000000.25}};
        QCOMPARE(post(nam, s->url, protocol, "once", launch), 200);
        QCOMPARE(post(nam, s->url, protocol, "once", launch), 200);
        QCOMPARE(history_rows(s->database(), "once"), 1);
        QCOMPARE(metric(nam, s->url, "meshscope_events_duplicate_total"), qint64{1});
        QCOMPARE(metric(nam, s->url, "meshscope_events_stored_total"), qint64{1});
        QCOMPARE(s->service->collector().stats().events_duplicate, std::int64_t{1});
        QCOMPARE(monitor_events(nam, s->url, "once"), 1);
    }

    // POST /api/v1/events says how many of the events it acknowledges it already had: nothing for a new request,
    // "duplicates": 2 for a retry that carries two stored events and a new one.
    void the_answer_counts_the_copies() {
        auto s = test::start_collector();
        QVERIFY(s);
        QNetworkAccessManager nam;
        const QByteArray started = event_json("answer", {"launch", "started", 1765000000.25});
        const QByteArray done = event_json("answer", {"launch", "done", 1765000001.5});
        const QByteArray group = event_json("answer", {"process_group", "done", 1765000002.75});
        const auto first = test::http(nam, "POST", s->url + "/api/v1/events", "[" + started + "," + done + "]");
        QCOMPARE(first.status, 200);
        QCOMPARE(first.body, QByteArray(R"({"accepted":2})"));
        const auto retry =
            test::http(nam, "POST", s->url + "/api/v1/events", "[" + started + "," + done + "," + group + "]");
        QCOMPARE(retry.status, 200);
        QCOMPARE(retry.body, QByteArray(R"({"accepted":3,"duplicates":2})"));
    }

    // Two copies in one request (a reporter that queued its event twice): the first is stored, the second counted.
    void a_copy_in_the_same_request_data() { protocols(); }
    void a_copy_in_the_same_request() {
        QFETCH(QString, protocol);
        auto s = test::start_collector();
        QVERIFY(s);
        QNetworkAccessManager nam;
        QCOMPARE(post(nam, s->url, protocol, "twice",
                      {{"launch", "started", 1765000000.25}, {"launch", "started", 1765000000.25}}),
                 200);
        QCOMPARE(history_rows(s->database(), "twice"), 1);
        QCOMPARE(metric(nam, s->url, "meshscope_events_duplicate_total"), qint64{1});
        QCOMPARE(monitor_events(nam, s->url, "twice"), 1);
    }

    // A retried request with one new event behind two already stored (the reporters resend a request's lifecycle
    // events with what came due since): only the new one is stored, and the monitor sees three events.
    void a_retry_stores_only_the_new_event_data() { protocols(); }
    void a_retry_stores_only_the_new_event() {
        QFETCH(QString, protocol);
        auto s = test::start_collector();
        QVERIFY(s);
        QNetworkAccessManager nam;
        const Sent started{"launch", "started", 1765000000.25};
        const Sent done{"launch", "done", 1765000001.5};
        const Sent group{"process_group", "done", 1765000002.75};
        QCOMPARE(post(nam, s->url, protocol, "retry", {started, done}), 200);
        QCOMPARE(post(nam, s->url, protocol, "retry", {started, done, group}), 200);
        QCOMPARE(history_rows(s->database(), "retry"), 3);
        QCOMPARE(metric(nam, s->url, "meshscope_events_duplicate_total"), qint64{2});
        QCOMPARE(metric(nam, s->url, "meshscope_events_stored_total"), qint64{3});
        QCOMPARE(monitor_events(nam, s->url, "retry"), 3);
    }

    // What is not a copy: another ts (a later event of the same phase), another pid (a second process claiming the
    // rank: duplicate_rank must still see it). Each is stored.
    void another_event_is_not_a_copy_data() {
        QTest::addColumn<double>("ts");
        QTest::addColumn<int>("pid");
        QTest::addColumn<QString>("finding");  // a finding kind the job must have, or empty
        QTest::newRow("later ts") << 1765000000.5 << 7 << "";
        QTest::newRow("other pid") << 1765000000.25 << 8 << "duplicate_rank";
    }
    void another_event_is_not_a_copy() {
        QFETCH(double, ts);
        QFETCH(int, pid);
        QFETCH(QString, finding);
        auto s = test::start_collector();
        QVERIFY(s);
        QNetworkAccessManager nam;
        QCOMPARE(post(nam, s->url, "meshscope", "other", {{"launch", "started", 1765000000.25}}), 200);
        QCOMPARE(post(nam, s->url, "meshscope", "other", {{"launch", "started", ts, pid}}), 200);
        QCOMPARE(history_rows(s->database(), "other"), 2);
        QCOMPARE(metric(nam, s->url, "meshscope_events_duplicate_total"), qint64{0});
        if (finding.isEmpty()) return;
        const auto findings =
            test::http(nam, "GET", s->url + "/api/v1/jobs/other/findings").json().value("findings").toArray();
        QCOMPARE(findings.size(), 1);
        QCOMPARE(findings[0].toObject().value("kind").toString(), finding);
    }

    // The copy arrives after the collector restarted on the same database: still one row, and the rebuilt monitor
    // holds the event once.
    void a_copy_after_a_restart_data() { protocols(); }
    void a_copy_after_a_restart() {
        QFETCH(QString, protocol);
        QTemporaryDir dir;
        test::CollectorConfig config;
        config.database = dir.filePath("history.db");
        const QList<Sent> ready{{"ready", "done", 1765000010.125}};
        {
            auto s = test::start_collector(config);
            QVERIFY(s);
            QNetworkAccessManager nam;
            QCOMPARE(post(nam, s->url, protocol, "restart", ready), 200);
        }
        auto s = test::start_collector(config);
        QVERIFY(s);
        QNetworkAccessManager nam;
        QCOMPARE(post(nam, s->url, protocol, "restart", ready), 200);
        QCOMPARE(history_rows(config.database, "restart"), 1);
        QCOMPARE(metric(nam, s->url, "meshscope_events_duplicate_total"), qint64{1});
        QCOMPARE(metric(nam, s->url, "meshscope_events_stored_total"), qint64{0});
        QCOMPARE(monitor_events(nam, s->url, "restart"), 1);
    }
};

QTEST_GUILESS_MAIN(TestEventOnce)
#include "tst_event_once.moc"
