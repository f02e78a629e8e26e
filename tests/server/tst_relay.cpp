// meshscope relay (server/relay): ranks' bodies go upstream as POST /api/v1/batches and each rank gets its
// own result, only once the upstream has answered. The upstream here is a fake on a real loopback socket
// that records what it received and answers with the statuses a test chooses (or holds its answer).
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPointer>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <thread>

#include "batch_codec.h"
#include "relay.h"
#include "seen_digest.h"
#include "server_test_support.h"

using meshscope::relay::Relay;
using meshscope::relay::RelayOptions;

namespace {

using test::http_header;
using test::http_message_end;
using test::http_response;

// The collector's side of /api/v1/batches, faked: by default every body {"n": k} is accepted with
// {"status": 200, "accepted": k}, so a rank can tell its own result from a neighbour's.
class FakeUpstream : public QObject {
public:
    struct Batch {
        QByteArray authorization;
        QByteArray target;
        QStringList bodies;
        QJsonObject seen;  // the relay's "seen" digest, if the batch carried one
        QJsonObject held;  // and its "held"
    };
    std::function<QJsonObject(const QString&)> judge = [](const QString& body) {
        return QJsonObject{{"status", 200}, {"accepted", QJsonDocument::fromJson(body.toUtf8()).object()["n"].toInt()}};
    };
    int whole_status = 0;  // answer every batch with this status and whole_body instead
    QByteArray whole_body;
    QByteArray retry_after;
    bool hold = false;               // keep answers until release()
    qsizetype max_bodies = 1 << 20;  // a batch of more bodies: 413
    QList<Batch> received;

    bool listen(quint16 port = 0) {
        connect(&server_, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* s = server_.nextPendingConnection()) {
                connect(s, &QTcpSocket::readyRead, this, [this, s] { on_ready(s); });
                connect(s, &QTcpSocket::disconnected, s, &QObject::deleteLater);
            }
        });
        return server_.listen(QHostAddress::LocalHost, port);
    }
    [[nodiscard]] quint16 port() const { return server_.serverPort(); }
    // Every rank named "seen" (or "held") so far, "job:rank" sorted, each once.
    [[nodiscard]] QStringList seen_ranks(bool held = false) const {
        QStringList out;
        for (const auto& b : received) {
            const QJsonObject& named = held ? b.held : b.seen;
            for (auto it = named.begin(); it != named.end(); ++it)
                for (const auto& rank : it.value().toArray()) out << it.key() + ":" + QString::number(rank.toInt());
        }
        out.removeDuplicates();
        out.sort();
        return out;
    }
    [[nodiscard]] int bodies_received() const {
        int n = 0;
        for (const auto& b : received) n += static_cast<int>(b.bodies.size());
        return n;
    }
    void release() {
        hold = false;
        for (auto& [socket, response] : held_)
            if (socket) socket->write(response);
        held_.clear();
    }

private:
    void on_ready(QTcpSocket* s) {
        QByteArray& data = buffers_[s];
        data += s->readAll();
        for (qsizetype end = http_message_end(data); end >= 0; end = http_message_end(data)) {
            const QByteArray message = data.left(end);
            data.remove(0, end);
            const auto head_end = message.indexOf("\r\n\r\n");
            const QByteArray head = message.left(head_end);
            Batch batch;
            batch.authorization = http_header(head, "authorization");
            batch.target = head.split(' ').value(1);
            QJsonArray results;
            const QJsonObject request = QJsonDocument::fromJson(message.mid(head_end + 4)).object();
            batch.seen = request["seen"].toObject();
            batch.held = request["held"].toObject();
            for (const auto& body : request["bodies"].toArray()) {
                batch.bodies << body.toString();
                results.append(judge(body.toString()));
            }
            received << batch;
            QByteArray body = QJsonDocument(QJsonObject{{"results", results}}).toJson(QJsonDocument::Compact);
            int status = 200;
            if (batch.bodies.size() > max_bodies) {
                status = 413;
                body = R"({"error":"request body larger than 40 bytes"})";
            } else if (whole_status != 0) {
                status = whole_status;
                body = whole_body;
            }
            QByteArray response = http_response(
                status, body,
                retry_after.isEmpty() ? QList<QByteArray>{} : QList<QByteArray>{"Retry-After: " + retry_after});
            if (hold)
                held_.push_back({QPointer<QTcpSocket>(s), response});
            else
                s->write(response);
        }
    }

    QTcpServer server_;
    std::map<QTcpSocket*, QByteArray> buffers_;
    std::vector<std::pair<QPointer<QTcpSocket>, QByteArray>> held_;
};

// One rank's request on its own connection, answered whenever the relay answers.
class Rank {
public:
    void post(quint16 port, const QByteArray& body, const QByteArray& token = {},
              const QByteArray& path = "/api/v1/events", const QByteArray& method = "POST",
              const QByteArray& timeout = {}) {
        QByteArray request = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";
        if (!token.isEmpty()) request += "Authorization: Bearer " + token + "\r\n";
        if (!timeout.isEmpty()) request += "MeshScope-Timeout: " + timeout + "\r\n";
        request += "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body;
        send_raw(port, request);
    }
    void send_raw(quint16 port, const QByteArray& bytes) {
        QObject::connect(&socket_, &QTcpSocket::connected, &socket_, [this, bytes] { socket_.write(bytes); });
        QObject::connect(&socket_, &QTcpSocket::readyRead, &socket_, [this] { data_ += socket_.readAll(); });
        socket_.connectToHost(QHostAddress::LocalHost, port);
    }
    [[nodiscard]] bool answered() const { return http_message_end(data_) >= 0; }
    [[nodiscard]] int status() const { return data_.startsWith("HTTP/1.1 ") ? data_.mid(9, 3).toInt() : 0; }
    [[nodiscard]] QJsonObject json() const {
        return QJsonDocument::fromJson(data_.mid(data_.indexOf("\r\n\r\n") + 4)).object();
    }
    [[nodiscard]] QString error() const { return json()["error"].toString(); }
    [[nodiscard]] QByteArray header(const QByteArray& name) const {
        return http_header(data_.left(data_.indexOf("\r\n\r\n")), name);
    }

private:
    QTcpSocket socket_;
    QByteArray data_;
};

