// LiveClient's off-GUI-thread snapshots (getRows / getConverted) against a scripted HTTP server on loopback:
// answers finishing out of order (an older one never overwrites a newer one), one parse in flight per kind
// with only the newest body waiting, exact error texts, a client or session destroyed while a parse runs,
// and how long the GUI thread stalls for a 16,384-rank snapshot before (parse on the GUI thread) and after;
// the stream's batched {"type":"changes"} messages, emitted one change at a time.
#include <QElapsedTimer>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSemaphore>
#include <QThreadPool>
#include <QTimer>
#include <QWebSocket>
#include <QWebSocketServer>
#include <QtTest>

#include <atomic>
#include <memory>

#include <nlohmann/json.hpp>

#include "large_snapshot.h"
#include "live_client.h"
#include "live_session.h"
#include "live_test_http.h"

using namespace meshscope;
using namespace meshscope::ui;
using nlohmann::json;

namespace {
QString tag_of(const json& body) {
    return body.is_object() && body.contains("tag") && body["tag"].is_string()
               ? QString::fromStdString(body["tag"].get<std::string>())
               : QString();
}

QByteArray tagged(const char* tag) {
    return QByteArray("{\"tag\":\"") + tag + "\"}";
}

// A worker-side gate: converts block until the test opens it; counts how many ran at once.
struct Gate {
    QSemaphore open;
    std::atomic<int> running{0};
    std::atomic<int> most_at_once{0};
    std::atomic<int> entered{0};
};

LiveClient::Convert gated(std::shared_ptr<Gate> gate) {
    return [gate](const json& body) {
        const int now = ++gate->running;
        int most = gate->most_at_once.load();
        while (now > most && !gate->most_at_once.compare_exchange_weak(most, now)) {
        }
        ++gate->entered;
        gate->open.acquire();
        --gate->running;
        return std::any(tag_of(body));
    };
}

// The longest the GUI thread's event loop went without running a 1 ms timer until `done` turned true.
template <typename Done>
double longest_stall_ms(Done done, int timeout_ms = 30000) {
    QElapsedTimer since_tick;
    QElapsedTimer total;
    double longest = 0;
    QTimer tick;
    tick.setInterval(1);
    QObject::connect(&tick, &QTimer::timeout, [&] {
        longest = std::max(longest, since_tick.nsecsElapsed() / 1e6);
        since_tick.restart();
    });
    since_tick.start();
    total.start();
    tick.start();
    while (!done() && total.elapsed() < timeout_ms) QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 5);
    longest = std::max(longest, since_tick.nsecsElapsed() / 1e6);
    return longest;
}

void drain_workers() {
    QThreadPool::globalInstance()->waitForDone();
    QCoreApplication::processEvents();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
}
}  // namespace

