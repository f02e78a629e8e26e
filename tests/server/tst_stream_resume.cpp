// The stream's seq/epoch resume and the browser's first-message authentication (docs/collector.md, the
// web contract), over real WebSockets on loopback: a subscriber reconnecting with ?since=N&epoch=E gets
// exactly what it missed, in order, while the ring still holds it, else hello then {"type":"reload"}; a
// collector restarted on the same database keeps its jobs and tells a resuming client to reload; a
// subscriber without a token in its request authenticates with its first message (deadline injected, so
// the test waits on the close, not 10 s); header and ?token= clients and the desktop's LiveClient work
// as before.
#include <QJsonArray>
#include <QSignalSpy>
#include <QTest>

#include "collector_fixture.h"
#include "http/stream_protocol.h"
#include "live_client.h"
#include "server_test_support.h"
#include "stream_test_client.h"

namespace {
QByteArray launch(int rank, const char* job = "resume") {
    return QStringLiteral(R"({"job":"%1","rank":%2,"world_size":64,"phase":"launch","status":"started"})")
        .arg(QString::fromLatin1(job))
        .arg(rank)
        .toUtf8();
}

QString stream_url(quint16 port, const QString& query = {}) {
    return QStringLiteral("ws://127.0.0.1:%1/api/v1/stream%2").arg(port).arg(query);
}

// Posts one event per message: each waits until the reference subscriber has the message it made, so
// that every post is a window (a message) of its own.
bool post_messages(QNetworkAccessManager& nam, const QString& url, test::StreamClient& reference, int first_rank,
                   int count) {
    for (int i = 0; i < count; ++i) {
        const auto before = reference.messages.size();
        if (test::http(nam, "POST", url + "/api/v1/events", launch(first_rank + i)).status != 200) return false;
        if (!test::eventually([&] { return reference.messages.size() == before + 1; }, 10000, 10)) return false;
    }
    return true;
}

const QString auth_error = R"({"type":"error","error":"missing or wrong bearer token"})";
}  // namespace

class TestStreamResume : public QObject {
    Q_OBJECT
private slots:
    // A fresh collector: hello seq 0, then five messages seq 1..5 (hand-counted: one post, one window, one
    // message). A client resuming after `since` gets messages since+1..5, byte for byte what a subscriber
    // that never left got, then the next live one (seq 6) and nothing else.
    void resume_inside_the_ring_data() {
        QTest::addColumn<int>("since");
        QTest::addRow("from the start") << 0;
        QTest::addRow("missed the last two") << 3;
        QTest::addRow("missed nothing") << 5;
    }
    void resume_inside_the_ring() {
        QFETCH(int, since);
        auto s = test::start_collector();
        QVERIFY(s);
        test::StreamClient reference;
        reference.open(stream_url(s->port()));
        QVERIFY(test::eventually([&] { return reference.messages.size() == 1; }, 5000, 10));
        QCOMPARE(reference.type(0), QString("hello"));
        QCOMPARE(reference.seq(0), 0);
        const QString epoch = reference.json(0).value("epoch").toString();
        QCOMPARE(epoch.size(), 16);
        QNetworkAccessManager nam;
        QVERIFY(post_messages(nam, s->url, reference, 0, 5));
        for (int i = 1; i <= 5; ++i) {
            QCOMPARE(reference.type(i), QString("changes"));
            QCOMPARE(reference.seq(i), i);
        }

        test::StreamClient back;
        back.open(stream_url(s->port(), QStringLiteral("?since=%1&epoch=%2").arg(since).arg(epoch)));
        QVERIFY(test::eventually([&] { return back.messages.size() == 1 + 5 - since; }, 5000, 10));
        QCOMPARE(back.json(0),
                 QJsonDocument::fromJson(
                     QStringLiteral(R"({"type":"hello","protocol":"meshscope.stream/1","epoch":"%1","seq":5})")
                         .arg(epoch)
                         .toUtf8())
                     .object());
        QCOMPARE(back.messages.mid(1), reference.messages.mid(1 + since));
        QVERIFY(post_messages(nam, s->url, reference, 10, 1));
        QVERIFY(test::eventually([&] { return back.messages.size() == 1 + 5 - since + 1; }, 5000, 10));
        QCOMPARE(back.messages.last(), reference.messages.last());
        QCOMPARE(back.seq(back.messages.size() - 1), 6);
    }