QByteArray body_n(int n) {
    return "{\"n\":" + QByteArray::number(n) + "}";
}

RelayOptions options_for(quint16 upstream_port) {
    RelayOptions o;
    o.listen_port = 0;
    o.upstream = meshscope::relay::parse_upstream_url("http://127.0.0.1:" + std::to_string(upstream_port)).value();
    o.batch_ms = 5;
    // Ranks that wait ten minutes: no admission limit or expiry here unless a test asks for one.
    o.rank_timeout_ms = 600000;
    return o;
}

constexpr auto wait_refusal = "relay busy: events would wait longer than the rank's timeout";
constexpr auto expired_refusal = "relay busy: not sent before the rank's timeout";

// A heartbeat of rank 3, as the reporters send one (a JSON array of events).
QByteArray heartbeat_body() {
    return R"([{"job":"j","rank":3,"world_size":8,"phase":"heartbeat","status":"done","ts":1.5}])";
}

// Posts probes with a 10 ms timeout until one is refused at admission (not queued, then expired): the
// relay then expects a new body to wait more than 5 ms. The held batch only gets older, so this holds after.
bool refused_at_admission(quint16 port, std::unique_ptr<Rank>& probe) {
    if (probe && !probe->answered()) return false;
    if (probe && probe->error() == wait_refusal) return true;
    probe = std::make_unique<Rank>();
    probe->post(port, body_n(99), {}, "/api/v1/events", "POST", "0.01");
    return false;
}

std::unique_ptr<Relay> start(const RelayOptions& o) {
    return meshscope::relay::Relay::start(o).value();
}

// Starts `relay` in front of `upstream`, which holds the first batch (`first`'s body) without answering, so
// that the relay refuses what comes next by expected wait; digest rounds every 50 ms.
bool start_jammed(FakeUpstream& upstream, std::unique_ptr<Relay>& relay, Rank& first) {
    if (!upstream.listen()) return false;
    upstream.hold = true;
    auto options = options_for(upstream.port());
    options.seen_every_ms = 50;
    relay = start(options);
    first.post(relay->port(), body_n(1));
    if (!QTest::qWaitFor([&] { return upstream.received.size() == 1; }, 15000)) return false;
    std::unique_ptr<Rank> probe;
    return QTest::qWaitFor([&] { return refused_at_admission(relay->port(), probe); }, 15000);
}

// Stops the relay while this thread keeps serving the fake upstream: a digest may be in flight, and its answer
// comes from this thread's event loop (a plain stop would wait for the upstream timeout).
bool stop_serving(Relay& relay) {
    std::atomic<bool> stopped{false};
    std::thread stopping([&] {
        relay.stop();
        stopped = true;
    });
    const bool in_time = QTest::qWaitFor([&] { return stopped.load(); }, 15000);
    stopping.join();
    return in_time;
}

bool all_answered(const std::vector<std::unique_ptr<Rank>>& ranks) {
    for (const auto& r : ranks)
        if (!r->answered()) return false;
    return true;
}

}  // namespace

