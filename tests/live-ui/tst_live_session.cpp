// LiveSession against a real collector (CollectorService: SQLite store, monitor, HTTP + WebSocket on a
// random loopback port), fed by posting protocol events: what the Live page shows must be what the
// collector found, snapshots and stream deltas alike, at no more than ~30 model updates per second.
#include <QAbstractItemModelTester>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

#include <future>

#include "http/collector_service.h"
#include "live_session.h"
#include "live_test_support.h"

using namespace meshscope;
using namespace meshscope::ui;

namespace {
struct Server {
    QTemporaryDir folder;
    std::unique_ptr<server::CollectorService> service;

    explicit Server(QByteArray token = {}) {
        server::CollectorOptions options;
        options.database = folder.filePath(QStringLiteral("t.db")).toStdString();
        options.durability = server::Durability::normal;
        options.monitor.missing_after = 0.5;
        options.tick_interval = 0.1;
        server::HttpOptions http;
        http.port = 0;
        http.token = token.toStdString();
        service = server::CollectorService::start(std::move(options), http).value();
    }
    int post(const std::string& body) {
        std::promise<int> status;
        auto result = status.get_future();
        service->collector().submit(body, [&status](server::SubmitResult r) { status.set_value(r.status); });
        return result.get();
    }
    QString url() const { return QString::fromStdString(service->url()); }
};

QStringList kinds_of(const FindingsModel& model) {
    QStringList kinds;
    for (const FindingRow& f : model.findings()) kinds << f.kind;
    return kinds;
}

QList<int> filtered_ranks(RankFilterModel& model) {
    QList<int> ranks;
    for (int row = 0; row < model.rowCount(); ++row) ranks << model.index(row, 0).data(RanksModel::RankRole).toInt();
    return ranks;
}

void wait_for_standard_job(LiveSession& session) {
    QTRY_COMPARE_WITH_TIMEOUT(session.view()->findings()->count(), 3, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(session.view()->settled(), 10000);
}
}  // namespace

class TestLiveSession : public QObject {
    Q_OBJECT

private slots:
    void shows_what_the_collector_found() {
        Server server;
        QCOMPARE(server.post(test::standard_job_ndjson()), 200);
        LiveSession session;
        session.inputs()->setSettleMs(300);
        QAbstractItemModelTester jobs(session.view()->jobs(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester ranks(session.view()->ranks(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester filtered(session.view()->filteredRanks(),
                                          QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester findings(session.view()->findings(),
                                          QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester timeline(session.view()->timeline(),
                                          QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester histogram(session.view()->phaseHistogram(),
                                           QAbstractItemModelTester::FailureReportingMode::QtTest);
        session.inputs()->setUrl(server.url());
        wait_for_standard_job(session);

        QCOMPARE(session.inputs()->currentJob(), QString::fromLatin1(test::standard_job));
        QVERIFY(session.view()->connected());
        QCOMPARE(session.view()->worldSize(), test::standard_world);
        QCOMPARE(session.view()->readyCount(), test::standard_ready);
        QCOMPARE(session.view()->seenCount(), test::standard_seen);
        QCOMPARE(session.view()->progress(), double(test::standard_ready) / test::standard_world);
        QCOMPARE(session.view()->progressText(), QStringLiteral("14 / 16 ready · 15 seen"));
        QCOMPARE(session.view()->topologyText(), QStringLiteral("dp 8 · cp 2 · ep 2"));
        QCOMPARE(session.view()->hosts(), (QStringList{QStringLiteral("node-0"), QStringLiteral("node-1")}));
        QCOMPARE(kinds_of(*session.view()->findings()),
                 (QStringList{QStringLiteral("topology_mismatch"), QStringLiteral("missing_rank"),
                              QStringLiteral("rank_error")}));
        QCOMPARE(session.view()->phaseHistogram()->countOf(5), 14);  // Phase.Ready
        QCOMPARE(session.view()->phaseHistogram()->countOf(-1), 1);  // rank 15 never reported
        QCOMPARE(session.view()->ranks()->find(5)->findings, QStringList{QStringLiteral("topology_mismatch")});
        QCOMPARE(session.view()->stateOf(9), 3);    // RankState.Failed
        QCOMPARE(session.view()->stateOf(99), -1);  // no such rank
        QCOMPARE(session.view()->jobs()->count(), 1);
    }

    void selecting_a_finding_highlights_its_ranks_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QList<int>>("ranks");
        QTest::addRow("topology_mismatch") << QStringLiteral("topology_mismatch") << QList<int>{5};
        QTest::addRow("missing_rank") << QStringLiteral("missing_rank") << QList<int>{15};
        QTest::addRow("rank_error") << QStringLiteral("rank_error") << QList<int>{9};
    }
    void selecting_a_finding_highlights_its_ranks() {
        QFETCH(QString, kind);
        QFETCH(QList<int>, ranks);
        Server server;
        QCOMPARE(server.post(test::standard_job_ndjson()), 200);
        LiveSession session;
        session.inputs()->setSettleMs(300);
        session.inputs()->setUrl(server.url());
        wait_for_standard_job(session);
        const int row = static_cast<int>(kinds_of(*session.view()->findings()).indexOf(kind));
        QVERIFY(row >= 0);
        QSignalSpy spy(session.selection(), &LiveSelection::selectedFindingChanged);
        session.selection()->selectFinding(row);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(session.selection()->highlightedRanks(), ranks);
        for (int r = 0; r < test::standard_world; ++r)
            QCOMPARE(session.selection()->isHighlighted(r), ranks.contains(r));
        session.selection()->selectFinding(-1);
        QVERIFY(session.selection()->highlightedRanks().isEmpty());
    }

    void filters_data() {
        QTest::addColumn<QString>("state");
        QTest::addColumn<QString>("host");
        QTest::addColumn<QList<int>>("ranks");
        QTest::addRow("failed") << QStringLiteral("failed") << QString() << QList<int>{9};
        QTest::addRow("pending") << QStringLiteral("pending") << QString() << QList<int>{15};
        QTest::addRow("node-1 ready") << QStringLiteral("ready") << QStringLiteral("node-1")
                                      << QList<int>{8, 10, 11, 12, 13, 14};
        QTest::addRow("node-0") << QString() << QStringLiteral("node-0") << QList<int>{0, 1, 2, 3, 4, 5, 6, 7};
    }
    void filters() {
        QFETCH(QString, state);
        QFETCH(QString, host);
        QFETCH(QList<int>, ranks);
        Server server;
        QCOMPARE(server.post(test::standard_job_ndjson()), 200);
        LiveSession session;
        session.inputs()->setSettleMs(300);
        session.inputs()->setUrl(server.url());
        wait_for_standard_job(session);
        LiveSelection& selection = *session.selection();
        selection.setStateFilter(state.isEmpty() ? -1
                                                 : int(meshscope::parse_rank_state_kind(state.toStdString()).value()));
        QCOMPARE(selection.stateFilter() < 0 ? QString() : session.view()->stateNames().value(selection.stateFilter()),
                 state);
        session.selection()->setHostFilter(host);
        QCOMPARE(filtered_ranks(*session.view()->filteredRanks()), ranks);
        session.selection()->clearFilters();
        QCOMPARE(session.view()->filteredRanks()->count(), test::standard_world);
    }

    void stream_deltas_update_without_polling() {
        Server server;
        QCOMPARE(server.post(test::standard_job_ndjson()), 200);
        LiveSession session;
        session.inputs()->setSettleMs(300);
        session.inputs()->setUrl(server.url());
        wait_for_standard_job(session);
        QTRY_VERIFY_WITH_TIMEOUT(session.view()->streaming(), 5000);
        session.inputs()->setPollIntervalMs(600000);  // from now on only the WebSocket stream can tell
        // The missing rank arrives late: it becomes ready and its finding goes away.
        std::string body;
        for (const Phase phase : {Phase::launch, Phase::ready}) {
            body += test::line(test::rank_event(test::standard_job, 15, phase, Status::started, 2000.0)) + "\n";
            body += test::line(test::rank_event(test::standard_job, 15, phase, Status::done, 2000.5)) + "\n";
        }
        QCOMPARE(server.post(body), 200);
        QTRY_COMPARE_WITH_TIMEOUT(session.view()->readyCount(), test::standard_ready + 1, 5000);
        QTRY_VERIFY_WITH_TIMEOUT(!kinds_of(*session.view()->findings()).contains(QStringLiteral("missing_rank")), 5000);
        QCOMPARE(session.view()->stateOf(15), 2);  // RankState.Ready
    }

    void the_selected_ranks_timeline() {
        Server server;
        QCOMPARE(server.post(test::standard_job_ndjson()), 200);
        LiveSession session;
        session.inputs()->setSettleMs(300);
        session.inputs()->setUrl(server.url());
        wait_for_standard_job(session);
        session.selection()->selectRank(9);
        QCOMPARE(session.selection()->selectedRank(), 9);
        QVERIFY(session.selection()->selectedRankText().contains(QStringLiteral("RuntimeError: NCCL error")));
        const TimelineModel& timeline = *session.view()->timeline();
        QCOMPARE(timeline.rank(), 9);
        QStringList phases;
        for (int row = 0; row < timeline.count(); ++row)
            phases << timeline.index(row).data(TimelineModel::PhaseRole).toString() + QLatin1Char(':') +
                          timeline.index(row).data(TimelineModel::StatusRole).toString();
        QCOMPARE(phases,
                 (QStringList{"launch:done", "process_group:done", "device_mesh:done", "parallel_state:failed"}));
        session.selection()->selectRank(1000);  // no such rank
        QCOMPARE(session.selection()->selectedRank(), -1);
        QCOMPARE(session.view()->timeline()->count(), 0);
    }

    void switching_jobs() {
        Server server;
        QCOMPARE(server.post(test::standard_job_ndjson("job-a")), 200);
        QCOMPARE(server.post(test::line(test::rank_event("job-b", 0, Phase::launch, Status::started, 5.0))), 200);
        LiveSession session;
        session.inputs()->setSettleMs(300);
        session.inputs()->setUrl(server.url());
        QTRY_COMPARE_WITH_TIMEOUT(session.view()->jobs()->count(), 2, 5000);
        QTRY_COMPARE_WITH_TIMEOUT(session.inputs()->currentJob(), QStringLiteral("job-a"), 5000);
        session.inputs()->setCurrentJob(QStringLiteral("job-b"));
        QTRY_COMPARE_WITH_TIMEOUT(session.view()->seenCount(), 1, 5000);
        QCOMPARE(session.view()->findings()->count(), 0);
        QCOMPARE(session.view()->ranks()->count(), test::standard_world);  // its world: 16, one seen
    }

    // Changes that arrive while an update waits are applied together: the 45 rank changes of a burst land in
    // one model update. The interval is held while the burst arrives, so no update can fall in between however
    // slow the machine; asserted is how the changes were grouped, never how fast (that is the benchmarks' job).
    void updates_are_coalesced() {
        Server server;
        LiveSession session;
        session.inputs()->setPollIntervalMs(600000);  // only the stream, and the snapshots it asks for
        session.inputs()->setUrl(server.url());
        // Streaming first: with polling held, only the stream's job_added can bring the job in.
        QTRY_VERIFY_WITH_TIMEOUT(session.view()->streaming(), 10000);
        QCOMPARE(server.post(test::line(test::rank_event("burst", 0, Phase::launch, Status::started, 1.0))), 200);
        QTRY_COMPARE_WITH_TIMEOUT(session.inputs()->currentJob(), QStringLiteral("burst"), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(session.view()->ranks()->count(), test::standard_world, 5000);

        QObject watch;  // ends the connections below before the locals they capture
        QSet<int> ready_in_stream;
        connect(&session.client(), &LiveClient::changeReceived, &watch, [&ready_in_stream](const nlohmann::json& m) {
            if (m.value("type", "") == "rank_changed" && m.value("state", "") == "ready")
                ready_in_stream.insert(m.value("rank", -1));
        });
        QList<int> ready_per_update;
        connect(session.view(), &LiveView::updated, &watch,
                [&ready_per_update, &session] { ready_per_update << session.view()->readyCount(); });

        session.inputs()->setUpdateIntervalMs(600000);  // held: nothing is applied until it is set back
        const int before = session.view()->updateCount();
        const Phase phases[] = {Phase::launch, Phase::device_mesh, Phase::ready};
        for (const Phase phase : phases)
            for (int rank = 1; rank < test::standard_world; ++rank)
                QCOMPARE(server.post(test::line(test::rank_event("burst", rank, phase, Status::done, 2.0))), 200);
        QTRY_COMPARE_WITH_TIMEOUT(static_cast<int>(ready_in_stream.size()), test::standard_world - 1, 10000);
        QCOMPARE(session.view()->updateCount(), before);
        QCOMPARE(session.view()->readyCount(), 0);

        session.inputs()->setUpdateIntervalMs(LiveInputs::defaultUpdateIntervalMs);
        QTRY_VERIFY_WITH_TIMEOUT(!ready_per_update.isEmpty(), 5000);
        QCOMPARE(ready_per_update.first(), test::standard_world - 1);  // every change in the first update
    }

    void connection_errors_data() {
        QTest::addColumn<bool>("wrong_token");
        QTest::addColumn<QString>("status");
        QTest::addRow("nobody listens") << false << QStringLiteral("cannot reach http://127.0.0.1:1: ");
        QTest::addRow("wrong token") << true << QStringLiteral("GET /api/v1/jobs: 401 missing or wrong bearer token");
    }
    void connection_errors() {
        QFETCH(bool, wrong_token);
        QFETCH(QString, status);
        LiveSession session;
        std::unique_ptr<Server> server;
        if (wrong_token) {
            server = std::make_unique<Server>("secret");
            session.inputs()->setToken(QStringLiteral("nope"));
            session.inputs()->setUrl(server->url());
        } else {
            session.inputs()->setUrl(QStringLiteral("http://127.0.0.1:1"));
        }
        QTRY_VERIFY_WITH_TIMEOUT(session.view()->statusText().startsWith(status), 5000);
        QVERIFY(!session.view()->connected());
        QCOMPARE(session.view()->jobs()->count(), 0);
    }

    void no_collector() {
        LiveSession session;
        QVERIFY(session.view()->statusText().startsWith(QStringLiteral("No collector")));
        session.refresh();  // nothing to do, nothing breaks
        QCOMPARE(session.view()->worldSize(), 0);
        QCOMPARE(session.view()->progress(), 0.0);
    }
};

QTEST_GUILESS_MAIN(TestLiveSession)
#include "tst_live_session.moc"