class TestLiveClient : public QObject {
    Q_OBJECT

private slots:
    // The collector sends {"type":"changes","changes":[...]} (docs/live-at-scale.md); the client emits each
    // change as if it had come alone, in order, skipping entries that are not objects. Single messages
    // (hello, an older collector's one change per message) still pass through as they are.
    void stream_changes_are_emitted_one_by_one() {
        QWebSocketServer server(QStringLiteral("scripted collector"), QWebSocketServer::NonSecureMode);
        QVERIFY(server.listen(QHostAddress::LocalHost, 0));
        connect(&server, &QWebSocketServer::newConnection, this, [&server] {
            QWebSocket* socket = server.nextPendingConnection();
            socket->sendTextMessage(R"({"type":"hello","protocol":"meshscope.stream/1"})");
            socket->sendTextMessage(R"({"type":"changes","changes":[{"type":"job_added","job":"j"},7,)"
                                    R"({"type":"rank_changed","job":"j","rank":3,"state":"ready","phase":"ready"}]})");
            socket->sendTextMessage(
                R"({"type":"finding_removed","job":"j","id":"missing_rank","kind":"missing_rank"})");
        });
        LiveClient client;
        QStringList seen;
        connect(&client, &LiveClient::changeReceived, this, [&seen](const json& message) {
            const LiveChange change = parse_change(message);
            QString item = QString::fromStdString(message.value("type", std::string()));
            if (change.type == LiveChange::Type::rank_changed)
                item +=
                    QStringLiteral(" %1 %2")
                        .arg(change.rank)
                        .arg(change.state ? QString::fromUtf8(std::string(meshscope::to_string(*change.state)).c_str())
                                          : QStringLiteral("(none)"));
            seen << item;
        });
        client.setServer(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(server.serverPort())), QString());
        QTRY_COMPARE_WITH_TIMEOUT(seen.size(), 4, 10000);
        QCOMPARE(seen, QStringList({"hello", "job_added", "rank_changed 3 ready", "finding_removed"}));
        QCOMPARE(client.changesReceived(), std::uint64_t{4});
    }

    // Two requests of one kind; the server answers them in the order the row says. Whatever reaches the client
    // after a newer answer was delivered is dropped: the page never goes back to an older snapshot.
    void out_of_order_answers_data() {
        QTest::addColumn<int>("old_status");
        QTest::addColumn<bool>("old_answers_last");
        QTest::addColumn<QStringList>("delivered");
        QTest::addRow("older rows after newer: dropped") << 200 << true << QStringList{QStringLiteral("new")};
        QTest::addRow("older error after newer: dropped") << 500 << true << QStringList{QStringLiteral("new")};
        QTest::addRow("in order: both") << 200 << false << QStringList{QStringLiteral("old"), QStringLiteral("new")};
        QTest::addRow("older error first: both")
            << 500 << false << QStringList{QStringLiteral("GET /old: 500 boom"), QStringLiteral("new")};
    }
    void out_of_order_answers() {
        QFETCH(int, old_status);
        QFETCH(bool, old_answers_last);
        QFETCH(QStringList, delivered);
        meshscope::test::ScriptedHttp http;
        http.route(QStringLiteral("/old"),
                   {old_status, old_status == 200 ? tagged("old") : "{\"error\":\"boom\"}", true});
        http.route(QStringLiteral("/new"), {200, tagged("new"), true});
        LiveClient client;
        client.setServer(QUrl(http.url()), QString());
        QStringList got;
        auto answer = [&got](QString tag, const QString& error, std::uint64_t) {
            got << (error.isEmpty() ? tag : error);
        };
        QCOMPARE(client.getRows<QString>(QStringLiteral("ranks"), QStringLiteral("/old"), &client, tag_of, answer), 1u);
        QCOMPARE(client.getRows<QString>(QStringLiteral("ranks"), QStringLiteral("/new"), &client, tag_of, answer), 2u);
        QTRY_VERIFY(http.requested().contains(QStringLiteral("/old")) &&
                    http.requested().contains(QStringLiteral("/new")));
        const QString first = old_answers_last ? QStringLiteral("/new") : QStringLiteral("/old");
        const QString second = old_answers_last ? QStringLiteral("/old") : QStringLiteral("/new");
        http.release(first);
        QTRY_COMPARE(got.size(), 1);
        http.release(second);
        // Both answers went through the client (delivered or dropped): a wrongly delivered stale one has shown.
        QTRY_COMPARE(client.answersSettled(QStringLiteral("ranks")), std::uint64_t{2});
        QCOMPARE(got, delivered);
    }

    // Kinds are separate lanes: a newer "findings" answer does not drop an older "ranks" one.
    void kinds_are_independent() {
        meshscope::test::ScriptedHttp http;
        http.route(QStringLiteral("/ranks"), {200, tagged("ranks"), true});
        http.route(QStringLiteral("/findings"), {200, tagged("findings"), false});
        LiveClient client;
        client.setServer(QUrl(http.url()), QString());
        QStringList got;
        auto answer = [&got](QString tag, const QString&, std::uint64_t) { got << tag; };
        client.getRows<QString>(QStringLiteral("ranks"), QStringLiteral("/ranks"), &client, tag_of, answer);
        client.getRows<QString>(QStringLiteral("findings"), QStringLiteral("/findings"), &client, tag_of, answer);
        QTRY_COMPARE(got, QStringList{QStringLiteral("findings")});
        http.release(QStringLiteral("/ranks"));
        QTRY_COMPARE(got, (QStringList{QStringLiteral("findings"), QStringLiteral("ranks")}));
    }

    // Bounded work: while one body of a kind is parsed, newer bodies replace each other; only the newest is
    // parsed next. Never two parses of one kind at once.
    void one_parse_per_kind_newest_waiting() {
        meshscope::test::ScriptedHttp http;
        for (const char* tag : {"a", "b", "c"}) http.route(QStringLiteral("/") + tag, {200, tagged(tag), false});
        LiveClient client;
        client.setServer(QUrl(http.url()), QString());
        auto gate = std::make_shared<Gate>();
        QStringList got;
        auto answer = [&got](std::any rows, const QString& error, std::uint64_t) {
            got << (error.isEmpty() ? std::any_cast<QString>(rows) : error);
        };
        client.getConverted(QStringLiteral("ranks"), QStringLiteral("/a"), &client, gated(gate), answer);
        QTRY_COMPARE(gate->entered.load(), 1);  // "a" is being parsed, and blocks
        client.getConverted(QStringLiteral("ranks"), QStringLiteral("/b"), &client, gated(gate), answer);
        QTRY_VERIFY(http.answered().contains(QStringLiteral("/b")));
        client.getConverted(QStringLiteral("ranks"), QStringLiteral("/c"), &client, gated(gate), answer);
        // Both bodies reach the client while "a" still parses: "c" replaces "b", which is dropped unparsed.
        QTRY_COMPARE(client.answersSettled(QStringLiteral("ranks")), std::uint64_t{1});
        QCOMPARE(client.parsesStarted(), 1);
        gate->open.release(3);
        QTRY_COMPARE(got, (QStringList{QStringLiteral("a"), QStringLiteral("c")}));
        drain_workers();
        QCOMPARE(got, (QStringList{QStringLiteral("a"), QStringLiteral("c")}));
        QCOMPARE(client.parsesStarted(), 2);
        QCOMPARE(gate->most_at_once.load(), 1);
        QCOMPARE(client.answersSettled(QStringLiteral("ranks")), std::uint64_t{3});
    }

    // get()'s error texts, now from the worker path.
    void errors_data() {
        QTest::addColumn<int>("status");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QString>("error");
        QTest::addRow("not JSON") << 200 << QByteArray("{\"ranks\": [")
                                  << QStringLiteral("GET /x: the answer is not JSON");
        QTest::addRow("404 with an error") << 404 << QByteArray("{\"error\":\"no job named \\\"x\\\"\"}")
                                           << QStringLiteral("GET /x: 404 no job named \"x\"");
        QTest::addRow("500 plain text") << 500 << QByteArray("oops") << QStringLiteral("GET /x: 500 oops");
    }
    void errors() {
        QFETCH(int, status);
        QFETCH(QByteArray, body);
        QFETCH(QString, error);
        meshscope::test::ScriptedHttp http;
        http.route(QStringLiteral("/x"), {status, body, false});
        LiveClient client;
        client.setServer(QUrl(http.url()), QString());
        QStringList got;
        client.getRows<QString>(QStringLiteral("ranks"), QStringLiteral("/x"), &client, tag_of,
                                [&got](QString, const QString& e, std::uint64_t) { got << e; });
        QTRY_COMPARE(got, QStringList{error});
    }

    void not_connected() {
        LiveClient client;
        QStringList got;
        client.getRows<QString>(QStringLiteral("ranks"), QStringLiteral("/x"), &client, tag_of,
                                [&got](QString, const QString& e, std::uint64_t) { got << e; });
        QCOMPARE(got, QStringList{QStringLiteral("not connected to a collector")});
    }

    // A client gone (or its answer's context gone) while the worker parses: the worker finishes on its own
    // copy of the body, and its result goes nowhere.
    void destroyed_while_parsing_data() {
        QTest::addColumn<bool>("destroy_client");
        QTest::addRow("client destroyed") << true;
        QTest::addRow("context destroyed") << false;
    }
    void destroyed_while_parsing() {
        QFETCH(bool, destroy_client);
        meshscope::test::ScriptedHttp http;
        http.route(QStringLiteral("/a"), {200, tagged("a"), false});
        auto client = std::make_unique<LiveClient>();
        auto context = std::make_unique<QObject>();
        client->setServer(QUrl(http.url()), QString());
        auto gate = std::make_shared<Gate>();
        int answers = 0;
        client->getConverted(QStringLiteral("ranks"), QStringLiteral("/a"), context.get(), gated(gate),
                             [&answers](std::any, const QString&, std::uint64_t) { ++answers; });
        QTRY_COMPARE(gate->entered.load(), 1);
        if (destroy_client)
            client.reset();
        else
            context.reset();
        gate->open.release();
        drain_workers();  // the parse ended, and its end went to the client's thread
        // A client still there has dropped the answer; a client gone took its delivery with it.
        if (client) QTRY_COMPARE(client->answersSettled(QStringLiteral("ranks")), std::uint64_t{1});
        QCOMPARE(answers, 0);
        QCOMPARE(gate->running.load(), 0);
    }

    // LiveSession: a snapshot of a job no longer selected, answered after the selected job's one, is dropped.
    void snapshot_of_a_job_no_longer_selected_is_dropped() {
        meshscope::test::ScriptedHttp http;
        http.route(QStringLiteral("/api/v1/jobs"),
                   {200, "{\"jobs\":[{\"job\":\"a\",\"world_size\":4},{\"job\":\"b\",\"world_size\":2}]}", false});
        const auto ranks_of = [](int count, const char* host) {
            json ranks = json::array();
            for (int r = 0; r < count; ++r) ranks.push_back({{"rank", r}, {"state", "ready"}, {"host", host}});
            return QByteArray::fromStdString(json{{"ranks", ranks}}.dump());
        };
        http.route(QStringLiteral("/api/v1/jobs/a/ranks"), {200, ranks_of(4, "node-a"), true});
        http.route(QStringLiteral("/api/v1/jobs/b/ranks"), {200, ranks_of(2, "node-b"), true});
        for (const char* job : {"a", "b"})
            http.route(QStringLiteral("/api/v1/jobs/%1/findings").arg(QLatin1String(job)),
                       {200, "{\"findings\":[]}", false});
        LiveSession session;
        session.inputs()->setPollIntervalMs(600000);
        session.inputs()->setUrl(http.url());
        QTRY_VERIFY(!session.inputs()->currentJob().isEmpty());
        const QString first = session.inputs()->currentJob();
        const QString second = first == QStringLiteral("a") ? QStringLiteral("b") : QStringLiteral("a");
        const QString first_ranks = QStringLiteral("/api/v1/jobs/%1/ranks").arg(first);
        const QString second_ranks = QStringLiteral("/api/v1/jobs/%1/ranks").arg(second);
        QTRY_VERIFY(http.requested().contains(first_ranks));
        session.inputs()->setCurrentJob(second);
        QTRY_VERIFY(http.requested().contains(second_ranks));
        http.release(second_ranks);
        const int second_count = second == QStringLiteral("a") ? 4 : 2;
        QTRY_COMPARE(session.view()->ranks()->count(), second_count);
        http.release(first_ranks);
        // Both ranks answers went through the client; the stale one was dropped there or by the session.
        QTRY_COMPARE(session.client().answersSettled(QStringLiteral("ranks")), std::uint64_t{2});
        const int updates = session.view()->updateCount();
        session.refresh();  // a flush after the stale answer: it would apply a wrongly buffered snapshot
        QTRY_VERIFY(session.view()->updateCount() > updates);
        QCOMPARE(session.inputs()->currentJob(), second);
        QCOMPARE(session.view()->ranks()->count(), second_count);
        QCOMPARE(session.view()->hosts(), QStringList{QStringLiteral("node-") + second});
    }

    // The whole page's session deleted while its 16,384-rank snapshot is parsed on a worker.
    void session_destroyed_while_parsing() {
        meshscope::test::ScriptedHttp http;
        http.route(QStringLiteral("/api/v1/jobs"), {200, "{\"jobs\":[{\"job\":\"big\",\"world_size\":16384}]}", false});
        http.route(QStringLiteral("/api/v1/jobs/big/ranks"), {200, meshscope::test::large_ranks_body(), false});
        http.route(QStringLiteral("/api/v1/jobs/big/findings"), {200, "{\"findings\":[]}", false});
        auto session = std::make_unique<LiveSession>();
        session->inputs()->setUrl(http.url());
        QTRY_VERIFY_WITH_TIMEOUT(http.answered().contains(QStringLiteral("/api/v1/jobs/big/ranks")), 10000);
        // Until a worker runs the parse (1 ms steps: in Release it takes ~150 ms).
        QElapsedTimer clock;
        clock.start();
        while (QThreadPool::globalInstance()->activeThreadCount() == 0 && session->view()->ranks()->count() == 0 &&
               clock.elapsed() < 10000)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 1);
        QVERIFY(QThreadPool::globalInstance()->activeThreadCount() > 0);
        session.reset();
        drain_workers();  // the parse ends with nobody to deliver to, and nothing crashes
    }

    // The same through the whole page: LiveSession polls, the worker parses, the GUI thread applies the rows
    // (first snapshot: model reset; second: one rank changed, in place).
    void session_gui_thread_stall_large_snapshot() {
        meshscope::test::ScriptedHttp http;
        http.route(QStringLiteral("/api/v1/jobs"), {200, "{\"jobs\":[{\"job\":\"big\",\"world_size\":16384}]}", false});
        http.route(QStringLiteral("/api/v1/jobs/big/ranks"), {200, meshscope::test::large_ranks_body(), false});
        http.route(QStringLiteral("/api/v1/jobs/big/findings"), {200, "{\"findings\":[]}", false});
        const QByteArray changed = meshscope::test::large_ranks_body(true);
        const int stale = static_cast<int>(RankStateKind::stale);  // what large_ranks_body(true) makes rank 5
        LiveSession session;
        session.inputs()->setPollIntervalMs(600000);  // only the polls this test asks for
        const double first = longest_stall_ms([&, started = false]() mutable {
            if (!started) {
                started = true;
                session.inputs()->setUrl(http.url());
            }
            return session.view()->ranks()->count() == 16384;
        });
        http.route(QStringLiteral("/api/v1/jobs/big/ranks"), {200, changed, false});
        const double again = longest_stall_ms([&, started = false]() mutable {
            if (!started) {
                started = true;
                session.refresh();
            }
            return session.view()->stateOf(5) == stale;
        });
        qInfo(
            "LiveSession, 16384 ranks: longest GUI-thread stall %.1f ms for the first snapshot, %.1f ms for a "
            "changed one",
            first, again);
        QCOMPARE(session.view()->ranks()->count(), 16384);
        QCOMPARE(session.view()->stateOf(5), stale);
    }

    // The GUI thread's longest stall while a 16,384-rank snapshot is fetched and made into rows: before (parse
    // + parse_ranks in the reply's handler, on the GUI thread) and after (getRows: both on a worker). Figures go to
    // docs/benchmarks.md ("Live page").
    void gui_thread_stall_large_snapshot() {
        meshscope::test::ScriptedHttp http;
        const QByteArray body = meshscope::test::large_ranks_body();
        http.route(QStringLiteral("/ranks"), {200, body, false});
        LiveClient client;
        client.setServer(QUrl(http.url()), QString());

        QNetworkAccessManager network;
        std::size_t before_rows = 0;
        double before_answer_ms = 0;
        bool before_done = false;
        const double before = longest_stall_ms([&, started = false]() mutable {
            if (!started) {
                started = true;
                // LiveClient before ce89351: read the reply, parse and make rows on this thread.
                QNetworkReply* reply = network.get(QNetworkRequest(QUrl(http.url() + QStringLiteral("/ranks"))));
                connect(reply, &QNetworkReply::finished, this, [&, reply] {
                    reply->deleteLater();
                    const QByteArray bytes = reply->readAll();
                    const json parsed = json::parse(bytes.constData(), bytes.constData() + bytes.size());
                    QElapsedTimer clock;
                    clock.start();
                    before_rows = parse_ranks(parsed).size();
                    before_answer_ms = clock.nsecsElapsed() / 1e6;
                    before_done = true;
                });
            }
            return before_done;
        });

        std::size_t after_rows = 0;
        bool after_done = false;
        std::atomic<QThread*> parse_thread{nullptr};
        const double after = longest_stall_ms([&, started = false]() mutable {
            if (!started) {
                started = true;
                client.getConverted(
                    QStringLiteral("ranks"), QStringLiteral("/ranks"), &client,
                    [&](const json& parsed) {
                        parse_thread = QThread::currentThread();
                        return std::any(parse_ranks(parsed));
                    },
                    [&](std::any rows, const QString&, std::uint64_t) {
                        const auto* typed = std::any_cast<std::vector<RankRow>>(&rows);
                        after_rows = typed ? typed->size() : 0;
                        after_done = true;
                    });
            }
            return after_done;
        });
        qInfo(
            "16384 ranks, %lld bytes: longest GUI-thread stall %.1f ms before (parse on the GUI thread; "
            "parse_ranks alone %.1f ms), %.1f ms after (worker thread)",
            static_cast<long long>(body.size()), before, before_answer_ms, after);
        QCOMPARE(before_rows, std::size_t{16384});
        QCOMPARE(after_rows, std::size_t{16384});
        // What makes the stall short is where the work runs (the figures are the benchmark's, not asserted).
        QVERIFY(parse_thread.load() != nullptr);
        QVERIFY(parse_thread.load() != QThread::currentThread());
    }
};

QTEST_GUILESS_MAIN(TestLiveClient)
#include "tst_live_client.moc"
