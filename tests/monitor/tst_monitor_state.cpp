// Rank states and timings (late and out-of-order events included), the change feed and the queries' JSON.
#include <QtTest>

#include "monitor_test_support.h"

using namespace meshscope;
using namespace monitor_test;

namespace {
Event make_event(std::int64_t rank, Phase phase, Status status, std::optional<double> ts) {
    Event e = meshscope::test::event("job", rank, 4, phase, status);
    e.ts = ts;
    return e;
}

// "phase:status@ts" items separated by spaces, sent in this order by rank 0; "tick@T" runs tick(T);
// "seen@T" runs seen("job", 0, T) (a shed heartbeat).
Monitor play(const QString& script, MonitorOptions options = {}) {
    Monitor monitor(options);
    double at = 0;
    for (const auto& item : script.split(' ', Qt::SkipEmptyParts)) {
        const auto [what, when] = std::pair{item.section('@', 0, 0), item.section('@', 1, 1)};
        if (what == "tick") {
            monitor.tick(when.toDouble());
            continue;
        }
        if (what == "seen") {
            monitor.seen("job", 0, when.toDouble());
            continue;
        }
        const auto phase = parse_phase(what.section(':', 0, 0).toStdString()).value();
        const auto status = parse_status(what.section(':', 1, 1).toStdString()).value();
        monitor.ingest(make_event(0, phase, status, when.isEmpty() ? std::nullopt : std::optional(when.toDouble())),
                       at);
        at += 1;
    }
    return monitor;
}
}  // namespace

class TestMonitorState : public QObject {
    Q_OBJECT
private slots:
    void states_data();
    void states();
    void timings();
    void seenUnknownAndStaleFinding();
    void changeFeed();
    void queries();
};

void TestMonitorState::states_data() {
    QTest::addColumn<QString>("script");
    QTest::addColumn<QString>("state");
    QTest::addColumn<QString>("phase");
    QTest::addRow("launch started") << "launch:started@1"
                                    << "initializing"
                                    << "launch";
    QTest::addRow("ready started") << "launch:done@1 ready:started@2"
                                   << "initializing"
                                   << "ready";
    QTest::addRow("ready done") << "launch:done@1 ready:done@2"
                                << "ready"
                                << "ready";
    QTest::addRow("heartbeats keep the phase") << "ready:done@2 heartbeat:done@3 heartbeat:done@4"
                                               << "ready"
                                               << "ready";
    QTest::addRow("failed status") << "communicator:failed@3"
                                   << "failed"
                                   << "communicator";
    QTest::addRow("error phase") << "launch:done@1 error:started@2"
                                 << "failed"
                                 << "error";
    QTest::addRow("exit") << "ready:done@2 exit:done@3"
                          << "exited"
                          << "exit";
    QTest::addRow("failed, then exit") << "communicator:failed@3 exit:done@4"
                                       << "failed"
                                       << "exit";
    QTest::addRow("failed stays failed") << "communicator:failed@3 ready:done@5"
                                         << "failed"
                                         << "ready";
    QTest::addRow("late launch after ready") << "ready:done@9 launch:started@1"
                                             << "ready"
                                             << "ready";
    QTest::addRow("out of order, newest phase wins") << "communicator:done@5 device_mesh:done@3 process_group:done@2"
                                                     << "initializing"
                                                     << "communicator";
    QTest::addRow("no ts: arrival order") << "ready:done@ launch:started@"
                                          << "ready"
                                          << "launch";
    QTest::addRow("stale") << "ready:done@1 tick@100"
                           << "stale"
                           << "ready";
    QTest::addRow("stale, then alive again") << "ready:done@1 tick@100 heartbeat:done@101"
                                             << "ready"
                                             << "ready";
    // Events arrive at received_at 0, 1, 2 ...; stale_after is 60 s.
    QTest::addRow("seen keeps it alive") << "ready:done@1 seen@50 tick@100"
                                         << "ready"
                                         << "ready";
    QTest::addRow("stale, then seen") << "ready:done@1 tick@100 seen@101"
                                      << "ready"
                                      << "ready";
    QTest::addRow("seen long ago does not help") << "ready:done@1 seen@30 tick@100"
                                                 << "stale"
                                                 << "ready";
    QTest::addRow("exited is never stale") << "exit:done@1 tick@1000"
                                           << "exited"
                                           << "exit";
}

void TestMonitorState::states() {
    QFETCH(QString, script);
    QFETCH(QString, state);
    QFETCH(QString, phase);
    const Monitor monitor = play(script);
    const auto rank = monitor.rank("job", 0);
    QVERIFY(rank.has_value());
    QCOMPARE(q(std::string(to_string(rank->state))), state);
    QCOMPARE(q(std::string(to_string(*rank->phase))), phase);
    // The other ranks of the world were never seen.
    QCOMPARE(monitor.rank("job", 3)->state, RankStateKind::pending);
}

void TestMonitorState::seenUnknownAndStaleFinding() {
    Monitor monitor;
    QVERIFY(!monitor.seen("job", 0, 5));  // no such job
    monitor.ingest(make_event(0, Phase::ready, Status::done, 1), 0);
    QVERIFY(!monitor.seen("job", 2, 5));  // never seen: stays pending, not created
    QCOMPARE(monitor.rank("job", 2)->state, RankStateKind::pending);
    QVERIFY(!monitor.rank("job", 2)->last_seen.has_value());
    monitor.tick(100);
    // World 4: rank 0 reported, rank 2 was heard by a relay (its events refused under load): 1 and 3 are missing.
    QCOMPARE(monitor_test::summary(monitor.findings("job")), QString("missing_rank:[1,3] stale_rank:[0]"));
    QVERIFY(monitor.seen("job", 0, 101));
    QCOMPARE(*monitor.rank("job", 0)->last_seen, 101.0);
    QCOMPARE(monitor.rank("job", 0)->events, std::int64_t{1});  // not an event
    QCOMPARE(monitor_test::summary(monitor.findings("job")).contains("stale_rank"), false);
}

