// The Live page's models and the parsers behind them, without a network: JSON as the collector writes it
// in, rows and roles out. QAbstractItemModelTester watches every model through empty, filled, changed and
// emptied again.
#include <QAbstractItemModelTester>
#include <QtTest>

#include <algorithm>
#include <cstddef>

#include <nlohmann/json.hpp>

#include "findings_model.h"
#include "hang_summary_model.h"
#include "jobs_model.h"
#include "large_snapshot.h"
#include "live_enums.h"
#include "live_rows.h"
#include "phase_histogram_model.h"
#include "rank_filter_model.h"
#include "rank_position_model.h"
#include "ranks_model.h"
#include "timeline_model.h"

using namespace meshscope::ui;
using nlohmann::json;

namespace {
RankRow rank_row(int rank, const char* state, const char* host, const char* phase) {
    RankRow r;
    r.rank = rank;
    r.state = meshscope::parse_rank_state_kind(state).value();
    r.host = QString::fromLatin1(host);
    r.phase = meshscope::parse_phase(phase);  // "": never reported
    return r;
}

std::vector<RankRow> eight_ranks() {
    std::vector<RankRow> rows;
    for (int r = 0; r < 8; ++r)
        rows.push_back(rank_row(r,
                                r == 3   ? "failed"
                                : r == 7 ? "pending"
                                         : "ready",
                                r < 4 ? "node-0" : "node-1",
                                r == 3   ? "error"
                                : r == 7 ? ""
                                         : "heartbeat"));
    return rows;
}

FindingRow finding(const char* id, const char* kind, QList<int> ranks) {
    return {QString::fromLatin1(id), QString::fromLatin1(kind), std::move(ranks),
            QStringLiteral("what"),  QStringLiteral("fix"),     QString()};
}

QList<int> ranks_of(const QAbstractItemModel& model) {
    QList<int> ranks;
    for (int row = 0; row < model.rowCount(); ++row) ranks << model.index(row, 0).data(RanksModel::RankRole).toInt();
    return ranks;
}
}  // namespace

class TestLiveModels : public QObject {
    Q_OBJECT

private slots:
    void ranks_text_data() {
        QTest::addColumn<QList<int>>("ranks");
        QTest::addColumn<int>("limit");
        QTest::addColumn<QString>("text");
        QTest::addRow("none") << QList<int>{} << 12 << QString();
        QTest::addRow("one") << QList<int>{3} << 12 << QStringLiteral("3");
        QTest::addRow("two apart") << QList<int>{3, 7} << 12 << QStringLiteral("3, 7");
        QTest::addRow("pair stays a pair") << QList<int>{1, 2} << 12 << QStringLiteral("1, 2");
        QTest::addRow("run collapses") << QList<int>{0, 1, 2, 3, 4, 5, 6, 7, 12} << 12 << QStringLiteral("0–7, 12");
        QTest::addRow("limit") << QList<int>{0, 2, 4, 6, 8} << 3 << QStringLiteral("0, 2, 4 … (+2)");
    }
    void ranks_text() {
        QFETCH(QList<int>, ranks);
        QFETCH(int, limit);
        QFETCH(QString, text);
        QCOMPARE(meshscope::ui::ranks_text(ranks, limit), text);
    }