class TestRelay : public QObject {
    Q_OBJECT
private slots:
    void upstream_url_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("host");
        QTest::addColumn<QString>("port");
        QTest::addColumn<QString>("prefix");
        QTest::addColumn<QString>("error");
        QTest::addRow("plain") << "http://head:7077"
                               << "head"
                               << "7077"
                               << ""
                               << "";
        QTest::addRow("prefix") << "http://10.0.0.1:80/meshscope/"
                                << "10.0.0.1"
                                << "80"
                                << "/meshscope"
                                << "";
        QTest::addRow("ipv6") << "http://[::1]:7077"
                              << "::1"
                              << "7077"
                              << ""
                              << "";
        QTest::addRow("no scheme") << "head:7077"
                                   << ""
                                   << ""
                                   << ""
                                   << "--upstream must be http://HOST:PORT, got 'head:7077'";
        QTest::addRow("https") << "https://head:7077"
                               << ""
                               << ""
                               << ""
                               << "--upstream must be http://HOST:PORT, got 'https://head:7077'";
        QTest::addRow("no port") << "http://head"
                                 << ""
                                 << ""
                                 << ""
                                 << "--upstream must be http://HOST:PORT, got 'http://head'";
        QTest::addRow("bad port") << "http://head:70770"
                                  << ""
                                  << ""
                                  << ""
                                  << "--upstream must be http://HOST:PORT, got 'http://head:70770'";
    }
    void upstream_url() {
        QFETCH(QString, text);
        QFETCH(QString, host);
        QFETCH(QString, port);
        QFETCH(QString, prefix);
        QFETCH(QString, error);
        const auto url = meshscope::relay::parse_upstream_url(text.toStdString());
        if (!error.isEmpty()) {
            QVERIFY(!url);
            QCOMPARE(QString::fromStdString(url.error().message()), error);
            return;
        }
        QVERIFY(url);
        QCOMPARE(QString::fromStdString(url->host), host);
        QCOMPARE(QString::fromStdString(url->port), port);
        QCOMPARE(QString::fromStdString(url->prefix), prefix);
    }

    // A result from {"results": [...]} -> the HTTP answer of that rank.
    void rank_answer_data() {
        QTest::addColumn<QString>("result");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("body");
        QTest::addColumn<int>("retry_after");  // 0: no header
        QTest::addRow("accepted") << R"({"status":200,"accepted":3})" << 200 << R"({"accepted":3})" << 0;
        QTest::addRow("refused") << R"({"status":400,"error":"event 1: bad"})" << 400 << R"({"error":"event 1: bad"})"
                                 << 0;
        QTest::addRow("shed") << R"({"status":503,"error":"collector busy: heartbeat not stored","retry_after":5})"
                              << 503 << R"({"error":"collector busy: heartbeat not stored"})" << 5;
        QTest::addRow("503 without retry_after") << R"({"status":503,"error":"x"})" << 503 << R"({"error":"x"})" << 1;
    }
    void rank_answer() {
        QFETCH(QString, result);
        QFETCH(int, status);
        QFETCH(QString, body);
        QFETCH(int, retry_after);
        const auto answer = meshscope::relay::rank_answer(nlohmann::json::parse(result.toStdString()));
        QCOMPARE(answer.status, status);
        QCOMPARE(QString::fromStdString(answer.body), body);
        QCOMPARE(answer.retry_after.value_or(0), retry_after);
    }

    void batch_body_must_be_bodies_of_strings_data() {
        QTest::addColumn<QString>("text");
        QTest::addRow("not json") << "nope";
        QTest::addRow("array") << R"(["a"])";
        QTest::addRow("no bodies") << R"({"events":[]})";
        QTest::addRow("not strings") << R"({"bodies":[{"n":1}]})";
    }
    void batch_body_must_be_bodies_of_strings() {
        QFETCH(QString, text);
        const auto bodies = meshscope::relay::decode_batch(text.toStdString());
        QVERIFY(!bodies);
        QCOMPARE(QString::fromStdString(bodies.error().message()),
                 QString(R"(the body must be {"bodies": ["<request body>", ...]})"));
    }

    // "seen" of a batch: read sorted and without repeats (a job with no rank is left out), written back the
    // same way; anything but {"<job>": [non-negative integer, ...]} is the exact error.
    void batch_seen_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("seen");  // as encode_batch writes it back, or the error text
        const QString shape = R"("seen" must be {"<job>": [<rank>, ...]})";
        QTest::addRow("absent") << R"({"bodies":["b"]})"
                                << R"({"bodies":["b"]})";
        QTest::addRow("sorted, repeats once") << R"({"bodies":[],"seen":{"j":[5,1,5,3],"a":[0]}})"
                                              << R"({"bodies":[],"seen":{"a":[0],"j":[1,3,5]}})";
        QTest::addRow("empty job list left out") << R"({"bodies":[],"seen":{"j":[]}})"
                                                 << R"({"bodies":[]})";
        QTest::addRow("not an object") << R"({"bodies":[],"seen":[1]})" << shape;
        QTest::addRow("list not a list") << R"({"bodies":[],"seen":{"j":1}})" << shape;
        QTest::addRow("negative rank") << R"({"bodies":[],"seen":{"j":[-1]}})" << shape;
        QTest::addRow("fractional rank") << R"({"bodies":[],"seen":{"j":[1.5]}})" << shape;
        QTest::addRow("rank as text") << R"({"bodies":[],"seen":{"j":["1"]}})" << shape;
        QTest::addRow("empty job") << R"({"bodies":[],"seen":{"":[1]}})" << shape;
        QTest::addRow("held too") << R"({"bodies":[],"seen":{"j":[2,1]},"held":{"j":[2]}})"
                                  << R"({"bodies":[],"held":{"j":[2]},"seen":{"j":[1,2]}})";
        QTest::addRow("held negative") << R"({"bodies":[],"held":{"j":[-1]}})"
                                       << R"("held" must be {"<job>": [<rank>, ...]})";
    }
    void batch_seen() {
        QFETCH(QString, text);
        QFETCH(QString, seen);
        const auto batch = meshscope::relay::decode_batch(text.toStdString());
        if (!batch) {
            QCOMPARE(QString::fromStdString(batch.error().message()), seen);
            return;
        }
        std::vector<const std::string*> bodies;
        for (const auto& b : batch->bodies) bodies.push_back(&b);
        QCOMPARE(QString::fromStdString(meshscope::relay::encode_batch(bodies, batch->seen, batch->held)), seen);
    }

    // The relay's digest: each vouched rank named once a round, in slices of at most `most`; named again every
    // round until it is due back, then dropped; forgotten when it is taken again; "held" as soon as it is.
    void seen_digest_rounds() {
        using meshscope::relay::SeenDigest;
        const auto t0 = SeenDigest::Clock::time_point{} + std::chrono::hours(1);
        const auto at = [&](int s) { return t0 + std::chrono::seconds(s); };
        const auto names = [](const meshscope::SeenRanks& ranks) {
            QStringList out;
            for (const auto& [job, list] : ranks)
                for (const auto rank : list) out << QString::fromStdString(job) + ":" + QString::number(rank);
            out.sort();
            return out;
        };
        SeenDigest digest(5);
        for (const int rank : {4, 2, 4, 0}) digest.add("j", rank, at(10), false);
        digest.add("k", 9, at(20), true);
        digest.add("k", -1, at(20), false);  // not a rank
        digest.add("", 1, at(20), false);    // not a job
        QCOMPARE(digest.size(), std::size_t{4});
        digest.add(meshscope::SeenRanks{{"k", {9, 10}}, {"l", {1}}}, {}, at(5));  // k:10 fills it; l:1 is past it
        QCOMPARE(digest.size(), std::size_t{5});
        QStringList named, held;
        while (digest.due()) {  // round 1, in slices of 2
            const auto slice = digest.take(2);
            QVERIFY(meshscope::seen_count(slice.seen) <= 2);
            named << names(slice.seen);
            held << names(slice.held);
        }
        named.sort();
        QCOMPARE(named, (QStringList{"j:0", "j:2", "j:4", "k:10", "k:9"}));
        QCOMPARE(held, QStringList{"k:9"});
        digest.forget("j", 2);      // taken again
        digest.start_round(at(6));  // k:10 (until 5) is dropped; the rest are named again
        QCOMPARE(names(digest.take().seen), (QStringList{"j:0", "j:4", "k:9"}));
        QVERIFY(!digest.due());
        digest.add("j", 0, at(10), true);  // newly held: named again in this round, as held
        QVERIFY(digest.due());
        QCOMPARE(names(digest.take().held), QStringList{"j:0"});
        digest.start_round(at(15));  // j:0 and j:4 (until 10) are dropped
        QCOMPARE(names(digest.take().seen), QStringList{"k:9"});
        digest.start_round(at(25));
        QVERIFY(digest.empty() && !digest.due());

        // At most 2 jobs: a third job's ranks are dropped, a known job's are still taken.
        SeenDigest two_jobs(100, 2);
        two_jobs.add(meshscope::SeenRanks{{"a", {0, 1}}, {"b", {0}}, {"c", {0, 1, 2}}}, {}, at(5));
        two_jobs.add("b", 7, at(5), false);
        QCOMPARE(names(two_jobs.take().seen), (QStringList{"a:0", "a:1", "b:0", "b:7"}));
    }

    // 100 ranks, batches of 25 and a batch window longer than the test: exactly 4 upstream requests, and
    // every rank gets the result of its own body.
    void many_ranks_go_up_in_few_batches() {
        FakeUpstream upstream;
        QVERIFY(upstream.listen());
        auto o = options_for(upstream.port());
        o.batch_ms = 600000;
        o.batch_bodies = 25;
        auto relay = start(o);
        std::vector<std::unique_ptr<Rank>> ranks;
        for (int i = 0; i < 100; ++i) {
            ranks.push_back(std::make_unique<Rank>());
            ranks.back()->post(relay->port(), body_n(i));
        }
        QTRY_VERIFY_WITH_TIMEOUT(all_answered(ranks), 15000);
        for (int i = 0; i < 100; ++i) {
            QCOMPARE(ranks[i]->status(), 200);
            QCOMPARE(ranks[i]->json(), (QJsonObject{{"accepted", i}}));
        }
        QCOMPARE(upstream.received.size(), 4);
        for (const auto& batch : upstream.received) {
            QCOMPARE(batch.bodies.size(), 25);
            QCOMPARE(batch.target, QByteArray("/api/v1/batches"));
        }
        QCOMPARE(upstream.bodies_received(), 100);
    }

    // The acknowledgement means "stored upstream": no answer while the upstream holds its own.
    void rank_is_answered_only_after_the_upstream() {
        FakeUpstream upstream;
        QVERIFY(upstream.listen());
        upstream.hold = true;
        auto relay = start(options_for(upstream.port()));
        Rank rank;
        rank.post(relay->port(), body_n(7));
        QTRY_COMPARE_WITH_TIMEOUT(upstream.received.size(), 1, 15000);
        QVERIFY(!rank.answered());  // the upstream has not answered: the relay cannot have
        upstream.release();
        QTRY_VERIFY_WITH_TIMEOUT(rank.answered(), 15000);
        QCOMPARE(rank.status(), 200);
        QCOMPARE(rank.json(), (QJsonObject{{"accepted", 7}}));
    }

    // At most max_in_flight batches wait for the upstream; the rest wait in the relay.
    void batches_in_flight_are_bounded() {
        FakeUpstream upstream;
        QVERIFY(upstream.listen());
        upstream.hold = true;
        auto o = options_for(upstream.port());
        o.batch_bodies = 1;
        o.max_in_flight = 2;
        auto relay = start(o);
        std::vector<std::unique_ptr<Rank>> ranks;
        for (int i = 0; i < 5; ++i) {
            ranks.push_back(std::make_unique<Rank>());
            ranks.back()->post(relay->port(), body_n(i));
        }
        QTRY_COMPARE_WITH_TIMEOUT(relay->stats().bodies_received, qint64(5), 15000);
        QTRY_COMPARE_WITH_TIMEOUT(upstream.received.size(), 2, 15000);
        QCOMPARE(relay->stats().waiting_bodies, qint64(5));
        upstream.release();
        QTRY_VERIFY_WITH_TIMEOUT(all_answered(ranks), 15000);
        QCOMPARE(upstream.bodies_received(), 5);
        for (int i = 0; i < 5; ++i) QCOMPARE(ranks[i]->json(), (QJsonObject{{"accepted", i}}));
    }

    // One bad event refuses its own rank, with the collector's text, never its neighbours.
    void a_bad_body_refuses_only_its_rank() {
        FakeUpstream upstream;
        QVERIFY(upstream.listen());
        const QString text = R"(event 1: field "rank" must be an integer)";
        upstream.judge = [text](const QString& body) {
            const int n = QJsonDocument::fromJson(body.toUtf8()).object()["n"].toInt();
            if (n == 13) return QJsonObject{{"status", 400}, {"error", text}};
            return QJsonObject{{"status", 200}, {"accepted", n}};
        };
        auto o = options_for(upstream.port());
        o.batch_ms = 600000;
        o.batch_bodies = 20;
        auto relay = start(o);
        std::vector<std::unique_ptr<Rank>> ranks;
        for (int i = 0; i < 20; ++i) {
            ranks.push_back(std::make_unique<Rank>());
            ranks.back()->post(relay->port(), body_n(i));
        }
        QTRY_VERIFY_WITH_TIMEOUT(all_answered(ranks), 15000);
        QCOMPARE(upstream.received.size(), 1);
        for (int i = 0; i < 20; ++i) {
            if (i == 13) {
                QCOMPARE(ranks[i]->status(), 400);
                QCOMPARE(ranks[i]->error(), text);
            } else {
                QCOMPARE(ranks[i]->status(), 200);
            }
        }
    }

    // Nobody listens upstream: 503 + Retry-After (the reporter keeps its events); once the collector is
    // there, the same relay delivers.
    void upstream_down_then_back() {
        quint16 port = 0;
        {
            QTcpServer probe;  // a port nobody listens on (until the fake takes it below)
            QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
            port = probe.serverPort();
        }
        auto relay = start(options_for(port));
        Rank first;
        first.post(relay->port(), body_n(1));
        QTRY_VERIFY_WITH_TIMEOUT(first.answered(), 15000);
        QCOMPARE(first.status(), 503);
        QVERIFY2(first.error().startsWith("collector unreachable: "), qPrintable(first.error()));
        QCOMPARE(first.header("Retry-After"), QByteArray("2"));

        FakeUpstream upstream;
        QVERIFY(upstream.listen(port));
        Rank again;
        again.post(relay->port(), body_n(1));
        QTRY_VERIFY_WITH_TIMEOUT(again.answered(), 15000);
        QCOMPARE(again.status(), 200);
        QCOMPARE(again.json(), (QJsonObject{{"accepted", 1}}));
    }

    // The collector sheds the whole batch: every rank gets its 503, its text and its Retry-After.
    void upstream_503_reaches_every_rank() {
        FakeUpstream upstream;
        QVERIFY(upstream.listen());
        upstream.whole_status = 503;
        upstream.whole_body = R"({"error":"collector busy: too many events waiting"})";
        upstream.retry_after = "3";
        auto relay = start(options_for(upstream.port()));
        std::vector<std::unique_ptr<Rank>> ranks;
        for (int i = 0; i < 3; ++i) {
            ranks.push_back(std::make_unique<Rank>());
            ranks.back()->post(relay->port(), body_n(i));
        }
        QTRY_VERIFY_WITH_TIMEOUT(all_answered(ranks), 15000);
        for (const auto& r : ranks) {
            QCOMPARE(r->status(), 503);
            QCOMPARE(r->error(), QString("collector busy: too many events waiting"));
            QCOMPARE(r->header("Retry-After"), QByteArray("3"));
        }
    }

    // Past the bound of waiting bodies a rank is refused at once, while the others still wait.
    void over_the_bound_is_refused_at_once() {
        FakeUpstream upstream;
        QVERIFY(upstream.listen());
        upstream.hold = true;
        auto o = options_for(upstream.port());
        o.max_waiting_bodies = 3;
        auto relay = start(o);
        std::vector<std::unique_ptr<Rank>> ranks;
        for (int i = 0; i < 3; ++i) {
            ranks.push_back(std::make_unique<Rank>());
            ranks.back()->post(relay->port(), body_n(i));
        }
        QTRY_COMPARE_WITH_TIMEOUT(relay->stats().waiting_bodies, qint64(3), 15000);
        Rank extra;
        extra.post(relay->port(), body_n(3));
        QTRY_VERIFY_WITH_TIMEOUT(extra.answered(), 15000);
        QCOMPARE(extra.status(), 503);
        QCOMPARE(extra.error(), QString("relay busy: too many events waiting for the collector"));
        QCOMPARE(extra.header("Retry-After"), QByteArray("1"));
        QVERIFY(!all_answered(ranks));
        upstream.release();
        QTRY_VERIFY_WITH_TIMEOUT(all_answered(ranks), 15000);
        for (const auto& r : ranks) QCOMPARE(r->status(), 200);
    }

    // The upstream holds its answer: a rank that waits 0.2 s gets 503 + Retry-After from the relay, never
    // a place in a queue it would leave by timing out; it is never sent upstream.
    void a_blocked_upstream_gets_503_not_a_queue() {
        FakeUpstream upstream;
        QVERIFY(upstream.listen());
        upstream.hold = true;
        auto relay = start(options_for(upstream.port()));
        Rank first;  // waits ten minutes
        first.post(relay->port(), body_n(1));
        QTRY_COMPARE_WITH_TIMEOUT(upstream.received.size(), 1, 15000);
        Rank hurried;
        hurried.post(relay->port(), body_n(2), {}, "/api/v1/events", "POST", "0.2");
        QTRY_VERIFY_WITH_TIMEOUT(hurried.answered(), 15000);
        QCOMPARE(hurried.status(), 503);
        QVERIFY2(hurried.error() == wait_refusal || hurried.error() == expired_refusal, qPrintable(hurried.error()));
        QVERIFY(hurried.header("Retry-After").toInt() >= 1);
        std::unique_ptr<Rank> probe;
        QTRY_VERIFY_WITH_TIMEOUT(refused_at_admission(relay->port(), probe), 15000);
        QVERIFY(probe->header("Retry-After").toInt() >= 1);
        QCOMPARE(upstream.received.size(), 1);
        QCOMPARE(relay->stats().waiting_bodies, qint64(1));  // only the first, still held upstream
        QVERIFY(!first.answered());
        upstream.release();
        QTRY_VERIFY_WITH_TIMEOUT(first.answered(), 15000);
        QCOMPARE(first.status(), 200);
        QCOMPARE(upstream.bodies_received(), 1);  // neither the hurried body nor a probe went up
        QCOMPARE(relay->stats().batches_sent, qint64(1));
    }

    // When events would be refused, heartbeats are refused first ("shed"), and the rank stays seen: it is
    // named in the next "seen" digest, which goes up with no rank waiting for it.
    void heartbeats_are_shed_first_and_still_seen() {
        FakeUpstream upstream;
        std::unique_ptr<Relay> relay;
        Rank first;
        QVERIFY(start_jammed(upstream, relay, first));
        Rank heartbeat;
        heartbeat.post(relay->port(), heartbeat_body(), {}, "/api/v1/events", "POST", "0.01");
        QTRY_VERIFY_WITH_TIMEOUT(heartbeat.answered(), 15000);
        QCOMPARE(heartbeat.status(), 503);
        QCOMPARE(heartbeat.error(), QString("relay busy: heartbeat shed (the rank is still seen)"));
        QCOMPARE(heartbeat.header("Retry-After"), QByteArray("5"));
        QCOMPARE(relay->stats().heartbeats_shed, qint64(1));
        upstream.release();
        QTRY_VERIFY_WITH_TIMEOUT(first.answered(), 15000);
        QTRY_COMPARE_WITH_TIMEOUT(upstream.seen_ranks(), QStringList{"j:3"}, 15000);
        QCOMPARE(upstream.seen_ranks(true), QStringList{});  // alive, but no lifecycle event of it waits
        for (const auto& batch : upstream.received)          // named, never forwarded as a body
            QVERIFY(!batch.bodies.contains(QString::fromUtf8(heartbeat_body())));
        QTRY_VERIFY_WITH_TIMEOUT(relay->stats().seen_ranks_forwarded >= 1, 15000);  // once answered
        QVERIFY(stop_serving(*relay));
    }

    // A lifecycle body refused by expected wait keeps its events in the rank's reporter, and its rank is named
    // seen upstream: the collector knows it alive (not stale, not missing) while it waits to come back.
    void a_refused_rank_is_named_seen() {
        FakeUpstream upstream;
        std::unique_ptr<Relay> relay;
        Rank first;
        QVERIFY(start_jammed(upstream, relay, first));
        const QByteArray launch = R"([{"job":"j","rank":5,"world_size":8,"phase":"launch","status":"started","ts":1},)"
                                  R"({"job":"j","rank":5,"world_size":8,"phase":"launch","status":"done","ts":2}])";
        Rank refused;
        refused.post(relay->port(), launch, {}, "/api/v1/events", "POST", "0.01");
        QTRY_VERIFY_WITH_TIMEOUT(refused.answered(), 15000);
        QCOMPARE(refused.status(), 503);
        QCOMPARE(refused.error(), QString(wait_refusal));
        upstream.release();
        QTRY_COMPARE_WITH_TIMEOUT(upstream.seen_ranks(), QStringList{"j:5"}, 15000);
        QCOMPARE(upstream.seen_ranks(true), QStringList{"j:5"});  // its lifecycle events wait in its reporter
        QCOMPARE(upstream.bodies_received(), 1);                  // the refused body never went up
        // Vouched for until it is due back (its Retry-After, at least a second): named in round after round.
        QTRY_VERIFY_WITH_TIMEOUT(relay->stats().seen_ranks_forwarded >= 3, 15000);
        QVERIFY(stop_serving(*relay));
    }

    // A relay below names its own held-back ranks in its batches' "seen": they go on up with this relay's
    // digest; a "seen" that is not {"<job>": [rank, ...]} refuses that batch with the collector's text.
    void seen_from_below_goes_up() {
        FakeUpstream upstream;
        QVERIFY(upstream.listen());
        auto options = options_for(upstream.port());
        options.seen_every_ms = 50;
        auto relay = start(options);
        Rank lower;
        lower.post(relay->port(), R"({"bodies":[],"seen":{"j":[4,1],"k":[0]}})", {}, "/api/v1/batches");
        QTRY_VERIFY_WITH_TIMEOUT(lower.answered(), 15000);
        QCOMPARE(lower.status(), 200);
        QCOMPARE(lower.json(), (QJsonObject{{"results", QJsonArray()}}));
        QTRY_COMPARE_WITH_TIMEOUT(upstream.seen_ranks(), (QStringList{"j:1", "j:4", "k:0"}), 15000);
        Rank bad;
        bad.post(relay->port(), R"({"bodies":[],"seen":{"j":[-4]}})", {}, "/api/v1/batches");
        QTRY_VERIFY_WITH_TIMEOUT(bad.answered(), 15000);
        QCOMPARE(bad.status(), 400);
        QCOMPARE(bad.error(), QString(R"("seen" must be {"<job>": [<rank>, ...]})"));
    }

    // A rank that timed out sends the same bytes again: while the first copy is still in flight or queued,
    // the relay sends it upstream once and answers both requests with its result.
    void a_retried_duplicate_is_forwarded_once() {
        FakeUpstream upstream;
        QVERIFY(upstream.listen());
        upstream.hold = true;
        auto relay = start(options_for(upstream.port()));
        Rank in_flight, in_flight_again, queued, queued_again;
        in_flight.post(relay->port(), body_n(5));
        QTRY_COMPARE_WITH_TIMEOUT(upstream.received.size(), 1, 15000);
        in_flight_again.post(relay->port(), body_n(5));
        queued.post(relay->port(), body_n(6));
        QTRY_COMPARE_WITH_TIMEOUT(relay->stats().bodies_received, qint64(3), 15000);
        queued_again.post(relay->port(), body_n(6));
        QTRY_COMPARE_WITH_TIMEOUT(relay->stats().bodies_deduplicated, qint64(2), 15000);
        QCOMPARE(relay->stats().waiting_bodies, qint64(2));
        upstream.release();
        for (Rank* r : {&in_flight, &in_flight_again, &queued, &queued_again})
            QTRY_VERIFY_WITH_TIMEOUT(r->answered(), 15000);
        QCOMPARE(in_flight.json(), (QJsonObject{{"accepted", 5}}));
        QCOMPARE(in_flight_again.json(), (QJsonObject{{"accepted", 5}}));
        QCOMPARE(queued.json(), (QJsonObject{{"accepted", 6}}));
        QCOMPARE(queued_again.json(), (QJsonObject{{"accepted", 6}}));
        QCOMPARE(upstream.bodies_received(), 2);  // 5 once, 6 once
    }

    // With --token every request needs it; --upstream-token goes upstream.
    void token_is_required_when_set() {
        FakeUpstream upstream;
        QVERIFY(upstream.listen());
        auto o = options_for(upstream.port());
        o.token = "s3cret";
        o.upstream_token = "up-token";
        auto relay = start(o);
        for (const QByteArray& token : {QByteArray(), QByteArray("wrong")}) {
            Rank rank;
            rank.post(relay->port(), body_n(1), token);
            QTRY_VERIFY_WITH_TIMEOUT(rank.answered(), 15000);
            QCOMPARE(rank.status(), 401);
            QCOMPARE(rank.error(), QString("missing or wrong bearer token"));
            QCOMPARE(rank.header("WWW-Authenticate"), QByteArray("Bearer"));
        }
        QCOMPARE(upstream.received.size(), 0);
        Rank rank;
        rank.post(relay->port(), body_n(1), "s3cret");
        QTRY_VERIFY_WITH_TIMEOUT(rank.answered(), 15000);
        QCOMPARE(rank.status(), 200);
        QCOMPARE(upstream.received.value(0).authorization, QByteArray("Bearer up-token"));
    }

    // The collector's answers for what is not an event: same statuses and texts.
    void answers_like_the_collector_data() {
        QTest::addColumn<QByteArray>("method");
        QTest::addColumn<QByteArray>("path");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("error");
        QTest::addColumn<QByteArray>("allow");
        QTest::addRow("GET events") << QByteArray("GET") << QByteArray("/api/v1/events") << 405 << "use POST"
                                    << QByteArray("POST");
        QTest::addRow("PUT batches") << QByteArray("PUT") << QByteArray("/api/v1/batches") << 405 << "use POST"
                                     << QByteArray("POST");
        QTest::addRow("POST health") << QByteArray("POST") << QByteArray("/api/v1/health") << 405 << "use GET"
                                     << QByteArray("GET");
        QTest::addRow("health") << QByteArray("GET") << QByteArray("/api/v1/health") << 200 << "" << QByteArray();
        QTest::addRow("unknown") << QByteArray("GET") << QByteArray("/api/v1/jobs") << 404
                                 << "no such endpoint: /api/v1/jobs" << QByteArray();
        // Records go to the collector itself, once per job (docs/live-at-scale.md).
        QTest::addRow("records")
            << QByteArray("POST") << QByteArray("/api/v1/jobs/j/records") << 404
            << "a relay forwards events only: give meshscope import the collector's URL as --target" << QByteArray();
        QTest::addRow("bad batch") << QByteArray("POST") << QByteArray("/api/v1/batches") << 400
                                   << R"(the body must be {"bodies": ["<request body>", ...]})" << QByteArray();
    }
    void answers_like_the_collector() {
        QFETCH(QByteArray, method);
        QFETCH(QByteArray, path);
        QFETCH(int, status);
        QFETCH(QString, error);
        QFETCH(QByteArray, allow);
        FakeUpstream upstream;
        QVERIFY(upstream.listen());
        auto relay = start(options_for(upstream.port()));
        Rank rank;
        rank.post(relay->port(), "[1]", {}, path, method);
        QTRY_VERIFY_WITH_TIMEOUT(rank.answered(), 15000);
        QCOMPARE(rank.status(), status);
        if (status == 200)
            QCOMPARE(rank.json(), (QJsonObject{{"status", "ok"}}));
        else
            QCOMPARE(rank.error(), error);
        QCOMPARE(rank.header("Allow"), allow);
    }

    void body_too_large_and_slow_requests() {
        FakeUpstream upstream;
        QVERIFY(upstream.listen());
        auto o = options_for(upstream.port());
        o.max_body_bytes = 1000;
        o.read_timeout_ms = 300;
        auto relay = start(o);
        Rank large;  // refused from its Content-Length, before the body comes
        large.send_raw(relay->port(),
                       "POST /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5000\r\n\r\n{");
        QTRY_VERIFY_WITH_TIMEOUT(large.answered(), 15000);
        QCOMPARE(large.status(), 413);
        QCOMPARE(large.error(), QString("request body larger than 1000 bytes"));
        Rank batch;  // a lower relay's batch may be larger than a rank's body (4 x batch_bytes)
        batch.send_raw(relay->port(),
                       "POST /api/v1/batches HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5000\r\n\r\n{");
        QTRY_VERIFY_WITH_TIMEOUT(batch.answered(), 15000);
        QCOMPARE(batch.status(), 408);  // not refused for its size: it waited for the rest of its body
        Rank slow;                      // started, never finished
        slow.send_raw(relay->port(), "POST /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n\r\n{");
        QTRY_VERIFY_WITH_TIMEOUT(slow.answered(), 15000);
        QCOMPARE(slow.status(), 408);
        QCOMPARE(slow.error(), QString("request not received in time"));
        QCOMPARE(upstream.received.size(), 0);
    }

    // Past --max-connections: accepted, answered 503 "too many connections" with Retry-After, closed.
    void too_many_connections() {
        FakeUpstream upstream;
        QVERIFY(upstream.listen());
        auto o = options_for(upstream.port());
        o.max_connections = 2;
        auto relay = start(o);
        QTcpSocket a, b;
        a.connectToHost(QHostAddress::LocalHost, relay->port());
        b.connectToHost(QHostAddress::LocalHost, relay->port());
        QTRY_COMPARE_WITH_TIMEOUT(relay->stats().connections, 2, 15000);
        Rank third;
        third.post(relay->port(), body_n(1));
        QTRY_VERIFY_WITH_TIMEOUT(third.answered(), 15000);
        QCOMPARE(third.status(), 503);
        QCOMPARE(third.error(), QString("too many connections"));
        QCOMPARE(third.header("Retry-After"), QByteArray("2"));
    }

    // ranks -> lower relay -> upper relay -> collector: the upper one flattens the lower one's batch into
    // its own, and each result finds its way back to its rank.
    void relays_chain() {
        FakeUpstream upstream;
        QVERIFY(upstream.listen());
        upstream.judge = [](const QString& body) {
            const int n = QJsonDocument::fromJson(body.toUtf8()).object()["n"].toInt();
            if (n == 4) return QJsonObject{{"status", 400}, {"error", "event 1: bad"}};
            return QJsonObject{{"status", 200}, {"accepted", n}};
        };
        auto upper_options = options_for(upstream.port());
        upper_options.batch_ms = 600000;
        upper_options.batch_bodies = 10;
        auto upper = start(upper_options);
        std::vector<std::unique_ptr<Relay>> lowers;
        for (int i = 0; i < 2; ++i) {
            auto o = options_for(upper->port());
            o.batch_ms = 600000;
            o.batch_bodies = 5;
            lowers.push_back(start(o));
        }
        std::vector<std::unique_ptr<Rank>> ranks;
        for (int i = 0; i < 10; ++i) {
            ranks.push_back(std::make_unique<Rank>());
            ranks.back()->post(lowers[i % 2]->port(), body_n(i));
        }
        QTRY_VERIFY_WITH_TIMEOUT(all_answered(ranks), 15000);
        QCOMPARE(upstream.received.size(), 1);
        QStringList got = upstream.received[0].bodies;
        got.sort();
        QStringList expected;
        for (int i = 0; i < 10; ++i) expected << QString::fromUtf8(body_n(i));
        expected.sort();
        QCOMPARE(got, expected);  // the rank bodies themselves, not nested batches
        for (int i = 0; i < 10; ++i) {
            if (i == 4) {
                QCOMPARE(ranks[i]->status(), 400);
                QCOMPARE(ranks[i]->error(), QString("event 1: bad"));
            } else {
                QCOMPARE(ranks[i]->json(), (QJsonObject{{"accepted", i}}));
            }
        }
    }

    // A batch larger than the upstream takes (413) is sent again in halves; a single body it refuses gets
    // the collector's 413, as if the rank had sent it there.
    void a_batch_too_large_upstream_is_split() {
        FakeUpstream upstream;
        QVERIFY(upstream.listen());
        upstream.max_bodies = 2;
        auto o = options_for(upstream.port());
        o.batch_ms = 600000;
        o.batch_bodies = 4;
        auto relay = start(o);
        std::vector<std::unique_ptr<Rank>> ranks;
        for (int i = 0; i < 4; ++i) {
            ranks.push_back(std::make_unique<Rank>());
            ranks.back()->post(relay->port(), body_n(i));
        }
        QTRY_VERIFY_WITH_TIMEOUT(all_answered(ranks), 15000);
        QCOMPARE(upstream.received.size(), 3);  // 4 refused, then 2 + 2
        for (int i = 0; i < 4; ++i) QCOMPARE(ranks[i]->json(), (QJsonObject{{"accepted", i}}));

        upstream.max_bodies = 0;  // now not even one body: each rank gets the upstream's 413
        auto second = start(options_for(upstream.port()));
        std::vector<std::unique_ptr<Rank>> alone;
        for (int i = 0; i < 4; ++i) {
            alone.push_back(std::make_unique<Rank>());
            alone.back()->post(second->port(), body_n(10 + i));
        }
        QTRY_VERIFY_WITH_TIMEOUT(all_answered(alone), 15000);
        for (const auto& r : alone) {
            QCOMPARE(r->status(), 413);
            QCOMPARE(r->error(), QString("request body larger than 40 bytes"));
        }
    }

    // Stopping sends what is queued and answers the ranks before the relay closes.
    void stop_delivers_what_is_queued() {
        FakeUpstream upstream;
        QVERIFY(upstream.listen());
        auto o = options_for(upstream.port());
        o.batch_ms = 600000;  // only the stop sends it
        auto relay = start(o);
        Rank rank;
        rank.post(relay->port(), body_n(42));
        QTRY_COMPARE_WITH_TIMEOUT(relay->stats().waiting_bodies, qint64(1), 15000);
        QCOMPARE(upstream.received.size(), 0);
        std::thread stopper([&] { relay->stop(); });  // blocks until done; the fake answers on this thread
        QTRY_VERIFY_WITH_TIMEOUT(rank.answered(), 15000);
        stopper.join();
        QCOMPARE(rank.status(), 200);
        QCOMPARE(rank.json(), (QJsonObject{{"accepted", 42}}));
        QCOMPARE(upstream.received.size(), 1);
    }

    void cli_starts_prints_and_stops() {
#ifdef MESHSCOPE_BIN
        const auto bad = test::run_meshscope({"relay", "--upstream", "head:7077"});
        QCOMPARE(bad.exit_code, 2);
        QCOMPARE(bad.err, QByteArray("meshscope relay: --upstream must be http://HOST:PORT, got 'head:7077'\n"));
        const auto open = test::run_meshscope({"relay", "--listen", "0.0.0.0:0", "--upstream", "http://127.0.0.1:1"});
        QCOMPARE(open.exit_code, 2);
        QCOMPARE(open.err, QByteArray("meshscope relay: 0.0.0.0:0 is not a loopback address: give --token or "
                                      "--token-file so that only your ranks can report\n"));

        FakeUpstream upstream;
        QVERIFY(upstream.listen());
        QProcess process;
        const QString url = QStringLiteral("http://127.0.0.1:%1").arg(upstream.port());
        process.start(MESHSCOPE_BIN, {"relay", "--listen", "127.0.0.1:0", "--upstream", url});
        QTRY_VERIFY_WITH_TIMEOUT(process.canReadLine(), 15000);
        const auto line = QJsonDocument::fromJson(process.readLine()).object();
        QCOMPARE(line["upstream"].toString(), url);
        const int port = line["port"].toInt();
        QVERIFY(port > 0);
        QCOMPARE(line["listening"].toString(), QStringLiteral("http://127.0.0.1:%1").arg(port));
        QVERIFY(line["max_connections"].toInt() > 0);
        Rank rank;
        rank.post(static_cast<quint16>(port), body_n(5));
        QTRY_VERIFY_WITH_TIMEOUT(rank.answered(), 15000);
        QCOMPARE(rank.json(), (QJsonObject{{ "accepted", 5 }}));
        process.terminate();
        QVERIFY(process.waitForFinished(15000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 0);
#else
        QFAIL("meshscope is not built: the test command builds it (MESHSCOPE_BIN)");
#endif
    }
};

QTEST_GUILESS_MAIN(TestRelay)
#include "tst_relay.moc"
