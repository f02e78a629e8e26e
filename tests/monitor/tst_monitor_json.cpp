// Core reads what it writes: a Finding, a RankState and a Change read back from the JSON their to_json writes
// (finding_from_json, rank_state_from_json, change_from_json). The JSON in every row is written by hand from
// docs/collector.md's shapes, so each row checks both directions against an independent text; the refusals' texts are
// written out; names a newer collector may write (a finding kind, a rank state, a phase, a change type this build
// does not know) are kept and listed, or refused without a place to list them. Also a batch's per-body result
// (BodyResult), which the collector writes and a relay reads.
#include <QtTest>

#include <nlohmann/json.hpp>

#include "meshscope/monitor/body_result.h"
#include "meshscope/monitor/finding.h"
#include "meshscope/monitor/monitor.h"
#include "meshscope/monitor/rank_state.h"

using namespace meshscope;
using nlohmann::json;

Q_DECLARE_METATYPE(meshscope::Finding)
Q_DECLARE_METATYPE(meshscope::RankState)
Q_DECLARE_METATYPE(meshscope::Change)
Q_DECLARE_METATYPE(meshscope::UnknownNames)
Q_DECLARE_METATYPE(meshscope::BodyResult)

namespace {
json parsed(const QString& text) {
    return json::parse(text.toStdString());
}

// What `reader` ("finding", "rank", "change") reads from `value`, written back by to_json; or the error's text.
std::pair<json, QString> read_back(const QString& reader, const json& value, UnknownNames* unknown) {
    const auto answer = [](const auto& read) -> std::pair<json, QString> {
        if (!read) return {json(), QString::fromStdString(read.error().message())};
        return {to_json(*read), QString()};
    };
    if (reader == QLatin1String("finding")) return answer(finding_from_json(value, unknown));
    if (reader == QLatin1String("rank")) return answer(rank_state_from_json(value, unknown));
    return answer(change_from_json(value, unknown));
}

Finding finding(std::string id, FindingKind kind, std::vector<std::int64_t> ranks, std::string message, std::string fix,
                std::vector<std::string> sources = {}) {
    return Finding{std::move(id), kind, std::move(ranks), std::move(message), std::move(fix), std::move(sources)};
}

const QString kinds = QStringLiteral(
    "verdict, topology_mismatch, group_disagreement, missing_rank, duplicate_rank, straggler, stale_rank, rank_error, "
    "reinit_mismatch, slow_group, communicator_not_formed, creation_order_mismatch, collective_mismatch, "
    "collective_stuck, peer_unreachable");
}  // namespace

