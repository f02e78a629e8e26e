// The collector's HTTP API in-process (CollectorService on a free loopback port): the shapes of its
// answers, the bad-input corpus (each gets its 4xx and the server keeps serving), the token, the limits
// (body size, connections, read timeout) and the WebSocket change stream.
#include <QJsonArray>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QWebSocket>

#include "collector_fixture.h"
#include "server_test_support.h"

using meshscope::server::CollectorService;

namespace {
const QByteArray good =
    R"({"job":"api","rank":0,"world_size":4,"phase":"launch","status":"started","host":"n0","pid":1})";

std::unique_ptr<test::RunningCollector> start(QByteArray token = {}, std::size_t max_connections = 64,
                                              int read_timeout_ms = 10000) {
    test::CollectorConfig config;
    config.token = std::move(token);
    config.max_connections = max_connections;
    config.read_timeout_ms = read_timeout_ms;
    return test::start_collector(config);
}
}  // namespace

class TestCollectorApi : public QObject {
    Q_OBJECT
private slots:
    void accepts_every_body_form_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("accepted");
        QTest::addRow("one event") << good << 1;
        QTest::addRow("array") << QByteArray("[" + good + "," + QByteArray(good).replace("\"rank\":0", "\"rank\":1") +
                                             "]")
                               << 2;
        QTest::addRow("ndjson") << QByteArray(good + "\n" + QByteArray(good).replace("\"rank\":0", "\"rank\":2") + "\n")
                                << 2;
    }
    void accepts_every_body_form() {
        QFETCH(QByteArray, body);
        QFETCH(int, accepted);
        auto s = start();
        QVERIFY(s);
        QNetworkAccessManager nam;
        const auto reply = test::http(nam, "POST", s->url + "/api/v1/events", body);
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.json().value("accepted").toInt(), accepted);
        // Acknowledged means stored and seen: the next query shows it.
        const auto jobs = test::http(nam, "GET", s->url + "/api/v1/jobs").json().value("jobs").toArray();
        QCOMPARE(jobs.size(), 1);
        QCOMPARE(jobs[0].toObject().value("job").toString(), QString("api"));
        QCOMPARE(jobs[0].toObject().value("ranks_seen").toInt(), accepted);
        QCOMPARE(jobs[0].toObject().value("world_size").toInt(), 4);
        const auto ranks = test::http(nam, "GET", s->url + "/api/v1/jobs/api/ranks").json().value("ranks").toArray();
        QCOMPARE(ranks.size(), 4);
        QCOMPARE(ranks[0].toObject().value("state").toString(), QString("initializing"));
        QCOMPARE(ranks[3].toObject().value("state").toString(), QString("pending"));
        const auto findings = test::http(nam, "GET", s->url + "/api/v1/jobs/api/findings").json();
        QVERIFY(findings.value("findings").isArray());
        QCOMPARE(test::http(nam, "GET", s->url + "/api/v1/jobs/api").json().value("job").toString(), QString("api"));
    }

    // Each bad body gets its 4xx with an {"error"} naming the problem; nothing of it is stored; the
    // server answers the next good request.
    void bad_input_corpus_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("mentions");
        QTest::addRow("malformed json") << QByteArray(R"({"job":"x","rank":)") << 400 << "";
        QTest::addRow("empty body") << QByteArray() << 400 << "";
        QTest::addRow("not an object") << QByteArray("42") << 400 << "";
        QTest::addRow("rank is a string")
            << QByteArray(good).replace("\"rank\":0", "\"rank\":\"0\"") << 400 << "\"rank\"";
        QTest::addRow("missing status") << QByteArray(R"({"job":"x","rank":0,"world_size":4,"phase":"launch"})") << 400
                                        << "\"status\"";
        QTest::addRow("missing job") << QByteArray(R"({"rank":0,"world_size":4,"phase":"launch","status":"done"})")
                                     << 400 << "\"job\"";
        QTest::addRow("negative rank") << QByteArray(good).replace("\"rank\":0", "\"rank\":-1") << 400 << "\"rank\"";
        QTest::addRow("huge rank") << QByteArray(good).replace("\"rank\":0", "\"rank\":99999999999999") << 400
                                   << "rank";
        QTest::addRow("huge world") << QByteArray(good).replace("\"world_size\":4", "\"world_size\":1e300") << 400
                                    << "world_size";
        QTest::addRow("unknown phase") << QByteArray(good).replace("\"launch\"", "\"lunch\"") << 400 << "\"phase\"";
        QTest::addRow("invalid utf-8") << QByteArray(good).replace("\"n0\"", "\"n\xff\xfe\"") << 400 << "";
        QTest::addRow("one bad event in an array") << QByteArray("[" + good + R"(,{"job":"x"}])") << 400 << "event 1";
        QTest::addRow("10 MB body") << QByteArray(10 * 1024 * 1024, ' ') << 413 << "larger than";
    }
    void bad_input_corpus() {
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        QFETCH(QString, mentions);
        auto s = start();
        QVERIFY(s);
        QNetworkAccessManager nam;
        const auto reply = test::http(nam, "POST", s->url + "/api/v1/events", body);
        QCOMPARE(reply.status, status);
        QVERIFY2(!reply.error().isEmpty(), reply.body.left(200).constData());
        QVERIFY2(reply.error().contains(mentions), qPrintable(reply.error()));
        QCOMPARE(s->service->collector().stats().events_stored, std::int64_t{0});
        QCOMPARE(test::http(nam, "POST", s->url + "/api/v1/events", good).status, 200);
    }

    void routes_data() {
        QTest::addColumn<QByteArray>("method");
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("status");
        QTest::addRow("unknown endpoint") << QByteArray("GET") << "/nope" << 404;
        QTest::addRow("GET on events") << QByteArray("GET") << "/api/v1/events" << 405;
        QTest::addRow("DELETE a job") << QByteArray("DELETE") << "/api/v1/jobs/api" << 405;
        QTest::addRow("unknown job") << QByteArray("GET") << "/api/v1/jobs/none" << 404;
        QTest::addRow("unknown job's ranks") << QByteArray("GET") << "/api/v1/jobs/none/ranks" << 404;
        QTest::addRow("unknown job view") << QByteArray("GET") << "/api/v1/jobs/api/other" << 404;
        QTest::addRow("stream without upgrade") << QByteArray("GET") << "/api/v1/stream" << 400;
        QTest::addRow("health") << QByteArray("GET") << "/api/v1/health" << 200;
    }
    void routes() {
        QFETCH(QByteArray, method);
        QFETCH(QString, path);
        QFETCH(int, status);
        auto s = start();
        QVERIFY(s);
        QNetworkAccessManager nam;
        QCOMPARE(test::http(nam, "POST", s->url + "/api/v1/events", good).status, 200);
        const auto reply = test::http(nam, method, s->url + path);
        QCOMPARE(reply.status, status);
        if (status != 200) QVERIFY(!reply.error().isEmpty());
    }

    void token_data() {
        QTest::addColumn<QByteArray>("sent");
        QTest::addColumn<int>("status");
        QTest::addRow("none") << QByteArray() << 401;
        QTest::addRow("wrong") << QByteArray("guess") << 401;
        QTest::addRow("right") << QByteArray("s3cret") << 200;
    }
    void token() {
        QFETCH(QByteArray, sent);
        QFETCH(int, status);
        auto s = start("s3cret");
        QVERIFY(s);
        QNetworkAccessManager nam;
        const auto post = test::http(nam, "POST", s->url + "/api/v1/events", good, sent);
        QCOMPARE(post.status, status);
        QCOMPARE(test::http(nam, "GET", s->url + "/api/v1/jobs", {}, sent).status, status);
        QCOMPARE(test::http(nam, "GET", s->url + "/metrics", {}, sent).status, status);
        if (status == 401) QCOMPARE(post.error(), QString("missing or wrong bearer token"));
    }

    // A client that sends half a request and stalls holds only its own connection.
    void slow_client_does_not_block_others() {
        auto s = start({}, 64, 1000);
        QVERIFY(s);
        const quint16 port = s->service->port();
        QTcpSocket stalled;
        stalled.connectToHost(QHostAddress::LocalHost, port);
        QVERIFY(stalled.waitForConnected(5000));
        stalled.write("POST /api/v1/events HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n{\"job\":");
        QVERIFY(stalled.waitForBytesWritten(5000));
        QTcpSocket idle;  // connects and sends nothing at all
        idle.connectToHost(QHostAddress::LocalHost, port);
        QVERIFY(idle.waitForConnected(5000));

        QNetworkAccessManager nam;
        QElapsedTimer clock;
        clock.start();
        for (int i = 0; i < 5; ++i) QCOMPARE(test::http(nam, "POST", s->url + "/api/v1/events", good).status, 200);
        QVERIFY2(clock.elapsed() < 900, qPrintable(QString::number(clock.elapsed())));

        // The stalled request is answered 408 once its read timeout passes, then closed.
        QByteArray answer;
        QVERIFY(test::eventually(
            [&] {
                if (stalled.bytesAvailable() || stalled.waitForReadyRead(50)) answer += stalled.readAll();
                return answer.startsWith("HTTP/1.1 408");
            },
            5000, 10));
    }

    void connection_limit() {
        auto s = start({}, 2);
        QVERIFY(s);
        const quint16 port = s->service->port();
        QTcpSocket a, b;
        a.connectToHost(QHostAddress::LocalHost, port);
        b.connectToHost(QHostAddress::LocalHost, port);
        QVERIFY(a.waitForConnected(5000) && b.waitForConnected(5000));
        QTest::qWait(200);
        const auto third = test::raw_http(port, "GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n");
        QCOMPARE(third.status, 503);
        a.close();
        b.close();
        QVERIFY(test::eventually(
            [&] {
                return test::raw_http(port, "GET /api/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                           .status == 200;
            },
            5000));
    }

    void metrics() {
        auto s = start();
        QVERIFY(s);
        QNetworkAccessManager nam;
        QCOMPARE(test::http(nam, "POST", s->url + "/api/v1/events", good).status, 200);
        const auto text = QString::fromUtf8(test::http(nam, "GET", s->url + "/metrics").body);
        QVERIFY(text.contains("\nmeshscope_events_ingested_total 1\n"));
        QVERIFY(text.contains("meshscope_ranks{job=\"api\",state=\"initializing\"} 1\n"));
        QVERIFY(text.contains("meshscope_ranks{job=\"api\",state=\"pending\"} 3\n"));
        QVERIFY(text.contains("meshscope_findings{job=\"api\",kind=\"straggler\"} 0\n"));
        QVERIFY(text.contains("meshscope_store_commit_seconds_count 1\n"));
    }

    void websocket_stream() {
        auto s = start();
        QVERIFY(s);
        QWebSocket socket;
        QStringList messages;
        connect(&socket, &QWebSocket::textMessageReceived, this, [&](const QString& m) { messages << m; });
        socket.open(QUrl(QStringLiteral("ws://127.0.0.1:%1/api/v1/stream").arg(s->service->port())));
        QVERIFY(test::eventually([&] { return !messages.isEmpty(); }, 5000));
        QVERIFY(messages[0].contains("hello"));
        QNetworkAccessManager nam;
        QCOMPARE(test::http(nam, "POST", s->url + "/api/v1/events", good).status, 200);
        QVERIFY(test::eventually([&] { return messages.join('\n').contains("\"rank_changed\""); }, 5000));
        QVERIFY(messages.join('\n').contains("\"job_added\""));
        QVERIFY(messages[1].startsWith(R"({"type":"changes","changes":[)"));  // batched (tst_collector_scale)
    }
};

QTEST_GUILESS_MAIN(TestCollectorApi)
#include "tst_collector_api.moc"