    // The same five messages (seq 1..5); the ring keeps `keep` messages or `bytes`. A resume that needs a
    // message no longer kept, from another epoch or with a `since` that is not one of ours gets hello (seq 5)
    // and {"type":"reload"}, and then the live messages from seq 6.
    void reload_data() {
        QTest::addColumn<int>("keep");
        QTest::addColumn<int>("bytes");
        QTest::addColumn<QString>("query");  // %1: this collector's epoch
        QTest::addColumn<bool>("reload");
        QTest::addRow("oldest still kept") << 3 << (1 << 20) << "?since=2&epoch=%1" << false;
        QTest::addRow("older than the ring") << 3 << (1 << 20) << "?since=1&epoch=%1" << true;
        QTest::addRow("larger than the byte bound") << 1024 << 1 << "?since=4&epoch=%1" << true;
        QTest::addRow("byte bound, nothing missed") << 1024 << 1 << "?since=5&epoch=%1" << false;
        QTest::addRow("other epoch") << 1024 << (1 << 20) << "?since=5&epoch=0123456789abcdef" << true;
        QTest::addRow("no epoch") << 1024 << (1 << 20) << "?since=5" << true;
        QTest::addRow("since not a number") << 1024 << (1 << 20) << "?since=five&epoch=%1" << true;
        QTest::addRow("since ahead") << 1024 << (1 << 20) << "?since=9&epoch=%1" << true;
        QTest::addRow("no since: a fresh client") << 1024 << (1 << 20) << "?epoch=%1" << false;
    }
    void reload() {
        QFETCH(int, keep);
        QFETCH(int, bytes);
        QFETCH(QString, query);
        QFETCH(bool, reload);
        test::CollectorConfig config;
        config.stream_resume_messages = static_cast<std::size_t>(keep);
        config.stream_resume_bytes = static_cast<std::size_t>(bytes);
        auto s = test::start_collector(config);
        QVERIFY(s);
        test::StreamClient reference;
        reference.open(stream_url(s->port()));
        QVERIFY(test::eventually([&] { return reference.messages.size() == 1; }, 5000, 10));
        const QString epoch = reference.json(0).value("epoch").toString();
        QNetworkAccessManager nam;
        QVERIFY(post_messages(nam, s->url, reference, 0, 5));

        test::StreamClient back;
        back.open(stream_url(s->port(), query.contains("%1") ? query.arg(epoch) : query));
        QVERIFY(test::eventually([&] { return !back.messages.isEmpty(); }, 5000, 10));
        QCOMPARE(back.type(0), QString("hello"));
        QCOMPARE(back.seq(0), 5);
        // The next live message marks the end of what the resume sent.
        QVERIFY(post_messages(nam, s->url, reference, 10, 1));
        QVERIFY(test::eventually([&] { return back.seq(back.messages.size() - 1) == 6; }, 5000, 10));
        QStringList types;
        for (qsizetype i = 0; i < back.messages.size(); ++i) types << back.type(i);
        if (reload) {
            QCOMPARE(types, QStringList({"hello", "reload", "changes"}));
            QCOMPARE(back.messages[1], QString(R"({"type":"reload"})"));
        } else {
            const qsizetype since = back.messages.size() - 2;  // the messages resumed, before seq 6
            QCOMPARE(back.messages.mid(1), reference.messages.mid(reference.messages.size() - 1 - since));
        }
    }

    // `meshscope serve --db F` stopped and started again: its jobs are still there, a client resuming
    // from the old epoch is told to reload (the new one numbers from 0), and then streams as usual.
    void restart_on_the_same_database() {
        QTemporaryDir dir;
        const QString db = dir.filePath("kept.db");
        QString old_epoch;
        {
            test::ServeProcess serve({"--db", db});
            QVERIFY2(serve.port() != 0, serve.errors().constData());
            test::StreamClient client;
            client.open(stream_url(serve.port()));
            QVERIFY(test::eventually([&] { return client.messages.size() == 1; }, 5000, 10));
            old_epoch = client.json(0).value("epoch").toString();
            QNetworkAccessManager nam;
            QVERIFY(post_messages(nam, serve.url(), client, 0, 2));
            QCOMPARE(client.seq(2), 2);
        }
        test::ServeProcess serve({"--db", db});
        QVERIFY2(serve.port() != 0, serve.errors().constData());
        QCOMPARE(serve.rebuilt(), 2);
        test::StreamClient client;
        client.open(stream_url(serve.port(), "?since=2&epoch=" + old_epoch));
        QVERIFY(test::eventually([&] { return client.messages.size() == 2; }, 5000, 10));
        QCOMPARE(client.type(0), QString("hello"));
        QVERIFY(client.json(0).value("epoch").toString() != old_epoch);
        QCOMPARE(client.seq(0), 0);
        QCOMPARE(client.messages[1], QString(R"({"type":"reload"})"));
        // What the client re-reads: the job as it was.
        QNetworkAccessManager nam;
        const auto job = test::http(nam, "GET", serve.url() + "/api/v1/jobs/resume").json();
        QCOMPARE(job.value("ranks_seen").toInt(), 2);
        QVERIFY(post_messages(nam, serve.url(), client, 2, 1));
        QCOMPARE(client.seq(2), 1);
    }

