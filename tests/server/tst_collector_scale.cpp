// What docs/live-at-scale.md adds to the collector's API, in-process (CollectorService on a free loopback
// port) and through `meshscope serve`: the connection limit's 503, load shedding by watermarks (a shed
// heartbeat still keeps its rank alive), ranks pages and one rank with its groups, the stream's batched
// {"type":"changes"} messages, POST /api/v1/batches, chunked bodies, the header limit and the stream's token.
#include <QJsonArray>
#include <QTest>
#include <QWebSocket>

#include <sqlite3.h>

#include "collector_fixture.h"
#include "server_test_support.h"
#include "test_events.h"

namespace {
QByteArray rank_event(int rank, const char* phase, const char* status = "started", int world = 4) {
    return QByteArray::fromStdString(meshscope::test::line(meshscope::test::event(
        "api", rank, world, meshscope::parse_phase(phase).value(), meshscope::parse_status(status).value())));
}
const QByteArray heartbeat0 = rank_event(0, "heartbeat", "done");

QString ranks_of(const QJsonArray& ranks) {
    QStringList out;
    for (const auto& r : ranks) out << QString::number(r.toObject().value("rank").toInt());
    return out.join(',');
}

QString rank_state(QNetworkAccessManager& nam, const QString& url, int rank) {
    return test::http(nam, "GET", url + "/api/v1/jobs/api/ranks/" + QString::number(rank))
        .json()
        .value("state")
        .toString();
}

const QByteArray upgrade_head =
    "Host: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    "Sec-WebSocket-Version: 13\r\n\r\n";
}  // namespace