    void parse_change_data() {
        QTest::addColumn<QString>("message");
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("rank");
        QTest::addColumn<QString>("detail");   // state, or the finding's id
        QTest::addColumn<QString>("warning");  // what the terminal is told of a change left out
        QTest::addRow("hello") << R"({"type":"hello","protocol":"meshscope.stream/1"})" << int(LiveChange::Type::hello)
                               << -1 << QString() << QString();
        QTest::addRow("rank") << R"({"type":"rank_changed","job":"j","rank":5,"state":"ready","phase":"ready"})"
                              << int(LiveChange::Type::rank_changed) << 5 << QStringLiteral("ready") << QString();
        QTest::addRow("finding added")
            << R"({"type":"finding_added","job":"j","finding":{"id":"straggler/communicator","kind":"straggler","ranks":[4],"message":"m","fix":"f"}})"
            << int(LiveChange::Type::finding_added) << -1 << QStringLiteral("straggler/communicator") << QString();
        QTest::addRow("finding removed")
            << R"({"type":"finding_removed","job":"j","id":"missing_rank","kind":"missing_rank"})"
            << int(LiveChange::Type::finding_removed) << -1 << QStringLiteral("missing_rank") << QString();
        QTest::addRow("wrong types: left out, and said")
            << R"({"type":"rank_changed","job":"j","rank":"5","state":3})" << int(LiveChange::Type::unknown) << -1
            << QString()
            << R"(meshscope: a change from the collector is left out: field "rank" must be a non-negative integer)";
        QTest::addRow("a newer collector's state: the rank keeps its own")
            << R"({"type":"rank_changed","job":"j","rank":5,"state":"draining","phase":"ready"})"
            << int(LiveChange::Type::rank_changed) << 5 << QString() << QString();
        QTest::addRow("a newer collector's change type: ignored")
            << R"({"type":"surprise"})" << int(LiveChange::Type::unknown) << -1 << QString() << QString();
        QTest::addRow("not an object") << R"([1,2])" << int(LiveChange::Type::unknown) << -1 << QString()
                                       << "meshscope: a change from the collector is left out: a change must be a "
                                          "JSON object";
    }
    void parse_change() {
        QFETCH(QString, message);
        QFETCH(int, type);
        QFETCH(int, rank);
        QFETCH(QString, detail);
        QFETCH(QString, warning);
        if (!warning.isEmpty()) QTest::ignoreMessage(QtWarningMsg, warning.toUtf8().constData());
        const LiveChange c = meshscope::ui::parse_change(json::parse(message.toStdString()));
        QCOMPARE(int(c.type), type);
        QCOMPARE(c.rank, rank);
        // Only the rank rows name a phase ("ready").
        QCOMPARE(c.phase, rank == 5 ? std::optional(meshscope::Phase::ready) : std::nullopt);
        if (c.type == LiveChange::Type::rank_changed) QCOMPARE(c.state ? name_of(*c.state) : QString(), detail);
        if (c.type == LiveChange::Type::finding_added || c.type == LiveChange::Type::finding_removed)
            QCOMPARE(c.finding.id, detail);
    }