class TestMonitorJson : public QObject {
    Q_OBJECT

private slots:
    // JSON -> Finding -> JSON. `canonical`: the text is exactly what to_json writes for the value.
    void finding_round_trip_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<Finding>("value");
        QTest::addColumn<bool>("canonical");
        QTest::addRow("the hook's")
            << R"({"id": "straggler/communicator", "kind": "straggler", "ranks": [4, 9], "message": "rank 4 is slow",
                  "fix": "look at rank 4"})"
            << finding("straggler/communicator", FindingKind::straggler, {4, 9}, "rank 4 is slow", "look at rank 4")
            << true;
        QTest::addRow("read from records, with its From: line")
            << R"({"id": "records/1", "kind": "collective_stuck", "ranks": [6], "message": "stuck", "fix": "look",
                  "sources": ["fr/nccl_trace_rank_6.json", "node1.41006:4"],
                  "from": "From: fr/nccl_trace_rank_6.json, node1.41006:4"})"
            << finding("records/1", FindingKind::collective_stuck, {6}, "stuck", "look",
                       {"fr/nccl_trace_rank_6.json", "node1.41006:4"})
            << true;
        QTest::addRow("no ranks") << R"({"id": "missing_rank", "kind": "missing_rank", "ranks": [], "message": "",
                                        "fix": ""})"
                                  << finding("missing_rank", FindingKind::missing_rank, {}, "", "") << true;
        QTest::addRow("optional fields left out, unknown fields and nulls ignored")
            << R"({"id": "rank_error/3", "kind": "rank_error", "fix": null, "future": [1, 2]})"
            << finding("rank_error/3", FindingKind::rank_error, {}, "", "") << false;
        QTest::addRow("a wrong From: line is not read: sources say it")
            << R"({"id": "records/2", "kind": "peer_unreachable", "sources": ["10.0.0.1:28028"], "from": "From: x"})"
            << finding("records/2", FindingKind::peer_unreachable, {}, "", "", {"10.0.0.1:28028"}) << false;
    }
    void finding_round_trip() {
        QFETCH(QString, text);
        QFETCH(Finding, value);
        QFETCH(bool, canonical);
        const auto read = finding_from_json(parsed(text));
        QVERIFY2(read, read ? "" : read.error().what());
        QVERIFY(*read == value);
        if (canonical)
            QCOMPARE(QString::fromStdString(to_json(value).dump()), QString::fromStdString(parsed(text).dump()));
        QVERIFY(*finding_from_json(to_json(value)) == value);
    }

    void rank_state_round_trip_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<RankState>("value");
        QTest::addColumn<bool>("canonical");
        RankState full;
        full.rank = 5;
        full.state = RankStateKind::ready;
        full.host = "node-0";
        full.pid = 4100;
        full.local_rank = 5;
        full.device = "cuda:5";
        full.device_uuid = "GPU-5";
        full.phase = Phase::heartbeat;
        full.status = Status::done;
        full.world_size = 16;
        full.topology = ReportedTopology{4, 2, 2, 2, 2};
        full.meshes["efsdp"] = ReportedMesh{"efsdp", {"dp_shard", "ep"}, {8, 2}};
        full.groups["cp"] = {4, 5};
        full.groups["ep"] = {5, 7};
        full.error = ReportedError{"RuntimeError", "boom"};
        full.timings[index_of(Phase::launch)] = PhaseTiming{10.0, 10.5, std::nullopt};
        full.timings[index_of(Phase::ready)] = PhaseTiming{std::nullopt, 12.0, std::nullopt};
        full.timings[index_of(Phase::error)] = PhaseTiming{std::nullopt, std::nullopt, 13.25};
        full.first_seen = 100.0;
        full.last_seen = 130.5;
        full.last_ts = 29.5;
        full.events = 7;
        full.findings = {FindingKind::straggler, FindingKind::rank_error};
        QTest::addRow("every field")
            << R"({"rank": 5, "state": "ready", "host": "node-0", "pid": 4100, "local_rank": 5, "device": "cuda:5",
                  "device_uuid": "GPU-5", "phase": "heartbeat", "status": "done", "world_size": 16,
                  "topology": {"dp": 4, "cp": 2, "ep": 2, "mp_replicate": 2, "mp_shard": 2},
                  "meshes": [{"name": "efsdp", "dim_names": ["dp_shard", "ep"], "shape": [8, 2]}],
                  "groups": {"cp": [4, 5], "ep": [5, 7]}, "error": {"type": "RuntimeError", "message": "boom"},
                  "timings": {"launch": {"started": 10.0, "done": 10.5, "duration": 0.5}, "ready": {"done": 12.0},
                              "error": {"failed": 13.25}},
                  "first_seen": 100.0, "last_seen": 130.5, "last_ts": 29.5, "events": 7,
                  "findings": ["straggler", "rank_error"]})"
            << full << true;
        RankState pending;
        pending.rank = 12;
        QTest::addRow("never seen") << R"({"rank": 12, "state": "pending", "timings": {}, "events": 0, "findings": []})"
                                    << pending << true;
        QTest::addRow("only what is required") << R"({"rank": 12, "state": "pending"})" << pending << false;
        RankState failed;
        failed.rank = 0;
        failed.state = RankStateKind::failed;
        failed.error = ReportedError{"", "no type"};
        failed.timings[index_of(Phase::launch)] = PhaseTiming{1.0, std::nullopt, std::nullopt};
        QTest::addRow("a duration is derived, not read")
            << R"({"rank": 0, "state": "failed", "error": {"message": "no type"},
                  "timings": {"launch": {"started": 1.0, "duration": 99}}})"
            << failed << false;
    }
    void rank_state_round_trip() {
        QFETCH(QString, text);
        QFETCH(RankState, value);
        QFETCH(bool, canonical);
        const auto read = rank_state_from_json(parsed(text));
        QVERIFY2(read, read ? "" : read.error().what());
        QVERIFY(*read == value);
        if (canonical)
            QCOMPARE(QString::fromStdString(to_json(value).dump()), QString::fromStdString(parsed(text).dump()));
        QVERIFY(*rank_state_from_json(to_json(value)) == value);
    }

    void change_round_trip_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<Change>("value");
        QTest::addColumn<bool>("canonical");
        Change added{ChangeKind::job_added, "j", -1, RankStateKind::pending, std::nullopt, std::nullopt};
        QTest::addRow("job_added") << R"({"type": "job_added", "job": "j"})" << added << true;
        Change rank{ChangeKind::rank_changed, "j", 5, RankStateKind::ready, Phase::ready, std::nullopt};
        QTest::addRow("rank_changed")
            << R"({"type": "rank_changed", "job": "j", "rank": 5, "state": "ready", "phase": "ready"})" << rank << true;
        Change no_phase{ChangeKind::rank_changed, "j", 0, RankStateKind::stale, std::nullopt, std::nullopt};
        QTest::addRow("rank_changed without a phase")
            << R"({"type": "rank_changed", "job": "j", "rank": 0, "state": "stale"})" << no_phase << true;
        Change found{ChangeKind::finding_added,
                     "j",
                     -1,
                     RankStateKind::pending,
                     std::nullopt,
                     finding("straggler/communicator", FindingKind::straggler, {4}, "m", "f")};
        QTest::addRow("finding_added")
            << R"({"type": "finding_added", "job": "j", "finding": {"id": "straggler/communicator",
                  "kind": "straggler", "ranks": [4], "message": "m", "fix": "f"}})"
            << found << true;
        Change updated = found;
        updated.kind = ChangeKind::finding_updated;
        updated.finding = finding("records/1", FindingKind::collective_stuck, {6}, "stuck", "look", {"a.json"});
        QTest::addRow("finding_updated, from records")
            << R"({"type": "finding_updated", "job": "j", "finding": {"id": "records/1", "kind": "collective_stuck",
                  "ranks": [6], "message": "stuck", "fix": "look", "sources": ["a.json"], "from": "From: a.json"}})"
            << updated << true;
        Change removed{
            ChangeKind::finding_removed, "j",          -1,
            RankStateKind::pending,      std::nullopt, finding("missing_rank", FindingKind::missing_rank, {}, "", "")};
        QTest::addRow("finding_removed")
            << R"({"type": "finding_removed", "job": "j", "id": "missing_rank", "kind": "missing_rank"})" << removed
            << true;
    }
    void change_round_trip() {
        QFETCH(QString, text);
        QFETCH(Change, value);
        QFETCH(bool, canonical);
        const auto read = change_from_json(parsed(text));
        QVERIFY2(read, read ? "" : read.error().what());
        QVERIFY(*read == value);
        if (canonical)
            QCOMPARE(QString::fromStdString(to_json(value).dump()), QString::fromStdString(parsed(text).dump()));
        QVERIFY(*change_from_json(to_json(value)) == value);
    }

    // Every refusal's exact text, with no place for unknown names.
    void refuses_data() {
        QTest::addColumn<QString>("reader");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("error");
        QTest::addRow("finding not an object") << "finding"
                                               << "[]"
                                               << "a finding must be a JSON object";
        QTest::addRow("finding without id") << "finding"
                                            << R"({"kind": "straggler"})"
                                            << R"(field "id" is required)";
        QTest::addRow("finding id a number") << "finding"
                                             << R"({"id": 3, "kind": "straggler"})"
                                             << R"(field "id" must be a string)";
        QTest::addRow("finding without kind") << "finding"
                                              << R"({"id": "x"})"
                                              << R"(field "kind" is required)";
        QTest::addRow("finding kind unknown") << "finding"
                                              << R"({"id": "x", "kind": "gpu_throttled"})"
                                              << R"(field "kind" must be a finding kind ()" + kinds + ")";
        QTest::addRow("finding kind a number") << "finding"
                                               << R"({"id": "x", "kind": 4})"
                                               << R"(field "kind" must be a finding kind ()" + kinds + ")";
        QTest::addRow("finding ranks negative") << "finding"
                                                << R"({"id": "x", "kind": "straggler", "ranks": [1, -1]})"
                                                << R"(field "ranks" must be an array of non-negative integers)";
        QTest::addRow("finding ranks an object") << "finding"
                                                 << R"({"id": "x", "kind": "straggler", "ranks": {}})"
                                                 << R"(field "ranks" must be an array of non-negative integers)";
        QTest::addRow("finding message a list") << "finding"
                                                << R"({"id": "x", "kind": "straggler", "message": []})"
                                                << R"(field "message" must be a string)";
        QTest::addRow("finding fix a number") << "finding"
                                              << R"({"id": "x", "kind": "straggler", "fix": 1})"
                                              << R"(field "fix" must be a string)";
        QTest::addRow("finding sources of numbers") << "finding"
                                                    << R"({"id": "x", "kind": "straggler", "sources": [1]})"
                                                    << R"(field "sources" must be an array of strings)";

        QTest::addRow("rank not an object") << "rank"
                                            << "3"
                                            << "a rank state must be a JSON object";
        QTest::addRow("rank without rank") << "rank"
                                           << R"({"state": "ready"})"
                                           << R"(field "rank" is required)";
        QTest::addRow("rank a string") << "rank"
                                       << R"({"rank": "5", "state": "ready"})"
                                       << R"(field "rank" must be a non-negative integer)";
        QTest::addRow("rank negative") << "rank"
                                       << R"({"rank": -1, "state": "ready"})"
                                       << R"(field "rank" must be a non-negative integer)";
        QTest::addRow("rank without state") << "rank"
                                            << R"({"rank": 1})"
                                            << R"(field "state" is required)";
        QTest::addRow("rank state unknown")
            << "rank"
            << R"({"rank": 1, "state": "draining"})"
            << R"(field "state" must be one of pending, initializing, ready, failed, stale, exited)";
        QTest::addRow("rank phase unknown")
            << "rank"
            << R"({"rank": 1, "state": "ready", "phase": "checkpoint"})"
            << R"(field "phase" must be one of launch, process_group, device_mesh, parallel_state, communicator, )"
               R"(ready, heartbeat, error, exit)";
        QTest::addRow("rank status unknown") << "rank"
                                             << R"({"rank": 1, "state": "ready", "status": "paused"})"
                                             << R"(field "status" must be one of started, done, failed)";
        QTest::addRow("rank host a number") << "rank"
                                            << R"({"rank": 1, "state": "ready", "host": 7})"
                                            << R"(field "host" must be a string)";
        QTest::addRow("rank pid negative") << "rank"
                                           << R"({"rank": 1, "state": "ready", "pid": -4})"
                                           << R"(field "pid" must be a non-negative integer)";
        QTest::addRow("rank world_size zero") << "rank"
                                              << R"({"rank": 1, "state": "ready", "world_size": 0})"
                                              << R"(field "world_size" must be a positive integer)";
        QTest::addRow("rank topology without ep") << "rank"
                                                  << R"({"rank": 1, "state": "ready", "topology": {"dp": 1, "cp": 1}})"
                                                  << R"(field "topology.ep" is required)";
        QTest::addRow("rank meshes an object") << "rank"
                                               << R"({"rank": 1, "state": "ready", "meshes": {}})"
                                               << R"(field "meshes" must be an array of objects)";
        QTest::addRow("rank mesh without name") << "rank"
                                                << R"({"rank": 1, "state": "ready", "meshes": [{}]})"
                                                << R"(field "meshes[0].name" is required)";
        QTest::addRow("rank mesh shape of zeros")
            << "rank"
            << R"({"rank": 1, "state": "ready", "meshes": [{"name": "m", "shape": [0]}]})"
            << R"(field "meshes[0].shape" must be an array of positive integers)";
        QTest::addRow("rank group of strings") << "rank"
                                               << R"({"rank": 1, "state": "ready", "groups": {"ep": ["1"]}})"
                                               << R"(field "groups.ep" must be an array of non-negative integers)";
        QTest::addRow("rank error type a number") << "rank"
                                                  << R"({"rank": 1, "state": "ready", "error": {"type": 1}})"
                                                  << R"(field "error.type" must be a string)";
        QTest::addRow("rank timing not a number")
            << "rank"
            << R"({"rank": 1, "state": "ready", "timings": {"launch": {"done": "soon"}}})"
            << R"(field "timings.launch.done" must be a number)";
        QTest::addRow("rank timing of an unknown phase")
            << "rank"
            << R"({"rank": 1, "state": "ready", "timings": {"checkpoint": {"done": 1}}})"
            << R"(field "timings" must have phases as keys (launch, process_group, device_mesh, parallel_state, )"
               R"(communicator, ready, heartbeat, error, exit))";
        QTest::addRow("rank events negative") << "rank"
                                              << R"({"rank": 1, "state": "ready", "events": -1})"
                                              << R"(field "events" must be a non-negative integer)";
        QTest::addRow("rank last_seen a string") << "rank"
                                                 << R"({"rank": 1, "state": "ready", "last_seen": "now"})"
                                                 << R"(field "last_seen" must be a number)";
        QTest::addRow("rank finding kind unknown")
            << "rank"
            << R"({"rank": 1, "state": "ready", "findings": ["straggler", "gpu_throttled"]})"
            << R"(field "findings" must be an array of finding kinds ()" + kinds + ")";

        QTest::addRow("change not an object") << "change"
                                              << "null"
                                              << "a change must be a JSON object";
        QTest::addRow("change without type") << "change"
                                             << R"({"job": "j"})"
                                             << R"(field "type" is required)";
        QTest::addRow("change type unknown")
            << "change"
            << R"({"type": "job_removed", "job": "j"})"
            << R"(field "type" must be one of job_added, rank_changed, finding_added, finding_updated, finding_removed)";
        QTest::addRow("change without job") << "change"
                                            << R"({"type": "job_added"})"
                                            << R"(field "job" is required)";
        QTest::addRow("change rank a string") << "change"
                                              << R"({"type": "rank_changed", "job": "j", "rank": "5"})"
                                              << R"(field "rank" must be a non-negative integer)";
        QTest::addRow("change without state") << "change"
                                              << R"({"type": "rank_changed", "job": "j", "rank": 5})"
                                              << R"(field "state" is required)";
        QTest::addRow("change state a number")
            << "change"
            << R"({"type": "rank_changed", "job": "j", "rank": 5, "state": 3})"
            << R"(field "state" must be one of pending, initializing, ready, failed, stale, exited)";
        QTest::addRow("change finding not an object") << "change"
                                                      << R"({"type": "finding_added", "job": "j", "finding": 1})"
                                                      << R"(field "finding" must be an object)";
        QTest::addRow("change finding without id")
            << "change"
            << R"({"type": "finding_added", "job": "j", "finding": {"kind": "straggler"}})"
            << R"(field "finding.id" is required)";
        QTest::addRow("change removed finding without kind") << "change"
                                                             << R"({"type": "finding_removed", "job": "j", "id": "x"})"
                                                             << R"(field "kind" is required)";
    }
    void refuses() {
        QFETCH(QString, reader);
        QFETCH(QString, text);
        QFETCH(QString, error);
        QCOMPARE(read_back(reader, parsed(text), nullptr).second, error);
    }

    // A newer collector's names: kept with an UnknownNames (the value reads as `reads`, the names as listed), and
    // refused without one (refuses_data has each).
    void keeps_unknown_names_data() {
        QTest::addColumn<QString>("reader");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("reads");  // to_json of the value read
        QTest::addColumn<UnknownNames>("unknown");
        UnknownNames kind;
        kind.kind = "gpu_throttled";
        QTest::addRow("a finding of an unknown kind: kept, its kind left at the default")
            << "finding"
            << R"({"id": "gpu_throttled/3", "kind": "gpu_throttled", "ranks": [3], "message": "hot"})"
            << R"({"id": "gpu_throttled/3", "kind": "rank_error", "ranks": [3], "message": "hot", "fix": ""})" << kind;
        UnknownNames rank;
        rank.state = "draining";
        rank.phase = "checkpoint";
        rank.status = "paused";
        rank.findings = {"gpu_throttled"};
        rank.timings = {"checkpoint"};
        QTest::addRow("a rank with an unknown state, phase, status, finding kind and timing")
            << "rank"
            << R"({"rank": 2, "state": "draining", "phase": "checkpoint", "status": "paused", "host": "h",
                  "timings": {"launch": {"started": 1.0}, "checkpoint": {"started": 2.0}},
                  "findings": ["straggler", "gpu_throttled"], "events": 3})"
            << R"({"rank": 2, "state": "pending", "host": "h", "timings": {"launch": {"started": 1.0}}, "events": 3,
                  "findings": ["straggler"]})"
            << rank;
        QTest::addRow("a rank with known names only") << "rank"
                                                      << R"({"rank": 2, "state": "ready"})"
                                                      << R"({"rank": 2, "state": "ready", "timings": {}, "events": 0,
                                                            "findings": []})"
                                                      << UnknownNames{};
        UnknownNames type;
        type.type = "job_removed";
        QTest::addRow("a change of an unknown type: only its job")
            << "change"
            << R"({"type": "job_removed", "job": "j", "reason": "done"})"
            << R"({"type": "rank_changed", "job": "j", "rank": -1, "state": "pending"})" << type;
        QTest::addRow("a change of an unknown type without a job")
            << "change"
            << R"({"type": "stats", "bodies": 3})"
            << R"({"type": "rank_changed", "job": "", "rank": -1, "state": "pending"})" << [] {
                   UnknownNames u;
                   u.type = "stats";
                   return u;
               }();
        UnknownNames state;
        state.state = "draining";
        state.phase = "checkpoint";
        QTest::addRow("a rank change to an unknown state and phase")
            << "change"
            << R"({"type": "rank_changed", "job": "j", "rank": 4, "state": "draining", "phase": "checkpoint"})"
            << R"({"type": "rank_changed", "job": "j", "rank": 4, "state": "pending"})" << state;
        QTest::addRow("a finding of an unknown kind in a change")
            << "change"
            << R"({"type": "finding_added", "job": "j", "finding": {"id": "g", "kind": "gpu_throttled"}})"
            << R"({"type": "finding_added", "job": "j", "finding": {"id": "g", "kind": "rank_error",
                   "ranks": [], "message": "", "fix": ""}})"
            << kind;
        QTest::addRow("a removed finding of an unknown kind")
            << "change"
            << R"({"type": "finding_removed", "job": "j", "id": "g", "kind": "gpu_throttled"})"
            << R"({"type": "finding_removed", "job": "j", "id": "g", "kind": "rank_error"})" << kind;
    }
    void keeps_unknown_names() {
        QFETCH(QString, reader);
        QFETCH(QString, text);
        QFETCH(QString, reads);
        QFETCH(UnknownNames, unknown);
        UnknownNames met;
        const auto [value, error] = read_back(reader, parsed(text), &met);
        QCOMPARE(error, QString());
        QCOMPARE(QString::fromStdString(value.dump()), QString::fromStdString(parsed(reads).dump()));
        QCOMPARE(QString::fromStdString(met.kind), QString::fromStdString(unknown.kind));
        QCOMPARE(QString::fromStdString(met.state), QString::fromStdString(unknown.state));
        QVERIFY(met == unknown);
        QCOMPARE(met.empty(), unknown == UnknownNames{});
    }

    // One body's result in a batch (body_result.h), as the collector writes it and a relay reads it. `writes`:
    // to_json of the value read (empty: the text itself).
    void body_result_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<BodyResult>("value");
        QTest::addColumn<QString>("writes");
        QTest::addRow("stored") << R"({"status": 200, "accepted": 3})" << BodyResult{200, 3, "", std::nullopt}
                                << QString();
        QTest::addRow("refused") << R"({"status": 400, "error": "event 1: bad"})"
                                 << BodyResult{400, 0, "event 1: bad", std::nullopt} << QString();
        QTest::addRow("shed") << R"({"status": 503, "error": "collector busy: heartbeat not stored", "retry_after": 5})"
                              << BodyResult{503, 0, "collector busy: heartbeat not stored", 5} << QString();
        QTest::addRow("retry_after rounded up")
            << R"({"status": 503, "error": "x", "retry_after": 1.5})" << BodyResult{503, 0, "x", 2}
            << R"({"status": 503, "error": "x", "retry_after": 2})";
        QTest::addRow("retry_after at least 1")
            << R"({"status": 503, "error": "x", "retry_after": 0})" << BodyResult{503, 0, "x", 1}
            << R"({"status": 503, "error": "x", "retry_after": 1})";
        QTest::addRow("other types read as absent")
            << R"({"status": 503, "error": 7, "retry_after": "soon", "accepted": "3"})"
            << BodyResult{503, 0, "", std::nullopt} << R"({"status": 503, "error": ""})";
        QTest::addRow("a 200 writes only what it stored")
            << R"({"status": 200, "accepted": 2, "error": "none", "retry_after": 3})" << BodyResult{200, 2, "none", 3}
            << R"({"status": 200, "accepted": 2})";
    }
    void body_result() {
        QFETCH(QString, text);
        QFETCH(BodyResult, value);
        QFETCH(QString, writes);
        const auto read = body_result_from_json(parsed(text));
        QVERIFY2(read, read ? "" : read.error().what());
        QVERIFY(*read == value);
        QCOMPARE(QString::fromStdString(to_json(value).dump()),
                 QString::fromStdString(parsed(writes.isEmpty() ? text : writes).dump()));
    }
    void body_result_needs_a_status_data() {
        QTest::addColumn<QString>("text");
        QTest::addRow("none") << R"({"accepted": 3})";
        QTest::addRow("a string") << R"({"status": "200"})";
        QTest::addRow("a fraction") << R"({"status": 200.5})";
        QTest::addRow("not an object") << R"([200])";
    }
    void body_result_needs_a_status() {
        QFETCH(QString, text);
        const auto read = body_result_from_json(parsed(text));
        QVERIFY(!read);
        QCOMPARE(QString::fromStdString(read.error().message()),
                 QStringLiteral(R"(field "status" must be an integer)"));
    }
};

QTEST_APPLESS_MAIN(TestMonitorJson)
#include "tst_monitor_json.moc"