class TestCollectorScale : public QObject {
    Q_OBJECT
private slots:
    // `meshscope serve --max-connections 4`: a fifth connection is accepted, answered 503 with
    // Retry-After: 2 and closed; once one of the four leaves, a new one is served.
    void connection_limit_answers_503() {
        test::ServeProcess serve({"--max-connections", "4", "--db", dir_.filePath("limit.db")});
        QVERIFY2(serve.port() != 0, serve.errors().constData());
        std::vector<std::unique_ptr<QTcpSocket>> held;
        for (int i = 0; i < 4; ++i) {
            auto socket = std::make_unique<QTcpSocket>();
            socket->connectToHost(QHostAddress::LocalHost, serve.port());
            QVERIFY(socket->waitForConnected(5000));
            socket->write("GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");  // kept alive afterwards
            QVERIFY(socket->waitForReadyRead(5000));
            QVERIFY(socket->readAll().startsWith("HTTP/1.1 200"));
            held.push_back(std::move(socket));
        }
        const auto fifth = test::raw_http(serve.port(), "GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        QCOMPARE(fifth.status, 503);
        QCOMPARE(fifth.header("Retry-After"), QByteArray("2"));
        QCOMPARE(fifth.error(), QString("too many connections"));
        held.front()->close();
        QVERIFY(test::eventually([&] {
            return test::raw_http(serve.port(),
                                  "GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                       .status == 200;
        }));
    }

    // The watermarks compare with the events accepted but not yet committed and ingested; with nothing in
    // flight that count is 0, so a watermark of 0 is always reached and 1 never is.
    void shedding_data() {
        QTest::addColumn<int>("heartbeat_shed_at");
        QTest::addColumn<int>("shed_all_at");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QByteArray>("retry_after");
        QTest::addColumn<QString>("error");
        const QString busy_heartbeat = "collector busy: heartbeat not stored";
        const QString busy = "collector busy: try again later";
        QTest::addRow("heartbeat below the low watermark") << 1 << 10 << heartbeat0 << 200 << QByteArray() << "";
        QTest::addRow("heartbeat at the low watermark")
            << 0 << 10 << heartbeat0 << 503 << QByteArray("5") << busy_heartbeat;
        QTest::addRow("heartbeats only") << 0 << 10
                                         << QByteArray(heartbeat0 + "\n" + rank_event(1, "heartbeat", "done")) << 503
                                         << QByteArray("5") << busy_heartbeat;
        QTest::addRow("lifecycle at the low watermark")
            << 0 << 10 << rank_event(0, "launch") << 200 << QByteArray() << "";
        QTest::addRow("lifecycle with a heartbeat")
            << 0 << 10 << QByteArray("[" + rank_event(0, "launch") + "," + heartbeat0 + "]") << 200 << QByteArray()
            << "";
        QTest::addRow("bad body at the low watermark") << 0 << 10 << QByteArray("{") << 400 << QByteArray() << "";
        QTest::addRow("lifecycle at the high watermark")
            << 0 << 0 << rank_event(0, "launch") << 503 << QByteArray("1") << busy;
        QTest::addRow("heartbeat at the high watermark") << 0 << 0 << heartbeat0 << 503 << QByteArray("1") << busy;
    }
    void shedding() {
        QFETCH(int, heartbeat_shed_at);
        QFETCH(int, shed_all_at);
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        QFETCH(QByteArray, retry_after);
        QFETCH(QString, error);
        test::CollectorConfig config;
        config.shedding.heartbeat_shed_at = heartbeat_shed_at;
        config.shedding.shed_all_at = shed_all_at;
        auto s = test::start_collector(config);
        QVERIFY(s);
        QNetworkAccessManager nam;
        const auto reply = test::http(nam, "POST", s->url + "/api/v1/events", body);
        QCOMPARE(reply.status, status);
        QCOMPARE(reply.header("Retry-After"), retry_after);
        if (!error.isEmpty()) QCOMPARE(reply.error(), error);
        QCOMPARE(s->service->collector().stats().bodies_shed, std::int64_t{status == 503 ? 1 : 0});
    }

    // A real backlog: the store is blocked (another connection holds SQLite's write lock), so one
    // lifecycle event waits uncommitted; with the low watermark at 1 the next heartbeat is shed, the
    // lifecycle event is still stored once the lock goes.
    void heartbeat_shed_while_store_is_blocked() {
        test::CollectorConfig config;
        config.shedding.heartbeat_shed_at = 1;
        auto s = test::start_collector(config);
        QVERIFY(s);
        QNetworkAccessManager nam;
        QCOMPARE(test::http(nam, "POST", s->url + "/api/v1/events", rank_event(0, "launch")).status, 200);

        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(s->database().toUtf8().constData(), &db), SQLITE_OK);
        QCOMPARE(sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
        QNetworkRequest request{QUrl(s->url + "/api/v1/events")};
        request.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
        QNetworkReply* waiting = nam.post(request, rank_event(1, "launch"));
        QVERIFY(test::eventually([&] { return s->service->collector().stats().events_pending == 1; }, 4000, 10));

        const auto shed = test::http(nam, "POST", s->url + "/api/v1/events", heartbeat0);
        sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
        sqlite3_close(db);
        QCOMPARE(shed.status, 503);
        QCOMPARE(shed.header("Retry-After"), QByteArray("5"));
        QCOMPARE(shed.error(), QString("collector busy: heartbeat not stored"));
        QVERIFY(test::eventually([&] { return waiting->isFinished(); }));
        QCOMPARE(waiting->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
        waiting->deleteLater();
        QCOMPARE(s->service->collector().stats().events_pending, std::int64_t{0});
        QCOMPARE(test::http(nam, "POST", s->url + "/api/v1/events", heartbeat0).status, 200);  // nothing pending
    }

    // A shed heartbeat is proof of life: rank 0 keeps heartbeating (every one shed) and stays ready while
    // rank 1, silent, goes stale.
    void shed_heartbeats_keep_the_rank_alive() {
        test::CollectorConfig config;
        config.shedding.heartbeat_shed_at = 0;
        config.stale_after = 2;
        config.tick_interval = 0.05;
        auto s = test::start_collector(config);
        QVERIFY(s);
        QNetworkAccessManager nam;
        QCOMPARE(test::http(nam, "POST", s->url + "/api/v1/events",
                            rank_event(0, "ready", "done") + "\n" + rank_event(1, "ready", "done"))
                     .status,
                 200);
        QVERIFY(test::eventually(
            [&] {
                if (test::http(nam, "POST", s->url + "/api/v1/events", heartbeat0).status != 503) return false;
                return rank_state(nam, s->url, 1) == "stale";
            },
            20000));
        QCOMPARE(rank_state(nam, s->url, 0), QString("ready"));
        const auto findings = test::http(nam, "GET", s->url + "/api/v1/jobs/api/findings").json()["findings"].toArray();
        QJsonArray stale;
        for (const auto& f : findings)
            if (f.toObject()["kind"].toString() == "stale_rank") stale = f.toObject()["ranks"].toArray();
        QCOMPARE(stale, QJsonArray({1}));
        QCOMPARE(s->service->collector().stats().events_stored, std::int64_t{2});  // no heartbeat stored
    }

    void ranks_pages_data() {
        QTest::addColumn<QString>("query");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("ranks");  // or the error
        QTest::addRow("every rank") << "" << 200 << "0,1,2,3";
        QTest::addRow("offset and limit") << "?offset=1&limit=2" << 200 << "1,2";
        QTest::addRow("offset only") << "?offset=3" << 200 << "3";
        QTest::addRow("limit only") << "?limit=1" << 200 << "0";
        QTest::addRow("limit past the end") << "?offset=2&limit=100" << 200 << "2,3";
        QTest::addRow("offset at the end") << "?offset=4" << 200 << "";
        QTest::addRow("offset past the end") << "?offset=99&limit=5" << 200 << "";
        QTest::addRow("limit 0") << "?limit=0" << 200 << "";
        QTest::addRow("negative offset") << "?offset=-1" << 400 << R"(offset must be a whole number >= 0, got "-1")";
        QTest::addRow("fractional offset")
            << "?offset=1.5" << 400 << R"(offset must be a whole number >= 0, got "1.5")";
        QTest::addRow("word limit") << "?limit=ten" << 400 << R"(limit must be a whole number >= 0, got "ten")";
        QTest::addRow("empty limit") << "?limit=" << 400 << R"(limit must be a whole number >= 0, got "")";
        QTest::addRow("plus sign") << "?limit=%2B2" << 400 << R"(limit must be a whole number >= 0, got "+2")";
    }
    void ranks_pages() {
        QFETCH(QString, query);
        QFETCH(int, status);
        QFETCH(QString, ranks);
        auto s = test::start_collector();
        QVERIFY(s);
        QNetworkAccessManager nam;
        QCOMPARE(
            test::http(nam, "POST", s->url + "/api/v1/events", rank_event(0, "launch") + "\n" + rank_event(2, "launch"))
                .status,
            200);
        const auto reply = test::http(nam, "GET", s->url + "/api/v1/jobs/api/ranks" + query);
        QCOMPARE(reply.status, status);
        if (status != 200) {
            QCOMPARE(reply.error(), ranks);
            return;
        }
        QCOMPARE(ranks_of(reply.json()["ranks"].toArray()), ranks);
        QCOMPARE(reply.json()["total"].toInt(), 4);
    }

    // The cached rows follow the monitor: a rank that changed after the last request is served anew.
    void ranks_page_follows_changes() {
        auto s = test::start_collector();
        QVERIFY(s);
        QNetworkAccessManager nam;
        QCOMPARE(test::http(nam, "POST", s->url + "/api/v1/events", rank_event(0, "launch")).status, 200);
        const auto before = test::http(nam, "GET", s->url + "/api/v1/jobs/api/ranks").json()["ranks"].toArray();
        QCOMPARE(before[1].toObject()["state"].toString(), QString("pending"));
        QCOMPARE(test::http(nam, "POST", s->url + "/api/v1/events", rank_event(1, "ready", "done")).status, 200);
        const auto after = test::http(nam, "GET", s->url + "/api/v1/jobs/api/ranks?offset=1&limit=1").json();
        QCOMPARE(after["ranks"].toArray()[0].toObject()["state"].toString(), QString("ready"));
        QCOMPARE(after["ranks"].toArray()[0].toObject()["phase"].toString(), QString("ready"));
        // A larger world declared later grows the list.
        QCOMPARE(test::http(nam, "POST", s->url + "/api/v1/events", rank_event(5, "launch", "started", 8)).status, 200);
        QVERIFY(test::http(nam, "GET", s->url + "/api/v1/jobs/api/ranks").json()["total"].toInt() >= 6);
    }

    void one_rank_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("expected");  // the state, or the error
        QTest::addRow("reported rank") << "/api/v1/jobs/api/ranks/0" << 200 << "initializing";
        QTest::addRow("pending rank") << "/api/v1/jobs/api/ranks/3" << 200 << "pending";
        QTest::addRow("beyond the world") << "/api/v1/jobs/api/ranks/9" << 404 << R"(no rank 9 in job "api")";
        QTest::addRow("not a number") << "/api/v1/jobs/api/ranks/x" << 400
                                      << R"(rank must be a whole number >= 0, got "x")";
        QTest::addRow("negative") << "/api/v1/jobs/api/ranks/-1" << 400
                                  << R"(rank must be a whole number >= 0, got "-1")";
        QTest::addRow("unknown job") << "/api/v1/jobs/none/ranks/0" << 404 << R"(no job named "none")";
        QTest::addRow("deeper") << "/api/v1/jobs/api/ranks/0/x" << 404 << "no such endpoint";
    }
    void one_rank() {
        QFETCH(QString, path);
        QFETCH(int, status);
        QFETCH(QString, expected);
        auto s = test::start_collector();
        QVERIFY(s);
        QNetworkAccessManager nam;
        const QByteArray grouped =
            R"({"job":"api","rank":0,"world_size":4,"phase":"parallel_state","status":"done","groups":{"ep":[1,0],"dp":[0,2]}})";
        QCOMPARE(test::http(nam, "POST", s->url + "/api/v1/events", grouped).status, 200);
        const auto reply = test::http(nam, "GET", s->url + path);
        QCOMPARE(reply.status, status);
        if (status != 200) {
            QCOMPARE(reply.error(), expected);
            return;
        }
        QCOMPARE(reply.json()["state"].toString(), expected);
        if (path.endsWith("/0")) {
            QCOMPARE(reply.json()["rank"].toInt(), 0);
            QCOMPARE(reply.json()["groups"].toObject()["ep"].toArray(), QJsonArray({0, 1}));
            QCOMPARE(reply.json()["groups"].toObject()["dp"].toArray(), QJsonArray({0, 2}));
            // The list leaves groups out.
            const auto list = test::http(nam, "GET", s->url + "/api/v1/jobs/api/ranks?limit=1").json()["ranks"];
            QVERIFY(!list.toArray()[0].toObject().contains("groups"));
        }
    }

    // One body moving rank 0 through three phases and rank 1 through one: every subscriber gets the same
    // single {"type":"changes"} message, rank 0 in it once, with its last phase.
    void stream_batches_and_collapses() {
        auto s = test::start_collector();
        QVERIFY(s);
        QWebSocket first, second;
        QStringList a, b;
        connect(&first, &QWebSocket::textMessageReceived, this, [&](const QString& m) { a << m; });
        connect(&second, &QWebSocket::textMessageReceived, this, [&](const QString& m) { b << m; });
        const QUrl stream(QStringLiteral("ws://127.0.0.1:%1/api/v1/stream").arg(s->port()));
        first.open(stream);
        second.open(stream);
        QVERIFY(test::eventually([&] { return a.size() == 1 && b.size() == 1; }, 5000, 10));
        // hello (a fresh collector has sent no message yet: seq 0), then the numbered changes.
        const auto hello = QJsonDocument::fromJson(a[0].toUtf8()).object();
        QCOMPARE(hello.keys(), QStringList({"epoch", "protocol", "seq", "type"}));
        QCOMPARE(hello["type"].toString(), QString("hello"));
        QCOMPARE(hello["protocol"].toString(), QString("meshscope.stream/1"));
        QCOMPARE(hello["seq"].toInteger(), 0);
        QCOMPARE(b[0], a[0]);
        QNetworkAccessManager nam;
        const QByteArray body = rank_event(0, "launch") + "\n" + rank_event(0, "process_group") + "\n" +
                                rank_event(0, "device_mesh") + "\n" + rank_event(1, "launch");
        QCOMPARE(test::http(nam, "POST", s->url + "/api/v1/events", body).status, 200);
        QVERIFY(test::eventually([&] { return a.size() >= 2 && b.size() >= 2; }, 5000, 10));
        // Nothing else may follow from that body: a marker body (rank 2) comes after anything it could still
        // send, and its own message must be the next one and hold rank 2 alone.
        QCOMPARE(test::http(nam, "POST", s->url + "/api/v1/events", rank_event(2, "launch")).status, 200);
        QVERIFY(test::eventually([&] { return a.size() >= 3 && b.size() >= 3; }, 5000, 10));
        QCOMPARE(a.size(), 3);
        QCOMPARE(a[2], b[2]);
        QCOMPARE(
            QJsonDocument::fromJson(a[2].toUtf8()).object(),
            QJsonDocument::fromJson(
                R"({"type":"changes","seq":2,"changes":[{"type":"rank_changed","job":"api","rank":2,"state":"initializing","phase":"launch"}]})")
                .object());
        QCOMPARE(a[1], b[1]);
        const auto message = QJsonDocument::fromJson(a[1].toUtf8()).object();
        QCOMPARE(message["type"].toString(), QString("changes"));
        QStringList seen;
        for (const auto& c : message["changes"].toArray()) {
            const auto change = c.toObject();
            QString item = change["type"].toString();
            if (item == "rank_changed")
                item += QStringLiteral(" %1 %2").arg(change["rank"].toInt()).arg(change["phase"].toString());
            seen << item;
        }
        QCOMPARE(seen, QStringList({"job_added", "rank_changed 0 device_mesh", "rank_changed 1 launch"}));
    }

    void batches() {
        auto s = test::start_collector();
        QVERIFY(s);
        QNetworkAccessManager nam;
        const QByteArray bad = QByteArray(rank_event(5, "launch")).replace("\"rank\":5", "\"rank\":\"5\"");
        const auto alone = test::http(nam, "POST", s->url + "/api/v1/events", bad);
        QCOMPARE(alone.status, 400);
        QJsonObject batch;
        batch["bodies"] = QJsonArray({QString(rank_event(0, "launch")), QString(bad),
                                      QString(rank_event(1, "launch") + "\n" + rank_event(2, "launch"))});
        const auto reply =
            test::http(nam, "POST", s->url + "/api/v1/batches", QJsonDocument(batch).toJson(QJsonDocument::Compact));
        QCOMPARE(reply.status, 200);
        const auto results = reply.json()["results"].toArray();
        QCOMPARE(results.size(), 3);
        QCOMPARE(results[0].toObject(), QJsonObject({{"status", 200}, {"accepted", 1}}));
        QCOMPARE(results[1].toObject(), QJsonObject({{"status", 400}, {"error", alone.error()}}));
        QCOMPARE(results[2].toObject(), QJsonObject({{"status", 200}, {"accepted", 2}}));
        // Stored in one commit, and in the monitor before the answer.
        const auto jobs = test::http(nam, "GET", s->url + "/api/v1/jobs").json()["jobs"].toArray();
        QCOMPARE(jobs[0].toObject()["ranks_seen"].toInt(), 3);
        QVERIFY(QString::fromUtf8(test::http(nam, "GET", s->url + "/metrics").body)
                    .contains("\nmeshscope_store_commit_seconds_count 1\n"));
    }

    void batches_shed_only_heartbeats() {
        test::CollectorConfig config;
        config.shedding.heartbeat_shed_at = 0;
        auto s = test::start_collector(config);
        QVERIFY(s);
        QNetworkAccessManager nam;
        QJsonObject batch;
        batch["bodies"] = QJsonArray({QString(rank_event(0, "launch")), QString(heartbeat0)});
        const auto reply =
            test::http(nam, "POST", s->url + "/api/v1/batches", QJsonDocument(batch).toJson(QJsonDocument::Compact));
        QCOMPARE(reply.status, 200);
        const auto results = reply.json()["results"].toArray();
        QCOMPARE(results[0].toObject(), QJsonObject({{"status", 200}, {"accepted", 1}}));
        QCOMPARE(results[1].toObject(),
                 QJsonObject({{"status", 503}, {"error", "collector busy: heartbeat not stored"}, {"retry_after", 5}}));
    }

    // A relay names the ranks whose events it held back ("seen"): a known rank is not stale, a rank never
    // seen is not missing, and nothing is stored. Without the digests the same ranks are named.
    void batches_seen_keep_ranks_alive() {
        test::CollectorConfig config;
        config.stale_after = 1;
        config.missing_after = 1;
        config.tick_interval = 0.1;
        auto s = test::start_collector(config);
        QVERIFY(s);
        QNetworkAccessManager nam;
        QCOMPARE(test::http(nam, "POST", s->url + "/api/v1/events", rank_event(0, "launch", "done")).status, 200);
        const QByteArray digest = R"({"bodies":[],"seen":{"api":[0,2],"other-job":[7]}})";
        const auto findings = [&] {
            QStringList out;
            const auto job = test::http(nam, "GET", s->url + "/api/v1/jobs/api/findings").json();
            for (const auto& f : job["findings"].toArray()) {
                QStringList ranks;
                for (const auto& r : f.toObject()["ranks"].toArray()) ranks << QString::number(r.toInt());
                out << f.toObject()["kind"].toString() + ":[" + ranks.join(',') + "]";
            }
            return out.join(' ');
        };
        // World 4: rank 0 reported, rank 2 only reached a relay. Missing are 1 and 3; rank 0 is never stale
        // while the digests come (the other job, unknown here, is ignored).
        QVERIFY(test::eventually(
            [&] {
                const auto reply = test::http(nam, "POST", s->url + "/api/v1/batches", digest);
                if (reply.status != 200 || reply.json() != QJsonObject{{"results", QJsonArray()}}) return false;
                const QString now = findings();
                if (now.contains("stale_rank")) qFatal("stale while seen: %s", qPrintable(now));
                return now == "missing_rank:[1,3]";
            },
            15000, 200));
        QCOMPARE(rank_state(nam, s->url, 2), QString("pending"));
        QCOMPARE(test::http(nam, "GET", s->url + "/api/v1/jobs")
                     .json()["jobs"]
                     .toArray()[0]
                     .toObject()["ranks_seen"]
                     .toInt(),
                 1);
        // No more digests: rank 0 goes stale.
        QVERIFY(test::eventually([&] { return findings().contains("stale_rank:[0]"); }, 15000, 100));
    }

    void batches_refused_data() {
        QTest::addColumn<QByteArray>("method");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("error");
        const QString shape = R"(the body must be {"bodies": ["<request body>", ...]})";
        QTest::addRow("not json") << QByteArray("POST") << QByteArray("{") << 400 << shape;
        QTest::addRow("no bodies") << QByteArray("POST") << QByteArray(R"({"events":[]})") << 400 << shape;
        QTest::addRow("bodies not strings") << QByteArray("POST") << QByteArray(R"({"bodies":[{}]})") << 400 << shape;
        QTest::addRow("GET") << QByteArray("GET") << QByteArray() << 405 << "use POST";
        const QString seen = R"("seen" must be {"<job>": [<rank>, ...]})";
        QTest::addRow("seen not an object")
            << QByteArray("POST") << QByteArray(R"({"bodies":[],"seen":[1]})") << 400 << seen;
        QTest::addRow("seen ranks not a list")
            << QByteArray("POST") << QByteArray(R"({"bodies":[],"seen":{"j":3}})") << 400 << seen;
        QTest::addRow("seen rank negative")
            << QByteArray("POST") << QByteArray(R"({"bodies":[],"seen":{"j":[-1]}})") << 400 << seen;
        QTest::addRow("seen rank a string")
            << QByteArray("POST") << QByteArray(R"({"bodies":[],"seen":{"j":["1"]}})") << 400 << seen;
        QTest::addRow("seen job empty") << QByteArray("POST") << QByteArray(R"({"bodies":[],"seen":{"":[1]}})") << 400
                                        << seen;
        QTest::addRow("held rank a string") << QByteArray("POST") << QByteArray(R"({"bodies":[],"held":{"j":["1"]}})")
                                            << 400 << R"("held" must be {"<job>": [<rank>, ...]})";
    }
    void batches_refused() {
        QFETCH(QByteArray, method);
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        QFETCH(QString, error);
        auto s = test::start_collector();
        QVERIFY(s);
        QNetworkAccessManager nam;
        const auto reply = test::http(nam, method, s->url + "/api/v1/batches", body);
        QCOMPARE(reply.status, status);
        QCOMPARE(reply.error(), error);
        if (status == 405) QCOMPARE(reply.header("Allow"), QByteArray("POST"));
    }

    void chunked_body_data() {
        QTest::addColumn<QByteArray>("chunks");
        QTest::addColumn<int>("status");
        const QByteArray e = rank_event(0, "launch");
        const auto chunk = [](const QByteArray& data) {
            return QByteArray::number(data.size(), 16) + "\r\n" + data + "\r\n";
        };
        QTest::addRow("two chunks") << QByteArray(chunk(e.left(10)) + chunk(e.mid(10)) + "0\r\n\r\n") << 200;
        QTest::addRow("over the body limit")
            << QByteArray(chunk(QByteArray(700000, ' ')) + chunk(QByteArray(700000, ' ')) + "0\r\n\r\n") << 413;
    }
    void chunked_body() {
        QFETCH(QByteArray, chunks);
        QFETCH(int, status);
        auto s = test::start_collector();
        QVERIFY(s);
        const auto reply = test::raw_http(
            s->port(),
            "POST /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks);
        QCOMPARE(reply.status, status);
        if (status == 200) QCOMPARE(reply.json()["accepted"].toInt(), 1);
        if (status == 413) QCOMPARE(reply.error(), QString("request body larger than 1048576 bytes"));
    }

    void headers_over_the_limit() {
        auto s = test::start_collector();
        QVERIFY(s);
        const auto reply = test::raw_http(s->port(), "GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " +
                                                         QByteArray(70000, 'a') + "\r\n\r\n");
        QCOMPARE(reply.status, 431);
        QCOMPARE(reply.error(), QString("request headers larger than 65536 bytes"));
        QNetworkAccessManager nam;
        QCOMPARE(test::http(nam, "GET", s->url + "/api/v1/health").status, 200);  // still serving
    }

    void stream_token_data() {
        QTest::addColumn<QByteArray>("target");
        QTest::addColumn<QByteArray>("authorization");
        QTest::addColumn<int>("status");
        // None in the request: upgraded, the first message must carry it (tst_stream_resume).
        QTest::addRow("no token: first message") << QByteArray("/api/v1/stream") << QByteArray() << 101;
        QTest::addRow("wrong header token") << QByteArray("/api/v1/stream") << QByteArray("Bearer guess") << 401;
        QTest::addRow("wrong query token") << QByteArray("/api/v1/stream?token=guess") << QByteArray() << 401;
        QTest::addRow("query token") << QByteArray("/api/v1/stream?token=s3cret") << QByteArray() << 101;
        QTest::addRow("header token") << QByteArray("/api/v1/stream") << QByteArray("Bearer s3cret") << 101;
        QTest::addRow("query token elsewhere") << QByteArray("/api/v1/jobs?token=s3cret") << QByteArray() << 401;
    }
    void stream_token() {
        QFETCH(QByteArray, target);
        QFETCH(QByteArray, authorization);
        QFETCH(int, status);
        test::CollectorConfig config;
        config.token = "s3cret";
        auto s = test::start_collector(config);
        QVERIFY(s);
        const QByteArray auth = authorization.isEmpty() ? QByteArray() : "Authorization: " + authorization + "\r\n";
        const auto reply = test::raw_http(s->port(), "GET " + target + " HTTP/1.1\r\n" + auth + upgrade_head);
        QCOMPARE(reply.status, status);
        if (status == 401) {
            QCOMPARE(reply.header("WWW-Authenticate"), QByteArray("Bearer"));
            QCOMPARE(reply.error(), QString("missing or wrong bearer token"));
        }
    }

    void idle_connection_closes() {
        test::CollectorConfig config;
        config.idle_timeout_ms = 300;
        auto s = test::start_collector(config);
        QVERIFY(s);
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, s->port());
        QVERIFY(socket.waitForConnected(5000));
        socket.write("GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        QVERIFY(socket.waitForReadyRead(5000));
        QVERIFY(socket.readAll().startsWith("HTTP/1.1 200"));
        QVERIFY(test::eventually(
            [&] {
                socket.waitForReadyRead(50);
                return socket.state() == QAbstractSocket::UnconnectedState;
            },
            5000, 10));
        QVERIFY(test::eventually([&] { return s->service->server().open_connections() == 0; }, 5000, 10));
    }

private:
    QTemporaryDir dir_;
};

QTEST_GUILESS_MAIN(TestCollectorScale)
#include "tst_collector_scale.moc"
