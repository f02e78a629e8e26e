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

    // Each bad body gets its 4xx with an {"error"} saying exactly what is wrong (the texts of core
    // event_json.cpp and the HTTP layer, written out by hand); nothing of it is stored; the server answers the
    // next good request.
    void bad_input_corpus_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("error");
        QTest::addRow("malformed json") << QByteArray(R"({"job":"x","rank":)") << 400
                                        << "invalid JSON: parse error at line 1, column 19: syntax error while "
                                           "parsing value - unexpected end of input; expected '[', '{', or a literal";
        QTest::addRow("empty body") << QByteArray() << 400 << "the body holds no events";
        QTest::addRow("not an object") << QByteArray("42") << 400 << "event 0: must be a JSON object";
        QTest::addRow("rank is a string") << QByteArray(good).replace("\"rank\":0", "\"rank\":\"0\"") << 400
                                          << R"(event 0: field "rank" must be a non-negative integer)";
        QTest::addRow("missing status") << QByteArray(R"({"job":"x","rank":0,"world_size":4,"phase":"launch"})") << 400
                                        << R"(event 0: field "status" is required)";
        QTest::addRow("missing job") << QByteArray(R"({"rank":0,"world_size":4,"phase":"launch","status":"done"})")
                                     << 400 << R"(event 0: field "job" is required)";
        QTest::addRow("negative rank") << QByteArray(good).replace("\"rank\":0", "\"rank\":-1") << 400
                                       << R"(event 0: field "rank" must be a non-negative integer)";
        // The largest rank is max_world_size - 1 = 2^20 - 1.
        QTest::addRow("huge rank") << QByteArray(good).replace("\"rank\":0", "\"rank\":99999999999999") << 400
                                   << R"(event 0: field "rank" must be at most 1048575)";
        // 1e300 is a JSON float, not an integer.
        QTest::addRow("huge world") << QByteArray(good).replace("\"world_size\":4", "\"world_size\":1e300") << 400
                                    << R"(event 0: field "world_size" must be a positive integer)";
        QTest::addRow("unknown phase") << QByteArray(good).replace("\"launch\"", "\"lunch\"") << 400
                                       << R"(event 0: field "phase" must be one of launch, process_group, )"
                                          R"(device_mesh, parallel_state, communicator, ready, heartbeat, error, exit)";
        // The parser stops at the 0xFF after `"host":"n`, the 83rd byte of the body; the message shows it as <FF>.
        QTest::addRow("invalid utf-8") << QByteArray(good).replace("\"n0\"", "\"n\xff\xfe\"") << 400
                                       << "invalid JSON: parse error at line 1, column 83: syntax error while parsing "
                                          "value - invalid string: ill-formed UTF-8 byte; last read: '\"n<FF>'";
        QTest::addRow("one bad event in an array")
            << QByteArray("[" + good + R"(,{"job":"x"}])") << 400 << R"(event 1: field "rank" is required)";
        QTest::addRow("10 MB body") << QByteArray(10 * 1024 * 1024, ' ') << 413
                                    << "request body larger than 1048576 bytes";
    }
    void bad_input_corpus() {
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        QFETCH(QString, error);
        auto s = start();
        QVERIFY(s);
        QNetworkAccessManager nam;
        const auto reply = test::http(nam, "POST", s->url + "/api/v1/events", body);
        QCOMPARE(reply.status, status);
        QCOMPARE(reply.error(), error);
        QCOMPARE(s->service->collector().stats().events_stored, std::int64_t{0});
        QCOMPARE(test::http(nam, "POST", s->url + "/api/v1/events", good).status, 200);
        QCOMPARE(s->service->collector().stats().events_stored, std::int64_t{1});
    }

    void routes_data() {
        QTest::addColumn<QByteArray>("method");
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("error");  // empty: a 200 whose body is checked by `ok_body`
        QTest::addColumn<QByteArray>("ok_body");
        QTest::addRow("unknown endpoint")
            << QByteArray("GET") << "/nope" << 404 << "no such endpoint: /nope" << QByteArray();
        QTest::addRow("GET on events") << QByteArray("GET") << "/api/v1/events" << 405 << "use POST" << QByteArray();
        QTest::addRow("DELETE a job") << QByteArray("DELETE") << "/api/v1/jobs/api" << 405 << "use GET" << QByteArray();
        QTest::addRow("unknown job") << QByteArray("GET") << "/api/v1/jobs/none" << 404 << R"(no job named "none")"
                                     << QByteArray();
        QTest::addRow("unknown job's ranks")
            << QByteArray("GET") << "/api/v1/jobs/none/ranks" << 404 << R"(no job named "none")" << QByteArray();
        QTest::addRow("unknown job view")
            << QByteArray("GET") << "/api/v1/jobs/api/other" << 404 << "no such endpoint" << QByteArray();
        QTest::addRow("stream without upgrade")
            << QByteArray("GET") << "/api/v1/stream" << 400 << "/api/v1/stream is a WebSocket: send an upgrade request"
            << QByteArray();
        QTest::addRow("health") << QByteArray("GET") << "/api/v1/health" << 200 << ""
                                << QByteArray(R"({"status":"ok"})");
    }
    void routes() {
        QFETCH(QByteArray, method);
        QFETCH(QString, path);
        QFETCH(int, status);
        QFETCH(QString, error);
        QFETCH(QByteArray, ok_body);
        auto s = start();
        QVERIFY(s);
        QNetworkAccessManager nam;
        QCOMPARE(test::http(nam, "POST", s->url + "/api/v1/events", good).status, 200);
        const auto reply = test::http(nam, method, s->url + path);
        QCOMPARE(reply.status, status);
        if (status == 200)
            QCOMPARE(reply.body, ok_body);
        else
            QCOMPARE(reply.error(), error);
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

    // A client that sends half a request and stalls holds only its own connection: with a read timeout far
    // longer than the test, five other requests are answered while the stalled one still waits for its
    // answer (a server that served it first would make them time out: test::http gives up after 10 s).
    void slow_client_does_not_block_others() {
        auto s = start({}, 64, 600000);
        QVERIFY(s);
        const quint16 port = s->service->port();
        QTcpSocket stalled;
        stalled.connectToHost(QHostAddress::LocalHost, port);
        QVERIFY(stalled.waitForConnected(5000));
        stalled.write("POST /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 500\r\n\r\n{\"job\":");
        QVERIFY(stalled.waitForBytesWritten(5000));
        QTcpSocket idle;  // connects and sends nothing at all
        idle.connectToHost(QHostAddress::LocalHost, port);
        QVERIFY(idle.waitForConnected(5000));
        QTRY_COMPARE_WITH_TIMEOUT(s->service->server().open_connections(), std::size_t{2}, 15000);

        QNetworkAccessManager nam;
        for (int i = 0; i < 5; ++i) QCOMPARE(test::http(nam, "POST", s->url + "/api/v1/events", good).status, 200);
        QCOMPARE(s->service->collector().stats().events_stored, std::int64_t{5});
        // The stalled request is still held, unanswered, and the idle connection still open.
        QCOMPARE(stalled.state(), QAbstractSocket::ConnectedState);
        QCOMPARE(stalled.bytesAvailable(), qint64{0});
        QCOMPARE(idle.state(), QAbstractSocket::ConnectedState);
    }

    // A request that stops halfway is answered 408 once its read timeout (1 s here) passes, then closed.
    void stalled_request_gets_408() {
        auto s = start({}, 64, 1000);
        QVERIFY(s);
        QTcpSocket stalled;
        stalled.connectToHost(QHostAddress::LocalHost, s->service->port());
        QVERIFY(stalled.waitForConnected(5000));
        stalled.write("POST /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 500\r\n\r\n{\"job\":");
        QVERIFY(stalled.waitForBytesWritten(5000));
        QByteArray answer;
        QVERIFY2(test::eventually(
                     [&] {
                         if (stalled.bytesAvailable() || stalled.waitForReadyRead(50)) answer += stalled.readAll();
                         return answer.endsWith(R"({"error":"request not received in time"})");
                     },
                     15000, 10),
                 answer.constData());
        QVERIFY2(answer.startsWith("HTTP/1.1 408"), answer.constData());
        QTRY_COMPARE_WITH_TIMEOUT(stalled.state(), QAbstractSocket::UnconnectedState, 15000);
        QCOMPARE(s->service->collector().stats().events_stored, std::int64_t{0});
    }

    // Past max_connections (2 here) a connection gets 503 + Retry-After and is closed; once the two close, a
    // new one is served.
    void connection_limit() {
        auto s = start({}, 2);
        QVERIFY(s);
        const quint16 port = s->service->port();
        QTcpSocket a, b;
        a.connectToHost(QHostAddress::LocalHost, port);
        b.connectToHost(QHostAddress::LocalHost, port);
        QVERIFY(a.waitForConnected(5000) && b.waitForConnected(5000));
        QTRY_COMPARE_WITH_TIMEOUT(s->service->server().open_connections(), std::size_t{2}, 15000);
        const auto third = test::raw_http(port, "GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        QCOMPARE(third.status, 503);
        QCOMPARE(third.header("Retry-After"), QByteArray("2"));
        QCOMPARE(third.error(), QString("too many connections"));
        a.close();
        b.close();
        QTRY_COMPARE_WITH_TIMEOUT(s->service->server().open_connections(), std::size_t{0}, 15000);
        const auto later =
            test::raw_http(port, "GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        QCOMPARE(later.status, 200);
    }

    void metrics() {
        auto s = start();
        QVERIFY(s);
        QNetworkAccessManager nam;
        QCOMPARE(test::http(nam, "POST", s->url + "/api/v1/events", good).status, 200);
        const auto text = QString::fromUtf8(test::http(nam, "GET", s->url + "/metrics").body);
        QVERIFY(text.contains("\nmeshscope_events_ingested_total 1\n"));
        QVERIFY(text.contains("meshscope_ranks{slurm_job_id=\"api\",state=\"initializing\"} 1\n"));
        QVERIFY(text.contains("meshscope_ranks{slurm_job_id=\"api\",state=\"pending\"} 3\n"));
        QVERIFY(text.contains("meshscope_findings{slurm_job_id=\"api\",kind=\"straggler\"} 0\n"));
        QVERIFY(text.contains("meshscope_store_commit_seconds_count 1\n"));
        QVERIFY(!text.contains("{job="));  // NCCL Inspector's slurm_job_id, not Prometheus's own job label
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
        QVERIFY(messages[1].startsWith(R"({"type":"changes","seq":1,"changes":[)"));  // batched (tst_collector_scale)
    }

    // Every answer carries the contract's Content-Security-Policy and nosniff: answers, errors, refusals
    // written before a request is read, the 503 past the connection limit and the WebSocket upgrade.
    void security_headers_data() {
        QTest::addColumn<QByteArray>("token");
        QTest::addColumn<int>("held");  // connections held open first (the limit is 2)
        QTest::addColumn<QByteArray>("request");
        QTest::addColumn<int>("status");
        const QByteArray upgrade =
            "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n";
        QTest::addRow("200") << QByteArray() << 0
                             << QByteArray("GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") << 200;
        QTest::addRow("404") << QByteArray() << 0 << QByteArray("GET /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                             << 404;
        QTest::addRow("405") << QByteArray() << 0 << QByteArray("PUT /api/v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                             << 405;
        QTest::addRow("401") << QByteArray("s3cret") << 0
                             << QByteArray("GET /api/v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") << 401;
        QTest::addRow("400 bad HTTP") << QByteArray() << 0 << QByteArray("NONSENSE\r\n\r\n") << 400;
        QTest::addRow("413")
            << QByteArray() << 0
            << QByteArray("POST /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 99999999\r\n\r\n") << 413;
        QTest::addRow("503 too many connections")
            << QByteArray() << 2 << QByteArray("GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") << 503;
        QTest::addRow("101 WebSocket upgrade")
            << QByteArray() << 0 << QByteArray("GET /api/v1/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n" + upgrade) << 101;
    }
    void security_headers() {
        QFETCH(QByteArray, token);
        QFETCH(int, held);
        QFETCH(QByteArray, request);
        QFETCH(int, status);
        auto s = start(token, 2);
        QVERIFY(s);
        std::vector<std::unique_ptr<QTcpSocket>> holding;
        for (int i = 0; i < held; ++i) {
            holding.push_back(std::make_unique<QTcpSocket>());
            holding.back()->connectToHost(QHostAddress::LocalHost, s->port());
            QVERIFY(holding.back()->waitForConnected(5000));
        }
        QVERIFY(
            test::eventually([&] { return s->service->server().open_connections() == std::size_t(held); }, 5000, 10));
        const auto reply = test::raw_http(s->port(), request, 5000);
        QCOMPARE(reply.status, status);
        QCOMPARE(reply.header("Content-Security-Policy"),
                 QByteArray("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
                            "connect-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'; "
                            "frame-ancestors 'none'"));
        QCOMPARE(reply.header("X-Content-Type-Options"), QByteArray("nosniff"));
    }
};

QTEST_GUILESS_MAIN(TestCollectorApi)
#include "tst_collector_api.moc"