    // With a token, a request that carries none is upgraded and must authenticate with its first message
    // within the deadline (300 ms here); then hello follows and the stream runs. Anything else: the error
    // message, then close code 1008.
    void first_message_authentication_data() {
        QTest::addColumn<QByteArray>("first");  // null: send nothing
        QTest::addColumn<bool>("accepted");
        QTest::addRow("right token") << QByteArray(R"({"type":"auth","token":"s3cret"})") << true;
        QTest::addRow("wrong token") << QByteArray(R"({"type":"auth","token":"guess"})") << false;
        QTest::addRow("token of another length") << QByteArray(R"({"type":"auth","token":"s3cret2"})") << false;
        QTest::addRow("not JSON") << QByteArray("s3cret") << false;
        QTest::addRow("not an auth message") << QByteArray(R"({"token":"s3cret"})") << false;
        QTest::addRow("token not a string") << QByteArray(R"({"type":"auth","token":7})") << false;
        QTest::addRow("nothing within the deadline") << QByteArray() << false;
    }
    void first_message_authentication() {
        QFETCH(QByteArray, first);
        QFETCH(bool, accepted);
        test::CollectorConfig config;
        config.token = "s3cret";
        config.stream_auth_timeout_ms = 300;
        auto s = test::start_collector(config);
        QVERIFY(s);
        test::StreamClient client;
        bool connected = false;
        QObject::connect(&client.socket, &QWebSocket::connected, &client.socket, [&] { connected = true; });
        client.open(stream_url(s->port()));
        QVERIFY(test::eventually([&] { return connected; }, 5000, 10));
        QVERIFY(client.messages.isEmpty());  // nothing before the token
        if (!first.isNull()) client.socket.sendTextMessage(QString::fromUtf8(first));
        if (!accepted) {
            QVERIFY(test::eventually([&] { return client.closed; }, 10000, 10));
            QCOMPARE(client.messages, QStringList{auth_error});
            QCOMPARE(client.socket.closeCode(), QWebSocketProtocol::CloseCodePolicyViolated);
            return;
        }
        QVERIFY(test::eventually([&] { return client.messages.size() == 1; }, 5000, 10));
        QCOMPARE(client.type(0), QString("hello"));
        QNetworkAccessManager nam;
        QCOMPARE(test::http(nam, "POST", s->url + "/api/v1/events", launch(0), "s3cret").status, 200);
        QVERIFY(test::eventually([&] { return client.messages.size() == 2; }, 5000, 10));
        QCOMPARE(client.seq(1), 1);
        QVERIFY(!client.closed);
    }

    // A first message over 64 KiB is not read into memory: the subscriber is closed (1009, too big).
    void oversized_first_message() {
        test::CollectorConfig config;
        config.token = "s3cret";
        auto s = test::start_collector(config);
        QVERIFY(s);
        test::StreamClient client;
        bool connected = false;
        QObject::connect(&client.socket, &QWebSocket::connected, &client.socket, [&] { connected = true; });
        client.open(stream_url(s->port()));
        QVERIFY(test::eventually([&] { return connected; }, 5000, 10));
        client.socket.sendTextMessage(R"({"type":"auth","token":")" + QString(100 * 1024, 'a') + R"("})");
        QVERIFY(test::eventually([&] { return client.closed; }, 10000, 10));
        QVERIFY(client.messages.isEmpty());
        QCOMPARE(client.socket.closeCode(), QWebSocketProtocol::CloseCodeTooMuchData);
    }