    // A collector newer than the desktop may name a finding kind or a rank state the desktop does not know: the
    // finding is listed under its kind's name, the rank is kept (as pending) with its findings' names.
    void newer_collector_names_are_kept() {
        const auto findings = parse_findings(json::parse(R"({"findings":[
            {"id":"gpu_throttled/3","kind":"gpu_throttled","ranks":[3],"message":"hot","fix":"cool it"}]})"));
        QCOMPARE(findings.size(), std::size_t(1));
        QCOMPARE(findings[0].kind, QStringLiteral("gpu_throttled"));
        QCOMPARE(findings[0].ranks, QList<int>{3});
        QCOMPARE(findings[0].message, QStringLiteral("hot"));
        const auto ranks = parse_ranks(json::parse(R"({"ranks":[
            {"rank":3,"state":"draining","host":"node-0","findings":["straggler","gpu_throttled"]}]})"));
        QCOMPARE(ranks.size(), std::size_t(1));
        QCOMPARE(ranks[0].state, meshscope::RankStateKind::pending);
        QCOMPARE(ranks[0].host, QStringLiteral("node-0"));
        QCOMPARE(ranks[0].findings, (QStringList{QStringLiteral("straggler"), QStringLiteral("gpu_throttled")}));
        const LiveChange added = meshscope::ui::parse_change(json::parse(
            R"({"type":"finding_added","job":"j","finding":{"id":"gpu_throttled/3","kind":"gpu_throttled"}})"));
        QCOMPARE(int(added.type), int(LiveChange::Type::finding_added));
        QCOMPARE(added.finding.kind, QStringLiteral("gpu_throttled"));
        const LiveChange removed = meshscope::ui::parse_change(
            json::parse(R"({"type":"finding_removed","job":"j","id":"gpu_throttled/3","kind":"gpu_throttled"})"));
        QCOMPARE(removed.finding.kind, QStringLiteral("gpu_throttled"));
    }

    void parse_ranks_reads_the_api() {
        const json body = json::parse(R"({"ranks":[
            {"rank":0,"state":"ready","host":"node-0","local_rank":0,"phase":"heartbeat","status":"done",
             "topology":{"dp":8,"cp":2,"ep":2},"findings":["straggler"],
             "timings":{"launch":{"started":10.0,"done":10.5,"duration":0.5},"ready":{"done":12.0}}},
            {"rank":1,"state":"failed","error":{"type":"RuntimeError","message":"boom"}},
            {"state":"ready"}]})");
        QTest::ignoreMessage(QtWarningMsg,
                             R"(meshscope: a rank state from the collector is left out: field "rank" is required)");
        const auto rows = parse_ranks(body);
        QCOMPARE(rows.size(), std::size_t(2));  // the third has no rank
        QCOMPARE(rows[0].host, QStringLiteral("node-0"));
        QCOMPARE(rows[0].findings, QStringList{QStringLiteral("straggler")});
        const auto& timings = rows[0].timings;
        QCOMPARE(std::count_if(timings.begin(), timings.end(), [](const auto& t) { return t.seen(); }),
                 std::ptrdiff_t(2));
        QCOMPARE(*timings[index_of(meshscope::Phase::launch)].done, 10.5);
        QCOMPARE(*timings[index_of(meshscope::Phase::ready)].done, 12.0);
        QCOMPARE(rows[0].phase, meshscope::Phase::heartbeat);
        QVERIFY(!rows[1].phase);  // never reported one
        QCOMPARE(rows[0].status, meshscope::Status::done);
        QVERIFY(!rows[1].status);
        QVERIFY(rows[0].topology && rows[0].topology->ep == 2);
        QCOMPARE(rows[0].state, meshscope::RankStateKind::ready);
        QCOMPARE(rows[1].state, meshscope::RankStateKind::failed);
        QCOMPARE(rows[1].error, QStringLiteral("RuntimeError: boom"));
        QCOMPARE(rows[1].local_rank, -1);
        QVERIFY(parse_ranks(json::parse(R"({"ranks":3})")).empty());
        QVERIFY(parse_jobs(json::parse(R"({"jobs":[{"world_size":4}]})")).empty());  // a job needs its name
    }

    void jobs_model() {
        JobsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
        model.setJobs({{QStringLiteral("a"), 16, 4, 2, 0, 10, std::nullopt, std::nullopt},
                       {QStringLiteral("b"), 8, 8, 8, 1, 40, std::nullopt, std::nullopt}});
        QCOMPARE(model.count(), 2);
        QCOMPARE(resets.count(), 1);
        // Same jobs, new numbers: rows change in place.
        model.setJobs({{QStringLiteral("a"), 16, 16, 15, 1, 90, std::nullopt, std::nullopt},
                       {QStringLiteral("b"), 8, 8, 8, 1, 40, std::nullopt, std::nullopt}});
        QCOMPARE(resets.count(), 1);
        QCOMPARE(changes.count(), 1);
        QCOMPARE(model.index(0).data(JobsModel::RanksReadyRole).toInt(), 15);
        QCOMPARE(model.indexOf(QStringLiteral("b")), 1);
        model.setJobs({});
        QCOMPARE(model.count(), 0);
    }

    void ranks_model_snapshots_and_deltas() {
        RanksModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
        model.setRanks(eight_ranks());
        QCOMPARE(model.count(), 8);
        QVERIFY(model.applyRankChange(7, meshscope::RankStateKind::initializing, meshscope::Phase::launch));
        QCOMPARE(model.index(7).data(RanksModel::StateRole).toString(), QStringLiteral("initializing"));
        QCOMPARE(model.index(7).data(RanksModel::PhaseRole).toString(), QStringLiteral("launch"));
        QVERIFY(!model.applyRankChange(99, meshscope::RankStateKind::ready, std::nullopt));
        QVERIFY(model.applyRankChange(7, std::nullopt, meshscope::Phase::device_mesh));  // no state: it stays
        QCOMPARE(model.index(7).data(RanksModel::StateRole).toString(), QStringLiteral("initializing"));
        QCOMPARE(model.index(7).data(RanksModel::PhaseRole).toString(), QStringLiteral("device_mesh"));
        QVERIFY(model.applyRankChange(7, meshscope::RankStateKind::ready, std::nullopt));  // no phase: it stays
        QCOMPARE(model.index(7).data(RanksModel::PhaseRole).toString(), QStringLiteral("device_mesh"));
        model.setFindingKinds({{3, {QStringLiteral("rank_error")}}});
        QCOMPARE(model.index(3).data(RanksModel::FindingsTextRole).toString(), QStringLiteral("rank_error"));
        model.setRanks(eight_ranks());  // same ranks: in place
        QCOMPARE(resets.count(), 1);
        QVERIFY(changes.count() >= 3);
        model.clear();
        QCOMPARE(model.count(), 0);
    }

    void rank_filter_data() {
        QTest::addColumn<QString>("state");
        QTest::addColumn<QString>("host");
        QTest::addColumn<QList<int>>("ranks");
        QTest::addRow("none") << QString() << QString() << QList<int>{0, 1, 2, 3, 4, 5, 6, 7};
        QTest::addRow("ready") << QStringLiteral("ready") << QString() << QList<int>{0, 1, 2, 4, 5, 6};
        QTest::addRow("failed") << QStringLiteral("failed") << QString() << QList<int>{3};
        QTest::addRow("host") << QString() << QStringLiteral("node-1") << QList<int>{4, 5, 6, 7};
        QTest::addRow("both") << QStringLiteral("ready") << QStringLiteral("node-0") << QList<int>{0, 1, 2};
        QTest::addRow("nothing matches") << QStringLiteral("stale") << QString() << QList<int>{};
    }
    void rank_filter() {
        QFETCH(QString, state);
        QFETCH(QString, host);
        QFETCH(QList<int>, ranks);
        RanksModel source;
        RankFilterModel filter;
        filter.setSourceModel(&source);
        QAbstractItemModelTester tester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
        source.setRanks(eight_ranks());
        filter.setStateFilter(state.isEmpty() ? -1
                                              : int(meshscope::parse_rank_state_kind(state.toStdString()).value()));
        filter.setHostFilter(host);
        QCOMPARE(ranks_of(filter), ranks);
        QCOMPARE(filter.count(), ranks.size());
        QCOMPARE(filter.active(), !state.isEmpty() || !host.isEmpty());
        // A rank that changes state moves in or out of the filter.
        source.applyRankChange(7, meshscope::RankStateKind::ready, meshscope::Phase::ready);
        const bool seven_matches =
            (state.isEmpty() || state == QLatin1String("ready")) && (host.isEmpty() || host == QLatin1String("node-1"));
        QCOMPARE(ranks_of(filter).contains(7), seven_matches);
    }

    // The place filter over a hang worked by hand: ranks 0, 1, 2 wait in ep seq 2 (all_to_all), 4 and 5 in dp seq
    // 2 (all_reduce), rank 3 in the world's seq 3 (all_reduce) and is the root cause, rank 6 left no record, rank 7
    // is outside collectives; rank 8 has no position (a hook's rank beside the records).
    void rank_filter_by_place_data() {
        QTest::addColumn<QString>("place");
        QTest::addColumn<QString>("state");  // "" any
        QTest::addColumn<QList<int>>("ranks");
        QTest::addRow("any place") << QString() << QString() << QList<int>{0, 1, 2, 3, 4, 5, 6, 7, 8};
        QTest::addRow("waiting in ep") << QStringLiteral("waiting in ep seq 2 (all_to_all)") << QString()
                                       << QList<int>{0, 1, 2};
        QTest::addRow("waiting in dp") << QStringLiteral("waiting in dp seq 2 (all_reduce)") << QString()
                                       << QList<int>{4, 5};
        QTest::addRow("waiting in world")
            << QStringLiteral("waiting in world seq 3 (all_reduce)") << QString() << QList<int>{3};
        QTest::addRow("no record") << QStringLiteral("no record") << QString() << QList<int>{6};
        QTest::addRow("outside collectives") << QStringLiteral("outside collectives") << QString() << QList<int>{7};
        QTest::addRow("root cause") << QStringLiteral("root cause") << QString() << QList<int>{3};
        QTest::addRow("a place and a state")
            << QStringLiteral("waiting in ep seq 2 (all_to_all)") << QStringLiteral("failed") << QList<int>{2};
        QTest::addRow("a place the job has not: refused")
            << QStringLiteral("dead (NCCL RAS)") << QString() << QList<int>{0, 1, 2, 3, 4, 5, 6, 7, 8};
    }
    void rank_filter_by_place() {
        QFETCH(QString, place);
        QFETCH(QString, state);
        QFETCH(QList<int>, ranks);
        using meshscope::HangPosition;
        using meshscope::HangStanding;
        const auto waiting = [](const char* dim, int seq, const char* op, bool root = false) {
            HangPosition p;
            p.standing = HangStanding::waiting;
            p.dim = dim;
            p.seq = seq;
            p.op = op;
            p.root_cause = root;
            return p;
        };
        const auto standing = [](HangStanding s) {
            HangPosition p;
            p.standing = s;
            return p;
        };
        std::vector<RankRow> rows;
        for (int r = 0; r < 9; ++r) rows.push_back(rank_row(r, r == 2 ? "failed" : "ready", "node-0", "heartbeat"));
        rows[0].position = rows[1].position = rows[2].position = waiting("ep", 2, "all_to_all");
        rows[3].position = waiting("world", 3, "all_reduce", true);
        rows[4].position = rows[5].position = waiting("dp", 2, "all_reduce");
        rows[6].position = standing(HangStanding::no_record);
        rows[7].position = standing(HangStanding::outside_collectives);
        std::vector<meshscope::RankedPosition> positioned;
        for (const RankRow& r : rows)
            if (r.position) positioned.push_back({r.rank, &*r.position});
        const meshscope::HangSummary summary = meshscope::summarize_hang(positioned);

        RanksModel source;
        RankFilterModel filter;
        filter.setSourceModel(&source);
        QAbstractItemModelTester tester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(filter.placeChoices(), QStringList());  // no hang: no place to choose
        source.setRanks(rows);
        QSignalSpy places(&filter, &RankFilterModel::placesChanged);
        filter.setPlaces(summary);
        QCOMPARE(places.count(), 1);
        QCOMPARE(
            filter.placeChoices(),
            (QStringList{"waiting in ep seq 2 (all_to_all)", "waiting in dp seq 2 (all_reduce)",
                         "waiting in world seq 3 (all_reduce)", "no record", "outside collectives", "root cause"}));
        filter.setPlaces(summary);  // the same places: nothing changes
        QCOMPARE(places.count(), 1);
        filter.setStateFilter(state.isEmpty() ? -1
                                              : int(meshscope::parse_rank_state_kind(state.toStdString()).value()));
        filter.setPlaceFilter(place);
        QCOMPARE(ranks_of(filter), ranks);
        QCOMPARE(filter.count(), ranks.size());
        const bool chosen = filter.placeChoices().contains(place);
        QCOMPARE(filter.placeFilter(), chosen ? place : QString());
        QCOMPARE(filter.active(), chosen || !state.isEmpty());
        // The grid's test agrees with the list on every rank.
        for (const RankRow& r : rows) QCOMPARE(filter.matches(r), ranks.contains(r.rank));

        // A new summary without the chosen place (another job, records imported again) drops the choice.
        filter.setPlaces(std::nullopt);
        QCOMPARE(filter.placeChoices(), QStringList());
        QCOMPARE(filter.placeFilter(), QString());
        QCOMPARE(ranks_of(filter).size(), state.isEmpty() ? 9 : 1);
    }

    void findings_model_keeps_the_collectors_order() {
        FindingsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setFindings({finding("straggler/communicator", "straggler", {4}),
                           finding("topology_mismatch", "topology_mismatch", {5})});
        QCOMPARE(model.kindAt(0), QStringLiteral("topology_mismatch"));
        model.upsert(finding("missing_rank", "missing_rank", {15}));
        QCOMPARE(model.count(), 3);
        QCOMPARE(model.kindAt(1), QStringLiteral("missing_rank"));
        model.upsert(finding("missing_rank", "missing_rank", {14, 15}));  // first rank moves: re-placed
        QCOMPARE(model.index(1).data(FindingsModel::RanksTextRole).toString(), QStringLiteral("14, 15"));
        model.upsert(finding("missing_rank", "missing_rank", {14, 15, 16}));  // in place
        QCOMPARE(model.index(1).data(FindingsModel::RankCountRole).toInt(), 3);
        QCOMPARE(model.index(1).data(FindingsModel::RanksRole).toList().size(), 3);
        model.remove(QStringLiteral("missing_rank"));
        model.remove(QStringLiteral("no such id"));
        QCOMPARE(model.count(), 2);
        model.clear();
        QCOMPARE(model.count(), 0);
    }

    // A finding read from records (meshscope import) carries the collector's "From: ..." line as it is; the
    // hook's have none. The JSON is what core's to_json(Finding) writes for two sources.
    void findings_model_shows_sources() {
        FindingsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const json imported = json::parse(R"({"id": "records/1", "kind": "collective_stuck", "ranks": [6],
            "message": "stuck", "fix": "look", "sources": ["fr/nccl_trace_rank_6.json", "node1.41006:4"],
            "from": "From: fr/nccl_trace_rank_6.json, node1.41006:4"})");
        const json hooked = json::parse(R"({"id": "rank_error", "kind": "rank_error", "ranks": [0], "message": "m",
            "fix": "f"})");
        model.setFindings(parse_findings(json{{"findings", {hooked, imported}}}));
        QCOMPARE(model.count(), 2);
        const QModelIndex stuck = model.index(model.rowOf(QStringLiteral("records/1")));
        QCOMPARE(stuck.data(FindingsModel::FromRole).toString(),
                 QStringLiteral("From: fr/nccl_trace_rank_6.json, node1.41006:4"));
        QCOMPARE(model.index(model.rowOf(QStringLiteral("rank_error"))).data(FindingsModel::FromRole).toString(),
                 QString());
        QVERIFY(model.roleNames().values().contains("from"));
        // A delta from the change stream carries it too.
        const LiveChange change =
            meshscope::ui::parse_change(json{{"type", "finding_updated"}, {"job", "j"}, {"finding", imported}});
        QCOMPARE(change.finding.from, QStringLiteral("From: fr/nccl_trace_rank_6.json, node1.41006:4"));
    }

    void phase_histogram() {
        PhaseHistogramModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), PhaseHistogramModel::bucket_count);
        QCOMPARE(model.maximum(), 0);
        model.setRanks(eight_ranks());
        QCOMPARE(model.countOf(6), 6);   // Phase.Heartbeat
        QCOMPARE(model.countOf(7), 1);   // Phase.Error
        QCOMPARE(model.countOf(-1), 1);  // not seen
        QCOMPARE(model.countOf(9), 0);   // no such phase
        QCOMPARE(model.countOf(-2), 0);
        QCOMPARE(model.maximum(), 6);
        QCOMPARE(model.index(0).data(PhaseHistogramModel::LabelRole).toString(), QStringLiteral("not seen"));
        QCOMPARE(model.index(7).data(PhaseHistogramModel::FractionRole).toDouble(), 1.0);  // heartbeat
    }

    // A 16,384-rank snapshot: the worker part (JSON parse + rows, LiveClient::getRows runs it off the GUI
    // thread) and the GUI-thread part (applying ready rows to the models, which must fit one 33 ms update on a
    // fast machine) are timed separately; the figures go to docs/benchmarks.md ("Live page"). Asserted is what
    // keeps them small (the second apply changes one row in place), not how long they took.
    void large_snapshot_cost() {
        const QByteArray text = meshscope::test::large_ranks_body();
        // Worker thread: what LiveClient::getRows does with the body.
        QElapsedTimer clock;
        clock.start();
        const json parsed = json::parse(text.constData(), text.constData() + text.size());
        const double json_ms = clock.nsecsElapsed() / 1e6;
        clock.restart();
        auto rows = parse_ranks(parsed);
        const double rows_ms = clock.nsecsElapsed() / 1e6;
        // GUI thread: what LiveSession::flush does with the rows.
        RanksModel model;
        PhaseHistogramModel histogram;
        clock.restart();
        model.setRanks(rows);
        histogram.setRanks(model.ranks());
        const double first_ms = clock.nsecsElapsed() / 1e6;
        rows[5].state = meshscope::RankStateKind::stale;
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
        clock.restart();
        model.setRanks(rows);  // same ranks, one changed: in place
        histogram.setRanks(model.ranks());
        const double again_ms = clock.nsecsElapsed() / 1e6;
        qInfo(
            "16384 ranks, %lld bytes: worker thread: JSON parse %.1f ms + rows %.1f ms = %.1f ms; "
            "GUI thread: first apply %.1f ms, in-place apply %.1f ms",
            static_cast<long long>(text.size()), json_ms, rows_ms, json_ms + rows_ms, first_ms, again_ms);
        QCOMPARE(model.count(), 16384);
        QCOMPARE(histogram.countOf(static_cast<int>(meshscope::Phase::heartbeat)), 16384);
        QCOMPARE(resets.count(), 0);
        QCOMPARE(changes.count(), 1);
        QCOMPARE(changes.first().at(0).toModelIndex().row(), 5);
        QCOMPARE(changes.first().at(1).toModelIndex().row(), 5);
    }

    void timeline() {
        TimelineModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rank(), -1);
        RankRow r = rank_row(4, "initializing", "node-1", "communicator");
        r.timings[index_of(meshscope::Phase::launch)] = {100.0, 101.0, std::nullopt};
        r.timings[index_of(meshscope::Phase::communicator)] = {102.0, std::nullopt, std::nullopt};
        r.timings[index_of(meshscope::Phase::error)] = {std::nullopt, std::nullopt, 103.0};
        model.setRank(&r, 100.0, 110.0);
        QCOMPARE(model.count(), 3);
        QCOMPARE(model.rank(), 4);
        QCOMPARE(model.span(), 10.0);
        QCOMPARE(model.index(0).data(TimelineModel::DurationRole).toDouble(), 1.0);
        QCOMPARE(model.index(0).data(TimelineModel::WidthFractionRole).toDouble(), 0.1);
        QCOMPARE(model.index(1).data(TimelineModel::StatusRole).toString(), QStringLiteral("started"));
        QCOMPARE(model.index(1).data(TimelineModel::StartFractionRole).toDouble(), 0.2);
        QCOMPARE(model.index(2).data(TimelineModel::StatusRole).toString(), QStringLiteral("failed"));
        QCOMPARE(model.index(0).data(TimelineModel::TextRole).toString(), QStringLiteral("+0.00 s, took 1.00 s"));
        model.setRank(nullptr, 0, 0);
        QCOMPARE(model.count(), 0);
    }

    // A job summary with "hang" as the collector writes it (docs/collector.md): its sentence and places come through
    // as they are; rows only change when the summary does.
    void hang_summary_model() {
        HangSummaryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy changed(&model, &HangSummaryModel::summaryChanged);
        QVERIFY(!model.active());
        QCOMPARE(model.count(), 0);
        const auto jobs = parse_jobs(json::parse(R"json({"jobs": [{"job": "skip", "world_size": 16,
            "topology": {"dp": 16, "cp": 1, "ep": 4},
            "hang": {"text": "root cause: rank 13; waiting in ep seq 2: 3 ranks; in dp seq 2: 12",
                     "root_cause": [13],
                     "places": [{"standing": "waiting", "dim": "ep", "seq": 2, "op": "all_to_all", "ranks": 3,
                                 "some": [12, 14, 15], "text": "waiting in ep seq 2 (all_to_all)"},
                                {"standing": "waiting", "dim": "dp", "seq": 2, "op": "all_reduce", "ranks": 12,
                                 "some": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], "text": "waiting in dp seq 2 (all_reduce)"},
                                {"standing": "outside_collectives", "ranks": 1, "some": [13],
                                 "text": "outside collectives"}]}}]})json"));
        QCOMPARE(jobs.size(), std::size_t{1});
        QVERIFY(jobs[0].hang.has_value());
        model.setSummary(jobs[0].hang);
        QCOMPARE(changed.count(), 1);
        QVERIFY(model.active());
        QCOMPARE(model.text(), QStringLiteral("root cause: rank 13; waiting in ep seq 2: 3 ranks; in dp seq 2: 12"));
        QCOMPARE(model.rootCause(), QList<int>{13});
        QCOMPARE(model.count(), 3);
        const QModelIndex ep = model.index(0);
        QCOMPARE(ep.data(HangSummaryModel::StandingRole).toString(), QStringLiteral("waiting"));
        QCOMPARE(ep.data(HangSummaryModel::DimRole).toString(), QStringLiteral("ep"));
        QCOMPARE(ep.data(HangSummaryModel::SeqRole).toInt(), 2);
        QCOMPARE(ep.data(HangSummaryModel::OpRole).toString(), QStringLiteral("all_to_all"));
        QCOMPARE(ep.data(HangSummaryModel::RanksRole).toInt(), 3);
        QCOMPARE(ep.data(HangSummaryModel::SomeRanksRole).value<QList<int>>(), (QList<int>{12, 14, 15}));
        QCOMPARE(ep.data(HangSummaryModel::TextRole).toString(), QStringLiteral("waiting in ep seq 2 (all_to_all)"));
        QCOMPARE(model.index(2).data(HangSummaryModel::StandingRole).toString(), QStringLiteral("outside_collectives"));
        QCOMPARE(model.index(2).data(HangSummaryModel::DimRole).toString(), QString());
        model.setSummary(jobs[0].hang);  // the same: nothing happens
        QCOMPARE(changed.count(), 1);
        model.setSummary(std::nullopt);
        QCOMPARE(changed.count(), 2);
        QVERIFY(!model.active());
        QCOMPARE(model.count(), 0);
        QCOMPARE(model.text(), QString());
    }

    // A hang summary core refuses is left out (and said); the job stays.
    void hang_summary_refused() {
        QTest::ignoreMessage(
            QtWarningMsg,
            "meshscope: a job's hang summary from the collector is left out: field "
            "\"hang.places[0].standing\" must be one of waiting, outside_collectives, no_record, dead");
        const auto jobs = parse_jobs(
            json::parse(R"({"jobs": [{"job": "j", "hang": {"text": "t", "places": [{"standing": "asleep"}]}}]})"));
        QCOMPARE(jobs.size(), std::size_t{1});
        QVERIFY(!jobs[0].hang.has_value());
    }

    // The selected rank's position from the ranks JSON (GET .../ranks): where it stands, and its last collectives.
    void rank_position_model() {
        RankPositionModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy changed(&model, &RankPositionModel::positionChanged);
        QVERIFY(!model.placed());
        QCOMPARE(model.rank(), -1);
        const auto ranks = parse_ranks(json::parse(R"json({"ranks": [
            {"rank": 12, "state": "pending", "position": {"standing": "waiting", "dim": "ep", "group": 3, "seq": 2,
             "op": "all_to_all", "label": "ep group 3 [12, 13, 14, 15]",
             "last": [{"dim": "ep", "group": 3, "seq": 2, "op": "all_to_all", "completed": false},
                      {"dim": "dp", "group": 0, "seq": 1, "op": "all_reduce", "completed": true}]}},
            {"rank": 13, "state": "pending", "position": {"standing": "outside_collectives", "dim": "ep", "group": 3,
             "seq": 1, "op": "all_to_all", "label": "ep group 3 [12, 13, 14, 15]", "root_cause": true,
             "last": [{"dim": "ep", "group": 3, "seq": 1, "op": "all_to_all", "completed": true}]}},
            {"rank": 2, "state": "pending", "position": {"standing": "no_record"}},
            {"rank": 5, "state": "ready"}]})json"));
        QCOMPARE(ranks.size(), std::size_t{4});
        model.setRank(&ranks[0]);
        QCOMPARE(changed.count(), 1);
        QVERIFY(model.placed());
        QCOMPARE(model.rank(), 12);
        QCOMPARE(model.standing(), QStringLiteral("waiting"));
        QCOMPARE(model.label(), QStringLiteral("ep group 3 [12, 13, 14, 15]"));
        QCOMPARE(model.dim(), QStringLiteral("ep"));
        QCOMPARE(model.seq(), 2);
        QCOMPARE(model.op(), QStringLiteral("all_to_all"));
        QVERIFY(!model.rootCause());
        QCOMPARE(model.text(), QStringLiteral("waiting · ep group 3 [12, 13, 14, 15] · seq 2 · all_to_all"));
        QCOMPARE(model.count(), 2);
        QCOMPARE(model.index(0).data(RankPositionModel::TextRole).toString(),
                 QStringLiteral("ep group 3 · seq 2 · all_to_all"));
        QCOMPARE(model.index(0).data(RankPositionModel::DimRole).toString(), QStringLiteral("ep"));
        QCOMPARE(model.index(0).data(RankPositionModel::GroupRole).toInt(), 3);
        QCOMPARE(model.index(0).data(RankPositionModel::SeqRole).toInt(), 2);
        QCOMPARE(model.index(0).data(RankPositionModel::CompletedRole).toBool(), false);
        QCOMPARE(model.index(1).data(RankPositionModel::DimRole).toString(), QStringLiteral("dp"));
        QCOMPARE(model.index(1).data(RankPositionModel::OpRole).toString(), QStringLiteral("all_reduce"));
        QCOMPARE(model.index(1).data(RankPositionModel::CompletedRole).toBool(), true);
        model.setRank(&ranks[0]);  // the same: nothing happens
        QCOMPARE(changed.count(), 1);
        model.setRank(&ranks[1]);
        QVERIFY(model.rootCause());
        QCOMPARE(model.standing(), QStringLiteral("outside_collectives"));
        QCOMPARE(model.text(),
                 QStringLiteral("outside collectives · ep group 3 [12, 13, 14, 15] · seq 1 · all_to_all · root cause"));
        QCOMPARE(model.count(), 1);
        model.setRank(&ranks[2]);
        QVERIFY(model.placed());
        QCOMPARE(model.standing(), QStringLiteral("no_record"));
        QCOMPARE(model.label(), QString());
        QCOMPARE(model.text(), QStringLiteral("no record"));
        QCOMPARE(model.count(), 0);
        model.setRank(&ranks[3]);  // a rank with no position
        QVERIFY(!model.placed());
        QCOMPARE(model.rank(), 5);
        QCOMPARE(model.standing(), QString());
        model.setRank(nullptr);
        QCOMPARE(model.rank(), -1);
        QCOMPARE(changed.count(), 5);

        // The rank list says where each rank stands, in core's words.
        RanksModel list;
        QAbstractItemModelTester list_tester(&list, QAbstractItemModelTester::FailureReportingMode::QtTest);
        list.setRanks(ranks);
        QCOMPARE(list.index(0).data(RanksModel::PlaceRole).toString(), QStringLiteral("waiting ep"));
        QCOMPARE(list.index(1).data(RanksModel::PlaceRole).toString(), QStringLiteral("outside collectives"));
        QCOMPARE(list.index(2).data(RanksModel::PlaceRole).toString(), QStringLiteral("no record"));
        QCOMPARE(list.index(3).data(RanksModel::PlaceRole).toString(), QString());
    }
};

QTEST_GUILESS_MAIN(TestLiveModels)
#include "tst_live_models.moc"
