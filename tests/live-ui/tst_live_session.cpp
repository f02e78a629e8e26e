// LiveSession against a real collector (CollectorService: SQLite store, monitor, HTTP + WebSocket on a
// random loopback port), fed by posting protocol events: what the Live page shows must be what the
// collector found, snapshots and stream deltas alike, at no more than ~30 model updates per second.
#include <QAbstractItemModelTester>
#include <QElapsedTimer>
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
    QTRY_COMPARE_WITH_TIMEOUT(session.findings()->count(), 3, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(session.settled(), 10000);
}
}  // namespace

class TestLiveSession : public QObject {
    Q_OBJECT

private slots:
    void shows_what_the_collector_found() {
        Server server;
        QCOMPARE(server.post(test::standard_job_ndjson()), 200);
        LiveSession session;
        session.setSettleMs(300);
        QAbstractItemModelTester jobs(session.jobs(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester ranks(session.ranks(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester filtered(session.filteredRanks(),
                                          QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester findings(session.findings(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester timeline(session.timeline(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester histogram(session.phaseHistogram(),
                                           QAbstractItemModelTester::FailureReportingMode::QtTest);
        session.setUrl(server.url());
        wait_for_standard_job(session);

        QCOMPARE(session.currentJob(), QString::fromLatin1(test::standard_job));
        QVERIFY(session.connected());
        QCOMPARE(session.worldSize(), test::standard_world);
        QCOMPARE(session.readyCount(), test::standard_ready);
        QCOMPARE(session.seenCount(), test::standard_seen);
        QCOMPARE(session.progress(), double(test::standard_ready) / test::standard_world);
        QCOMPARE(session.progressText(), QStringLiteral("14 / 16 ready · 15 seen"));
        QCOMPARE(session.topologyText(), QStringLiteral("dp 8 · cp 2 · ep 2"));
        QCOMPARE(session.hosts(), (QStringList{QStringLiteral("node-0"), QStringLiteral("node-1")}));
        QCOMPARE(kinds_of(*session.findings()),
                 (QStringList{QStringLiteral("topology_mismatch"), QStringLiteral("missing_rank"),
                              QStringLiteral("rank_error")}));
        QCOMPARE(session.phaseHistogram()->countOf(QStringLiteral("ready")), 14);
        QCOMPARE(session.phaseHistogram()->countOf(QString()), 1);  // rank 15 never reported
        QCOMPARE(session.ranks()->find(5)->findings, QStringList{QStringLiteral("topology_mismatch")});
        QCOMPARE(session.stateOf(9), QStringLiteral("failed"));
        QCOMPARE(session.jobs()->count(), 1);
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
        session.setSettleMs(300);
        session.setUrl(server.url());
        wait_for_standard_job(session);
        const int row = static_cast<int>(kinds_of(*session.findings()).indexOf(kind));
        QVERIFY(row >= 0);
        QSignalSpy spy(&session, &LiveSession::selectedFindingChanged);
        session.selectFinding(row);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(session.highlightedRanks(), ranks);
        for (int r = 0; r < test::standard_world; ++r) QCOMPARE(session.isHighlighted(r), ranks.contains(r));
        session.selectFinding(-1);
        QVERIFY(session.highlightedRanks().isEmpty());
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
        session.setSettleMs(300);
        session.setUrl(server.url());
        wait_for_standard_job(session);
        session.setStateFilter(state.isEmpty() ? -1
                                               : int(meshscope::parse_rank_state_kind(state.toStdString()).value()));
        QCOMPARE(session.stateFilter() < 0 ? QString() : session.stateNames().value(session.stateFilter()), state);
        session.setHostFilter(host);
        QCOMPARE(filtered_ranks(*session.filteredRanks()), ranks);
        session.clearFilters();
        QCOMPARE(session.filteredRanks()->count(), test::standard_world);
    }

    void stream_deltas_update_without_polling() {
        Server server;
        QCOMPARE(server.post(test::standard_job_ndjson()), 200);
        LiveSession session;
        session.setSettleMs(300);
        session.setUrl(server.url());
        wait_for_standard_job(session);
        QTRY_VERIFY_WITH_TIMEOUT(session.streaming(), 5000);
        session.setPollIntervalMs(600000);  // from now on only the WebSocket stream can tell
        // The missing rank arrives late: it becomes ready and its finding goes away.
        std::string body;
        for (const Phase phase : {Phase::launch, Phase::ready}) {
            body += test::line(test::rank_event(test::standard_job, 15, phase, Status::started, 2000.0)) + "\n";
            body += test::line(test::rank_event(test::standard_job, 15, phase, Status::done, 2000.5)) + "\n";
        }
        QCOMPARE(server.post(body), 200);
        QTRY_COMPARE_WITH_TIMEOUT(session.readyCount(), test::standard_ready + 1, 5000);
        QTRY_VERIFY_WITH_TIMEOUT(!kinds_of(*session.findings()).contains(QStringLiteral("missing_rank")), 5000);
        QCOMPARE(session.stateOf(15), QStringLiteral("ready"));
    }

    void the_selected_ranks_timeline() {
        Server server;
        QCOMPARE(server.post(test::standard_job_ndjson()), 200);
        LiveSession session;
        session.setSettleMs(300);
        session.setUrl(server.url());
        wait_for_standard_job(session);
        session.selectRank(9);
        QCOMPARE(session.selectedRank(), 9);
        QVERIFY(session.selectedRankText().contains(QStringLiteral("RuntimeError: NCCL error")));
        const TimelineModel& timeline = *session.timeline();
        QCOMPARE(timeline.rank(), 9);
        QStringList phases;
        for (int row = 0; row < timeline.count(); ++row)
            phases << timeline.index(row).data(TimelineModel::PhaseRole).toString() + QLatin1Char(':') +
                          timeline.index(row).data(TimelineModel::StatusRole).toString();
        QCOMPARE(phases,
                 (QStringList{"launch:done", "process_group:done", "device_mesh:done", "parallel_state:failed"}));
        session.selectRank(1000);  // no such rank
        QCOMPARE(session.selectedRank(), -1);
        QCOMPARE(session.timeline()->count(), 0);
    }

    void switching_jobs() {
        Server server;
        QCOMPARE(server.post(test::standard_job_ndjson("job-a")), 200);
        QCOMPARE(server.post(test::line(test::rank_event("job-b", 0, Phase::launch, Status::started, 5.0))), 200);
        LiveSession session;
        session.setSettleMs(300);
        session.setUrl(server.url());
        QTRY_COMPARE_WITH_TIMEOUT(session.jobs()->count(), 2, 5000);
        QTRY_COMPARE_WITH_TIMEOUT(session.currentJob(), QStringLiteral("job-a"), 5000);
        session.setCurrentJob(QStringLiteral("job-b"));
        QTRY_COMPARE_WITH_TIMEOUT(session.seenCount(), 1, 5000);
        QCOMPARE(session.findings()->count(), 0);
        QCOMPARE(session.ranks()->count(), test::standard_world);  // its world: 16, one seen
    }

    void updates_are_coalesced() {
        Server server;
        LiveSession session;
        session.setUrl(server.url());
        QCOMPARE(server.post(test::line(test::rank_event("burst", 0, Phase::launch, Status::started, 1.0))), 200);
        QTRY_COMPARE_WITH_TIMEOUT(session.currentJob(), QStringLiteral("burst"), 5000);
        QTRY_VERIFY_WITH_TIMEOUT(session.streaming(), 5000);
        // Many small requests, each changing a rank: far more changes than frames.
        QElapsedTimer clock;
        clock.start();
        const int before = session.updateCount();
        int posted = 0;
        for (int round = 0; round < 3; ++round)
            for (int rank = 1; rank < test::standard_world; ++rank) {
                const Phase phases[] = {Phase::launch, Phase::device_mesh, Phase::ready};
                const auto event = test::rank_event("burst", rank, phases[round], Status::done, 2.0 + round);
                QCOMPARE(server.post(test::line(event)), 200);
                ++posted;
                QCoreApplication::processEvents();
            }
        QTRY_COMPARE_WITH_TIMEOUT(session.readyCount(), test::standard_world - 1, 5000);
        const double seconds = clock.elapsed() / 1000.0;
        const int updates = session.updateCount() - before;
        qInfo("%d requests -> %d model updates in %.2f s", posted, updates, seconds);
        QVERIFY2(updates <= seconds * 1000.0 / LiveSession::minUpdateIntervalMs + 3,
                 qPrintable(QStringLiteral("%1 updates in %2 s").arg(updates).arg(seconds)));
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
            session.setToken(QStringLiteral("nope"));
            session.setUrl(server->url());
        } else {
            session.setUrl(QStringLiteral("http://127.0.0.1:1"));
        }
        QTRY_VERIFY_WITH_TIMEOUT(session.statusText().startsWith(status), 5000);
        QVERIFY(!session.connected());
        QCOMPARE(session.jobs()->count(), 0);
    }

    void no_collector() {
        LiveSession session;
        QVERIFY(session.statusText().startsWith(QStringLiteral("No collector")));
        session.refresh();  // nothing to do, nothing breaks
        QCOMPARE(session.worldSize(), 0);
        QCOMPARE(session.progress(), 0.0);
    }
};

QTEST_GUILESS_MAIN(TestLiveSession)
#include "tst_live_session.moc"