    // The bearer as a subprotocol (what a browser can send in the upgrade): meshscope.bearer.<base64url of
    // the token, no padding> beside meshscope.v1. Right: hello at once, meshscope.v1 echoed; wrong or not
    // base64url: upgraded (meshscope.v1 echoed), the error message, close code 1008, as for a wrong first
    // message. Encodings worked by hand from RFC 4648's alphabet: "s3cret" -> czNjcmV0, "guess" -> Z3Vlc3M,
    // "a/b=c?d" (bytes 61 2f 62 3d 63 3f 64) -> YS9iPWM_ZA (the '?' makes the '_').
    void subprotocol_bearer_data() {
        QTest::addColumn<QString>("token");  // the collector's
        QTest::addColumn<QStringList>("offered");
        QTest::addColumn<bool>("accepted");
        QTest::addRow("right token") << "s3cret" << QStringList{"meshscope.v1", "meshscope.bearer.czNjcmV0"} << true;
        QTest::addRow("bearer first") << "s3cret" << QStringList{"meshscope.bearer.czNjcmV0", "meshscope.v1"} << true;
        QTest::addRow("token with / = ?")
            << "a/b=c?d" << QStringList{"meshscope.v1", "meshscope.bearer.YS9iPWM_ZA"} << true;
        QTest::addRow("wrong token") << "s3cret" << QStringList{"meshscope.v1", "meshscope.bearer.Z3Vlc3M"} << false;
        QTest::addRow("not base64url") << "s3cret" << QStringList{"meshscope.v1", "meshscope.bearer.czNjcmV0."}
                                       << false;
        QTest::addRow("two bearers") << "s3cret"
                                     << QStringList{"meshscope.v1", "meshscope.bearer.czNjcmV0",
                                                    "meshscope.bearer.czNjcmV0"}
                                     << false;
    }
    void subprotocol_bearer() {
        QFETCH(QString, token);
        QFETCH(QStringList, offered);
        QFETCH(bool, accepted);
        test::CollectorConfig config;
        config.token = token.toUtf8();
        config.stream_auth_timeout_ms = 300;
        auto s = test::start_collector(config);
        QVERIFY(s);
        test::StreamClient client;
        bool connected = false;
        QObject::connect(&client.socket, &QWebSocket::connected, &client.socket, [&] { connected = true; });
        client.open(stream_url(s->port()), offered);
        QVERIFY(test::eventually([&] { return connected; }, 5000, 10));
        QCOMPARE(client.socket.subprotocol(), QString("meshscope.v1"));
        if (!accepted) {
            QVERIFY(test::eventually([&] { return client.closed; }, 10000, 10));
            QCOMPARE(client.messages, QStringList{auth_error});
            QCOMPARE(client.socket.closeCode(), QWebSocketProtocol::CloseCodePolicyViolated);
            return;
        }
        // Sends nothing: hello comes at once, and the stream outlives the first-message deadline.
        QVERIFY(test::eventually([&] { return client.messages.size() == 1; }, 5000, 10));
        QCOMPARE(client.type(0), QString("hello"));
        QNetworkAccessManager nam;
        QCOMPARE(test::http(nam, "POST", s->url + "/api/v1/events", launch(0), config.token).status, 200);
        QVERIFY(test::eventually([&] { return client.messages.size() == 2; }, 5000, 10));
        QCOMPARE(client.seq(1), 1);
        QVERIFY(!client.closed);
    }