void TestMonitorState::timings() {
    // done arrives before started; a repeated started keeps the earliest.
    const Monitor monitor = play("communicator:done@12.5 communicator:started@10 communicator:started@11");
    const auto t = monitor.rank("job", 0)->timings[index_of(Phase::communicator)];
    QCOMPARE(*t.started, 10.0);
    QCOMPARE(*t.done, 12.5);
    QCOMPARE(*t.duration(), 2.5);
    const auto j = to_json(*monitor.rank("job", 0));
    QCOMPARE(j.at("timings").at("communicator").at("duration").get<double>(), 2.5);
    QVERIFY(!j.at("timings").contains("launch"));
}

void TestMonitorState::changeFeed() {
    MonitorOptions options;
    options.record_changes = true;
    Monitor monitor(options);
    QStringList seen;
    monitor.set_change_listener([&seen](const Change& c) { seen << q(to_json(c).dump()); });
    monitor.ingest(make_event(0, Phase::launch, Status::started, 1), 0);
    monitor.ingest(make_event(0, Phase::heartbeat, Status::done, 2), 1);  // no change: same state and phase
    monitor.ingest(make_event(0, Phase::communicator, Status::failed, 3), 2);
    const auto changes = monitor.take_changes();
    // The listener and take_changes see the same changes, in order: the rank's new state as its event is
    // folded in, then the findings its ingest call re-evaluated.
    QCOMPARE(changes.size(), std::size_t{4});
    QCOMPARE(seen.size(), 4);
    QCOMPARE(seen[0], QString(R"({"job":"job","type":"job_added"})"));
    QCOMPARE(seen[1],
             QString(R"({"job":"job","phase":"launch","rank":0,"state":"initializing","type":"rank_changed"})"));
    QCOMPARE(seen[2],
             QString(R"({"job":"job","phase":"communicator","rank":0,"state":"failed","type":"rank_changed"})"));
    QCOMPARE(changes[3].kind, ChangeKind::finding_added);
    QCOMPARE(changes[3].finding->id, std::string("rank_error/0"));
    QVERIFY(seen[3].startsWith(R"({"finding":{"fix":)"));
    QVERIFY(monitor.take_changes().empty());
}

void TestMonitorState::queries() {
    Monitor monitor;
    JobShape shape{"j-1", 2, 2, 2};  // 4 ranks
    for (std::int64_t r : {0, 1, 2}) monitor.ingest(rank_events(shape, r), 5);
    monitor.tick(100);  // rank 3 missing; the others stale

    QCOMPARE(monitor.job_names(), std::vector<std::string>{"j-1"});
    const auto summary = *monitor.job("j-1");
    QCOMPARE(summary.world_size, 4);
    QCOMPARE(summary.ranks_seen, 3);
    QCOMPARE(summary.states[static_cast<std::size_t>(RankStateKind::pending)], 1);
    QCOMPARE(summary.states[static_cast<std::size_t>(RankStateKind::stale)], 3);
    QCOMPARE(summary.findings, 2);
    QVERIFY(summary.plan_declared == false);
    QVERIFY((*summary.topology == ReportedTopology{2, 2, 2}));

    const auto jobs = monitor.jobs_json();
    QCOMPARE(jobs.at("jobs").size(), std::size_t{1});
    const auto& job = jobs.at("jobs")[0];
    for (const char* key : {"job", "world_size", "ranks_seen", "ranks_ready", "findings", "states", "findings_by_kind",
                            "events", "first_event", "last_event", "first_ts", "last_ts", "plan_declared", "topology"})
        QVERIFY2(job.contains(key), key);
    QCOMPARE(job.at("findings_by_kind").at("missing_rank").get<int>(), 1);

    const auto ranks = monitor.ranks_json("j-1").value().at("ranks");
    QCOMPARE(ranks.size(), std::size_t{4});
    QCOMPARE(ranks[3].at("state").get<std::string>(), std::string("pending"));
    QCOMPARE(ranks[3].at("findings")[0].get<std::string>(), std::string("missing_rank"));
    QCOMPARE(ranks[0].at("host").get<std::string>(), std::string("node-0"));
    QVERIFY(!ranks[0].contains("groups"));  // the list leaves groups out; rank() has them
    QCOMPARE(monitor.rank("j-1", 1)->groups.at("ep"), (std::vector<std::int64_t>{1, 3}));

    const auto findings = monitor.findings_json("j-1").value().at("findings");
    QCOMPARE(findings[0].at("kind").get<std::string>(), std::string("missing_rank"));
    QCOMPARE(findings[0].at("ranks"), nlohmann::json::array({3}));
    QVERIFY(findings[0].contains("message") && findings[0].contains("fix") && findings[0].contains("id"));

    QVERIFY(!monitor.job("nope"));
    QVERIFY(!monitor.ranks_json("nope"));
    QVERIFY(monitor.ranks("nope").empty());
    QVERIFY(!monitor.rank("j-1", 4));
    QVERIFY(monitor.remove_job("j-1"));
    QVERIFY(monitor.job_names().empty());
    QCOMPARE(monitor.events_ingested(),
             39);  // 13 events per rank (one device_mesh event per mesh: model, data, expert)
}

QTEST_APPLESS_MAIN(TestMonitorState)
#include "tst_monitor_state.moc"