    // The bearer subprotocol's encoding: RFC 4648 section 10's test vectors without their padding, and what
    // is refused (padding, '+' and '/' of plain base64, a length no encoding has, leftover bits not zero).
    void base64url_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<QByteArray>("decoded");
        QTest::addRow("empty") << QByteArray("") << true << QByteArray("");
        QTest::addRow("f") << QByteArray("Zg") << true << QByteArray("f");
        QTest::addRow("fo") << QByteArray("Zm8") << true << QByteArray("fo");
        QTest::addRow("foo") << QByteArray("Zm9v") << true << QByteArray("foo");
        QTest::addRow("foob") << QByteArray("Zm9vYg") << true << QByteArray("foob");
        QTest::addRow("fooba") << QByteArray("Zm9vYmE") << true << QByteArray("fooba");
        QTest::addRow("foobar") << QByteArray("Zm9vYmFy") << true << QByteArray("foobar");
        QTest::addRow("- and _") << QByteArray("-_8") << true << QByteArray("\xfb\xff");
        QTest::addRow("padded") << QByteArray("Zg==") << false << QByteArray();
        QTest::addRow("plain base64 +") << QByteArray("+_8") << false << QByteArray();
        QTest::addRow("plain base64 /") << QByteArray("-/8") << false << QByteArray();
        QTest::addRow("one char") << QByteArray("Z") << false << QByteArray();
        QTest::addRow("bits left over") << QByteArray("Zh") << false << QByteArray();
    }
    void base64url() {
        QFETCH(QByteArray, text);
        QFETCH(bool, valid);
        QFETCH(QByteArray, decoded);
        const auto got = meshscope::server::decode_base64url(text.toStdString());
        QCOMPARE(got.has_value(), valid);
        if (valid) QCOMPARE(QByteArray::fromStdString(*got), decoded);
    }

    // A bearer subprotocol without meshscope.v1 (the upgrade could echo nothing a browser accepts): 400. A
    // client that offers meshscope.v1 alone, without a token on the collector, gets it echoed.
    void subprotocol_answers() {
        test::CollectorConfig config;
        config.token = "s3cret";
        auto s = test::start_collector(config);
        QVERIFY(s);
        const QByteArray upgrade =
            "GET /api/v1/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            "Sec-WebSocket-Protocol: meshscope.bearer.czNjcmV0\r\n\r\n";
        const auto reply = test::raw_http(s->port(), upgrade, 5000);
        QCOMPARE(reply.status, 400);
        QCOMPARE(QJsonDocument::fromJson(reply.body).object().value("error").toString(),
                 QString("offer the subprotocol meshscope.v1 beside meshscope.bearer.<token>"));

        auto open = test::start_collector({});
        QVERIFY(open);
        test::StreamClient client;
        client.open(stream_url(open->port()), {"meshscope.v1"});
        QVERIFY(test::eventually([&] { return client.messages.size() == 1; }, 5000, 10));
        QCOMPARE(client.socket.subprotocol(), QString("meshscope.v1"));
        QCOMPARE(client.type(0), QString("hello"));
    }

    // Clients that can set headers (or use ?token=) are served at once, as before; a wrong one is 401.
    void token_in_the_request() {
        test::CollectorConfig config;
        config.token = "s3cret";
        config.stream_auth_timeout_ms = 300;
        auto s = test::start_collector(config);
        QVERIFY(s);
        QNetworkRequest with_header{QUrl(stream_url(s->port()))};
        with_header.setRawHeader("Authorization", "Bearer s3cret");
        test::StreamClient header, query;
        header.open(with_header);
        query.open(stream_url(s->port(), "?token=s3cret"));
        QVERIFY(test::eventually([&] { return header.messages.size() == 1 && query.messages.size() == 1; }, 5000, 10));
        QCOMPARE(header.type(0), QString("hello"));
        QCOMPARE(query.type(0), QString("hello"));
        QNetworkAccessManager nam;
        QCOMPARE(test::http(nam, "POST", s->url + "/api/v1/events", launch(0), "s3cret").status, 200);
        QVERIFY(test::eventually([&] { return header.messages.size() == 2 && query.messages.size() == 2; }, 5000, 10));
        QVERIFY(!header.closed && !query.closed);  // well past the first-message deadline by now
    }

    // The desktop's LiveClient (ui/live), unchanged: header token, hello and changes as single changes.
    void desktop_live_client() {
        test::CollectorConfig config;
        config.token = "s3cret";
        auto s = test::start_collector(config);
        QVERIFY(s);
        meshscope::ui::LiveClient client;
        QStringList seen;
        QObject::connect(&client, &meshscope::ui::LiveClient::changeReceived, &client,
                         [&](const nlohmann::json& change) {
                             QString item = QString::fromStdString(change.value("type", std::string()));
                             if (item == "rank_changed") item += " " + QString::number(change.value("rank", -1));
                             seen << item;
                         });
        client.setServer(QUrl(s->url), "s3cret");
        QVERIFY(test::eventually([&] { return client.streaming() && seen.size() == 1; }, 5000, 10));
        QNetworkAccessManager nam;
        QCOMPARE(test::http(nam, "POST", s->url + "/api/v1/events", launch(7), "s3cret").status, 200);
        QVERIFY(test::eventually([&] { return seen.size() == 3; }, 5000, 10));
        QCOMPARE(seen, QStringList({"hello", "job_added", "rank_changed 7"}));
    }
};

QTEST_GUILESS_MAIN(TestStreamResume)
#include "tst_stream_resume.moc"
