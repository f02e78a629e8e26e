// Every finding kind through the real Monitor: which ranks each scenario flags (ties, declared plans, late and
// out-of-order reports included), and the exact one-line message of each kind.
#include <QtTest>

#include <map>
#include <numeric>

#include "monitor_test_support.h"

using namespace meshscope;
using namespace monitor_test;

namespace {

// Events with the collector's receive time, plus the ticks to run afterwards.
struct Scenario {
    std::vector<std::pair<Event, double>> events;
    std::vector<std::pair<std::int64_t, double>> held;  // (rank, at): a relay names it "held" (Monitor::seen)
    std::vector<double> ticks;
    MonitorOptions options;
};

Scenario arriving_at(const std::vector<Event>& events, double at = 0) {
    Scenario s;
    for (const auto& e : events) s.events.emplace_back(e, at);
    return s;
}

Event failure(const JobShape& shape, std::int64_t rank, Phase phase, const std::string& type,
              const std::string& message) {
    Event e = rank_events(shape, rank).front();
    e.phase = phase;
    e.status = Status::failed;
    e.ts = 4.5;
    e.error = ReportedError{type, message};
    return e;
}

const std::string reinit_text = "FSDPTurbo parallel state is already initialized with (8, 2, 2), got (8, 2, 4).";

// One function per scenario name, so that table rows stay one line each.
Scenario build(const QString& name) {
    const JobShape shape;  // dp 8, cp 2, ep 2: 16 ranks
    if (name == "healthy") return arriving_at(job_events(shape));
    if (name == "healthy ep8") return arriving_at(job_events({"job", 16, 1, 8, 8}));
    if (name == "healthy out of order") {
        auto events = job_events(shape);
        std::reverse(events.begin(), events.end());
        return arriving_at(events);
    }
    if (name == "topology ep differs") {
        return arriving_at(job_events(shape, [&](std::int64_t r, std::vector<Event>& events) {
            if (r != 3) return;
            JobShape other = shape;
            other.ep = 4;
            events = rank_events(other, 3);  // its topology, meshes and groups all follow ep=4
        }));
    }
    if (name == "topology tie") {
        std::vector<Event> events = rank_events({"job", 2, 1, 1}, 0);
        const auto second = rank_events({"job", 2, 1, 2}, 1);
        events.insert(events.end(), second.begin(), second.end());
        return arriving_at(events);
    }
    if (name == "topology tie, plan decides") {
        std::vector<Event> events = rank_events({"job", 2, 1, 1}, 0);
        const auto second = rank_events({"job", 2, 1, 2}, 1);
        events.insert(events.end(), second.begin(), second.end());
        events.front().plan =
            nlohmann::json{{"schema", "meshscope.plan/1"}, {"topology", {{"dp", 2}, {"cp", 1}, {"ep", 2}}}};
        return arriving_at(events);
    }
    if (name == "world size differs") {
        return arriving_at(job_events(shape, [](std::int64_t r, std::vector<Event>& events) {
            if (r == 5)
                for (auto& e : events) e.world_size = 32;
        }));
    }
    if (name == "mesh shape differs") {
        return arriving_at(job_events(shape, [](std::int64_t r, std::vector<Event>& events) {
            if (r != 2) return;
            for (auto& e : events)
                if (e.mesh && e.mesh->name == "expert") e.mesh->shape = {1, 2, 4, 2};
        }));
    }
    if (name == "group wrong along ep") {
        return arriving_at(job_events(shape, [](std::int64_t r, std::vector<Event>& events) {
            if (r == 5) find_event(events, Phase::parallel_state, Status::done)->groups["ep"] = {4, 5};
        }));
    }
    if (name == "group without its rank") {
        return arriving_at(job_events(shape, [](std::int64_t r, std::vector<Event>& events) {
            if (r == 6) find_event(events, Phase::parallel_state, Status::done)->groups["ep"] = {0, 2};
        }));
    }
    if (name == "group judged by peers") {
        // tp is no dim of the job's meshes: only the members' reports can be compared.
        return arriving_at(job_events(shape, [](std::int64_t r, std::vector<Event>& events) {
            auto& groups = find_event(events, Phase::parallel_state, Status::done)->groups;
            groups["tp"] = r == 1 ? Group{1, 3} : Group{r & ~1, r | 1};
        }));
    }
    // LlamaFactory's model mesh (mp_replicate, mp_shard), judged like the other meshes.
    JobShape model = shape;
    model.mp_replicate = 2;  // (2, 8): mp_shard groups [0..7], [8..15]; mp_replicate groups [r % 8, r % 8 + 8]
    if (name == "healthy model mesh") return arriving_at(job_events(model));
    if (name == "model mesh differs") {
        return arriving_at(job_events(model, [&](std::int64_t r, std::vector<Event>& events) {
            if (r != 2) return;
            JobShape other = model;
            other.mp_replicate = 4;
            events = rank_events(other, 2);  // its model mesh (4, 4) and its model groups follow from it
        }));
    }
    if (name == "model group wrong") {
        return arriving_at(job_events(model, [](std::int64_t r, std::vector<Event>& events) {
            if (r == 5) find_event(events, Phase::parallel_state, Status::done)->groups["mp_shard"] = {4, 5};
        }));
    }
    if (name == "model mesh in topology") {
        // No device_mesh event for it: the parallel state's topology carries (mp_replicate, mp_shard); rank 3's is
        // impossible for 16 ranks, which is exactly what must show.
        return arriving_at(job_events(model, [](std::int64_t r, std::vector<Event>& events) {
            std::erase_if(events, [](const Event& e) { return e.mesh && e.mesh->name == "model"; });
            auto& topology = *find_event(events, Phase::parallel_state, Status::done)->topology;
            topology.mp_replicate = r == 3 ? 3 : 2;
            topology.mp_shard = r == 3 ? 5 : 8;
        }));
    }
    if (name == "model mesh against the plan") {
        auto events = job_events(model);
        events.front().plan =
            nlohmann::json{{"schema", "meshscope.plan/1"},
                           {"topology", {{"dp", 8}, {"cp", 2}, {"ep", 2}, {"mp_replicate", 4}, {"mp_shard", 4}}}};
        return arriving_at(events);
    }
    if (name == "group corrected later") {
        return arriving_at(job_events(shape, [](std::int64_t r, std::vector<Event>& events) {
            if (r != 5) return;
            Event fixed = *find_event(events, Phase::parallel_state, Status::done);
            find_event(events, Phase::parallel_state, Status::done)->groups["ep"] = {4, 5};
            fixed.ts = 20;
            events.push_back(fixed);
        }));
    }
    if (name == "late wrong topology") {
        // The rank's newer, correct report arrives first; its older one (ts 3, ep 4) must not replace it.
        return arriving_at(job_events(shape, [](std::int64_t r, std::vector<Event>& events) {
            if (r != 3) return;
            Event old = *find_event(events, Phase::parallel_state, Status::done);
            old.ts = 3;
            old.topology->ep = 4;
            old.groups.clear();
            events.push_back(old);
        }));
    }
    if (name == "missing rank") {
        Scenario s = arriving_at(job_events({"job", 4, 1, 1}, [](std::int64_t r, std::vector<Event>& events) {
            if (r == 2) events.clear();
        }));
        s.ticks = {29, 30};
        return s;
    }
    if (name == "missing rank not yet due") {
        Scenario s = arriving_at(job_events({"job", 4, 1, 1}, [](std::int64_t r, std::vector<Event>& events) {
            if (r == 2) events.clear();
        }));
        s.ticks = {29.9};
        return s;
    }
    if (name == "missing rank arrives") {
        Scenario s = build("missing rank");
        auto late = rank_events({"job", 4, 1, 1}, 2);
        for (const auto& e : late) s.events.emplace_back(e, 31);
        s.ticks.clear();
        // The tick comes first (findings at 30), then rank 2's events clear it: see run().
        s.ticks = {30};
        return s;
    }
    if (name == "duplicate rank") {
        return arriving_at(job_events(shape, [](std::int64_t r, std::vector<Event>& events) {
            if (r == 1) find_event(events, Phase::communicator, Status::done)->pid = 9999;
        }));
    }
    if (name == "relaunch after exit") {
        auto events = job_events(shape);
        Event exit = events.back();
        exit.phase = Phase::exit;
        exit.status = Status::done;
        exit.ts = 20;
        events.push_back(exit);
        auto again = rank_events(shape, exit.rank, 30);
        for (auto& e : again) e.pid = 7777;
        events.insert(events.end(), again.begin(), again.end());
        return arriving_at(events);
    }
    if (name == "straggler") {
        Scenario s = arriving_at(job_events(shape, [](std::int64_t r, std::vector<Event>& events) {
            if (r != 13) return;
            bool after = false;
            for (auto& e : events) {
                if (e.phase == Phase::communicator && e.status == Status::done) after = true;
                if (after) *e.ts += 11;
            }
        }));
        s.ticks = {5};
        return s;
    }
    if (name == "straggler with few peers") {
        Scenario s = arriving_at(job_events({"job", 4, 1, 1}, [](std::int64_t r, std::vector<Event>& events) {
            if (r != 2) return;
            for (auto& e : events)
                if (e.phase == Phase::communicator && e.status == Status::done) *e.ts += 11;
        }));
        s.ticks = {5};
        return s;
    }
    if (name == "straggler still running") {
        Scenario s = arriving_at(job_events(shape, [](std::int64_t r, std::vector<Event>& events) {
            if (r != 9) return;
            std::erase_if(events, [](const Event& e) {
                return (e.phase == Phase::communicator && e.status == Status::done) || e.phase == Phase::ready;
            });
        }));
        s.ticks = {30};
        return s;
    }
    if (name == "straggler held back") {
        // Rank 9's communicator done waits in its reporter: a relay refused it under load and names the rank
        // "held". How long it seems to run on the collector's clock says nothing: not a straggler.
        Scenario s = build("straggler still running");
        s.held = {{9, 20}};
        return s;
    }
    if (name == "straggler held, then reports") {
        // The same, but a lifecycle event of rank 9 (its communicator started, sent again) arrives after the
        // relay named it: its held-back events are arriving, and it is judged again.
        Scenario s = build("straggler still running");
        s.held = {{9, 20}};
        for (const auto& [e, at] : std::vector(s.events))
            if (e.rank == 9 && e.phase == Phase::communicator && e.status == Status::started)
                s.events.emplace_back(e, 25);
        std::stable_sort(s.events.begin(), s.events.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
        return s;
    }
    if (name == "straggler catches up") {
        // Rank 9's communicator done was held up (a frozen collector, a relay's retries): it arrives after the tick
        // that found it still running, with a duration like its peers'. The finding ends at that event, not a tick
        // later.
        Scenario s = arriving_at(job_events(shape));
        for (auto& [e, at] : s.events)
            if (e.rank == 9 &&
                ((e.phase == Phase::communicator && e.status == Status::done) || e.phase == Phase::ready))
                at = 31;
        s.ticks = {30};
        return s;
    }
    if (name == "straggler ends slow") {
        // The same, but the late done says the phase took 11 s longer than its peers': still a straggler, now with its
        // duration (the threshold of the last tick's judgment, 2.0 s, decides).
        Scenario s = build("straggler catches up");
        for (auto& [e, at] : s.events)
            if (e.rank == 9 && at == 31) *e.ts += 11;
        return s;
    }
    if (name == "stale rank") {
        Scenario s = arriving_at(job_events(shape, [](std::int64_t r, std::vector<Event>& events) {
            if (r == 4) std::erase_if(events, [](const Event& e) { return e.phase > Phase::parallel_state; });
        }));
        for (std::int64_t r = 0; r < 16; ++r) {
            if (r == 4) continue;
            Event beat = rank_events(shape, r).back();
            beat.phase = Phase::heartbeat;
            beat.ts = 90;
            s.events.emplace_back(beat, 90);
        }
        s.ticks = {100};
        return s;
    }
    if (name == "exited ranks are not stale") {
        auto events = job_events(shape);
        for (std::int64_t r = 0; r < 16; ++r) {
            Event exit = rank_events(shape, r).back();
            exit.phase = Phase::exit;
            exit.status = Status::done;
            exit.ts = 20;
            events.push_back(exit);
        }
        Scenario s = arriving_at(events);
        s.ticks = {1000};
        return s;
    }
    if (name == "rank error") {
        Scenario s = arriving_at(job_events(shape));
        s.events.emplace_back(failure(shape, 7, Phase::communicator, "NCCLError", "unhandled system error\nmore"), 1);
        return s;
    }
    if (name == "error phase") {
        Scenario s = arriving_at(job_events(shape));
        Event e = failure(shape, 7, Phase::error, "", "");
        e.status = Status::started;
        e.error.reset();
        s.events.emplace_back(e, 1);
        return s;
    }
    if (name == "reinit mismatch") {
        Scenario s = arriving_at(job_events(shape));
        s.events.emplace_back(failure(shape, 2, Phase::parallel_state, "RuntimeError", reinit_text), 1);
        return s;
    }
    if (name == "reinit mismatch before its exit") {
        // The exit (ts later) arrives before the failure: still a reinit_mismatch, not a rank_error.
        Scenario s = arriving_at(job_events(shape));
        Event exit = failure(shape, 2, Phase::exit, "RuntimeError", reinit_text);
        exit.ts = 6;
        s.events.emplace_back(exit, 1);
        s.events.emplace_back(failure(shape, 2, Phase::parallel_state, "RuntimeError", reinit_text), 2);
        return s;
    }
    qFatal("unknown scenario");
}

Monitor run(const Scenario& s) {
    Monitor monitor(s.options);
    // "arrives" scenarios: events received after the first tick are applied after it. A relay's "held" comes in
    // time order with the events before the first tick (after an event of the same time).
    std::size_t next_held = 0;
    for (const auto& [event, at] : s.events) {
        if (!s.ticks.empty() && at > s.ticks.front()) continue;
        for (; next_held < s.held.size() && s.held[next_held].second < at; ++next_held)
            monitor.seen("job", s.held[next_held].first, s.held[next_held].second, true);
        monitor.ingest(event, at);
    }
    for (; next_held < s.held.size(); ++next_held)
        monitor.seen("job", s.held[next_held].first, s.held[next_held].second, true);
    for (const double t : s.ticks) monitor.tick(t);
    for (const auto& [event, at] : s.events)
        if (!s.ticks.empty() && at > s.ticks.front()) monitor.ingest(event, at);
    return monitor;
}

}  // namespace

class TestMonitorFindings : public QObject {
    Q_OBJECT
private slots:
    void findings_data();
    void findings();
    void messages_data();
    void messages();
    void missingRankComesAndGoes();
    void planDeclaredAgainstEveryRank();
    void largeGroupJudgedByPeers();
};

void TestMonitorFindings::findings_data() {
    QTest::addColumn<QString>("scenario");
    QTest::addColumn<QString>("expected");
    QTest::addRow("healthy job") << "healthy"
                                 << "";
    QTest::addRow("healthy ep 8") << "healthy ep8"
                                  << "";
    QTest::addRow("healthy job, events reversed") << "healthy out of order"
                                                  << "";
    QTest::addRow("topology_mismatch: one rank's ep") << "topology ep differs"
                                                      << "topology_mismatch:[3] topology_mismatch:[3]";
    QTest::addRow("topology_mismatch: tie, lowest rank wins") << "topology tie"
                                                              << "topology_mismatch:[1]";
    QTest::addRow("topology_mismatch: tie, declared plan wins") << "topology tie, plan decides"
                                                                << "topology_mismatch:[0]";
    QTest::addRow("topology_mismatch: world size") << "world size differs"
                                                   << "topology_mismatch:[5]";
    QTest::addRow("topology_mismatch: mesh shape") << "mesh shape differs"
                                                   << "topology_mismatch:[2]";
    QTest::addRow("topology_mismatch: late older report ignored") << "late wrong topology"
                                                                  << "";
    QTest::addRow("group_disagreement: wrong ep group") << "group wrong along ep"
                                                        << "group_disagreement:[5]";
    QTest::addRow("group_disagreement: group without its rank") << "group without its rank"
                                                                << "group_disagreement:[6]";
    QTest::addRow("group_disagreement: judged by peers") << "group judged by peers"
                                                         << "group_disagreement:[0,1] group_disagreement:[1,3]";
    QTest::addRow("model mesh: healthy (2, 8)") << "healthy model mesh"
                                                << "";
    QTest::addRow("topology_mismatch: model mesh") << "model mesh differs"
                                                   << "topology_mismatch:[2]";
    QTest::addRow("group_disagreement: wrong mp_shard group") << "model group wrong"
                                                              << "group_disagreement:[5]";
    QTest::addRow("topology_mismatch: model mesh from topology") << "model mesh in topology"
                                                                 << "topology_mismatch:[3]";
    QTest::addRow("topology_mismatch: model mesh against the plan")
        << "model mesh against the plan"
        << "topology_mismatch:[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]";
    QTest::addRow("group_disagreement: corrected by a newer report") << "group corrected later"
                                                                     << "";
    QTest::addRow("missing_rank") << "missing rank"
                                  << "missing_rank:[2]";
    QTest::addRow("missing_rank: not yet due") << "missing rank not yet due"
                                               << "";
    QTest::addRow("missing_rank: cleared when it arrives") << "missing rank arrives"
                                                           << "";
    QTest::addRow("duplicate_rank") << "duplicate rank"
                                    << "duplicate_rank:[1]";
    QTest::addRow("duplicate_rank: relaunch after exit is none") << "relaunch after exit"
                                                                 << "";
    QTest::addRow("straggler") << "straggler"
                               << "straggler:[13]";
    QTest::addRow("straggler: too few peers") << "straggler with few peers"
                                              << "";
    QTest::addRow("straggler: still running") << "straggler still running"
                                              << "straggler:[9]";
    QTest::addRow("straggler: not while a relay holds its events") << "straggler held back"
                                                                   << "";
    QTest::addRow("straggler: again once its events arrive") << "straggler held, then reports"
                                                             << "straggler:[9]";
    QTest::addRow("straggler: ends when the late done arrives") << "straggler catches up"
                                                                << "";
    QTest::addRow("straggler: the late done is slow") << "straggler ends slow"
                                                      << "straggler:[9]";
    QTest::addRow("stale_rank") << "stale rank"
                                << "stale_rank:[4]";
    QTest::addRow("stale_rank: not after exit") << "exited ranks are not stale"
                                                << "";
    QTest::addRow("rank_error: failed status") << "rank error"
                                               << "rank_error:[7]";
    QTest::addRow("rank_error: error phase") << "error phase"
                                             << "rank_error:[7]";
    QTest::addRow("reinit_mismatch") << "reinit mismatch"
                                     << "reinit_mismatch:[2]";
    QTest::addRow("reinit_mismatch: out of order") << "reinit mismatch before its exit"
                                                   << "reinit_mismatch:[2]";
}

void TestMonitorFindings::findings() {
    QFETCH(QString, scenario);
    QFETCH(QString, expected);
    const Monitor monitor = run(build(scenario));
    QCOMPARE(summary(monitor.findings("job")), expected);
}

void TestMonitorFindings::messages_data() {
    QTest::addColumn<QString>("scenario");
    QTest::addColumn<QString>("id");
    QTest::addColumn<QString>("message");
    QTest::addColumn<QString>("fix");
    QTest::addRow("topology_mismatch")
        << "topology ep differs"
        << "topology_mismatch/topology/(8, 2, 4)"
        << "rank 3 reports (dp, cp, ep) = (8, 2, 4), but most ranks report (8, 2, 2)"
        << "Relaunch these ranks with the same dp, cp and ep as the rest of the job (the "
           "same dist_config ep_size and cp_size everywhere); ranks that build different "
           "meshes hang in NCCL.";
    QTest::addRow("topology_mismatch mesh")
        << "topology ep differs"
        << "topology_mismatch/mesh/expert/(edp, efsdp, ep, expert_cp) = (1, 2, 4, 2)"
        << "rank 3 reports mesh \"expert\" as (edp, efsdp, ep, expert_cp) = (1, 2, 4, "
           "2), but most ranks report (edp, efsdp, ep, expert_cp) = (1, 4, 2, 2)"
        << "Build this mesh with the same dim names and shape as the rest of the job "
           "on every rank and relaunch; ranks that build different meshes hang in NCCL.";
    QTest::addRow("topology_mismatch tie")
        << "topology tie"
        << "topology_mismatch/topology/(2, 1, 2)"
        << "rank 1 reports (dp, cp, ep) = (2, 1, 2), but the ranks are split evenly and "
           "rank 0's (2, 1, 1) is taken as the reference"
        << "";
    QTest::addRow("topology_mismatch plan")
        << "topology tie, plan decides"
        << "topology_mismatch/topology/(2, 1, 1)"
        << "rank 0 reports (dp, cp, ep) = (2, 1, 1), but the declared plan has (2, 1, 2)"
        << "Relaunch these ranks with the same dp, cp and ep as the declared plan (the "
           "same dist_config ep_size and cp_size everywhere); ranks that build different "
           "meshes hang in NCCL.";
    QTest::addRow("topology_mismatch world") << "world size differs"
                                             << "topology_mismatch/world_size/32"
                                             << "rank 5 reports world_size 32, but most ranks report 16"
                                             << "Give every rank the same world size as the rest of the job (torchrun "
                                                "--nnodes and --nproc-per-node, Slurm --ntasks) and relaunch.";
    QTest::addRow("group_disagreement")
        << "group wrong along ep"
        << "group_disagreement/ep/5"
        << "rank 5 reports its ep group as [4, 5], but (dp, cp, ep) = (8, 2, 2) puts it in "
           "[5, 7], and rank 4 reports [4, 6]; NCCL would hang creating this group"
        << "Build rank 5's meshes with the same layout code and topology as its peers (the "
           "same dist_config and cp_size on every rank) and relaunch.";
    QTest::addRow("group_disagreement self")
        << "group without its rank"
        << "group_disagreement/ep/6"
        << "rank 6 reports its ep group as [0, 2], which does not contain rank 6; NCCL "
           "would hang creating this group"
        << "";
    QTest::addRow("group_disagreement peers") << "group judged by peers"
                                              << "group_disagreement/tp/1"
                                              << "rank 1 reports its tp group as [1, 3], but rank 0 reports [0, 1]; "
                                                 "NCCL would hang creating this group"
                                              << "";
    QTest::addRow("topology_mismatch model mesh")
        << "model mesh differs"
        << "topology_mismatch/mesh/model/(mp_replicate, mp_shard) = (4, 4)"
        << "rank 2 reports mesh \"model\" as (mp_replicate, mp_shard) = (4, 4), but most "
           "ranks report (mp_replicate, mp_shard) = (2, 8)"
        << "Build this mesh with the same dim names and shape as the rest of the job "
           "on every rank and relaunch; ranks that build different meshes hang in NCCL.";
    QTest::addRow("topology_mismatch model mesh from topology")
        << "model mesh in topology"
        << "topology_mismatch/mesh/model/(mp_replicate, mp_shard) = (3, 5)"
        << "rank 3 reports mesh \"model\" as (mp_replicate, mp_shard) = (3, 5), but most "
           "ranks report (mp_replicate, mp_shard) = (2, 8)"
        << "";
    QTest::addRow("topology_mismatch model mesh plan")
        << "model mesh against the plan"
        << "topology_mismatch/mesh/model/(mp_replicate, mp_shard) = (2, 8)"
        << "ranks 0-15 report mesh \"model\" as (mp_replicate, mp_shard) = (2, 8), but the "
           "declared plan has (mp_replicate, mp_shard) = (4, 4)"
        << "";
    QTest::addRow("group_disagreement model mesh")
        << "model group wrong"
        << "group_disagreement/mp_shard/5"
        << "rank 5 reports its mp_shard group as [4, 5], but the model mesh (mp_replicate, "
           "mp_shard) = (2, 8) puts it in [0, 1, 2, 3, 4, 5, 6, 7], and rank 4 reports "
           "[0, 1, 2, 3, 4, 5, 6, 7]; NCCL would hang creating this group"
        << "";
    QTest::addRow("missing_rank")
        << "missing rank"
        << "missing_rank"
        << "1 of 4 ranks never reported within 30.0 s of the job's first event: rank 2"
        << "Check that these ranks' processes were launched (launcher and scheduler logs on "
           "their hosts) and can reach the collector; the job's first collective waits for them.";
    QTest::addRow("duplicate_rank") << "duplicate rank"
                                    << "duplicate_rank/1"
                                    << "rank 1 is reported by 2 processes: node-0 pid 1001 and node-0 pid 9999"
                                    << "Give every process its own RANK (torchrun --node-rank, SLURM_PROCID) and stop "
                                       "leftover processes of earlier runs; two processes with one rank break every "
                                       "collective.";
    QTest::addRow("straggler")
        << "straggler"
        << "straggler/communicator"
        << "slow communicator: rank 13 12.0 s; the median of 16 ranks is 1.0 s"
        << "Check these ranks' hosts (NCCL_DEBUG=INFO output, NIC and NVLink errors, GPU clocks, "
           "CPU contention); a slow rank holds back every group it belongs to.";
    QTest::addRow("straggler running, then slow") << "straggler ends slow"
                                                  << "straggler/communicator"
                                                  << "slow communicator: rank 9 12.0 s; the median of 15 ranks is 1.0 s"
                                                  << "";
    QTest::addRow("straggler running") << "straggler still running"
                                       << "straggler/communicator"
                                       << "slow communicator: rank 9 still running after 2.0 s; the median of 15 ranks "
                                          "is 1.0 s"
                                       << "";
    QTest::addRow("stale_rank") << "stale rank"
                                << "stale_rank"
                                << "rank 4 has sent no event for 60.0 s or more without exiting"
                                << "Look at these ranks' processes and hosts: a hang (py-spy dump --pid), a dead node, "
                                   "or a network cut to the collector; a hung rank stalls every group it belongs to.";
    QTest::addRow("rank_error") << "rank error"
                                << "rank_error/7"
                                << "rank 7 failed in communicator on node-0: NCCLError: unhandled system error"
                                << "Read rank 7's log with NCCL_DEBUG=INFO for the failing communicator (network, GPU, "
                                   "NCCL version), fix it and relaunch.";
    QTest::addRow("rank_error phase")
        << "error phase"
        << "rank_error/7"
        << "rank 7 failed in error on node-0"
        << "Read rank 7's log for the full traceback, fix the cause and relaunch the job.";
    QTest::addRow("reinit_mismatch")
        << "reinit mismatch"
        << "reinit_mismatch/2"
        << "rank 2 initialized the FSDPTurbo parallel state twice in one process, first with "
           "(dp, cp, ep) = (8, 2, 2), then (8, 2, 4) (ep 2 -> 4); FSDPTurbo never changes its "
           "topology in place, so it raised RuntimeError"
        << "Restart the process (torchrun relaunch) with the corrected topology instead of "
           "re-initializing in place, or reset the parallel state before initializing again; "
           "use the same dist_config everywhere initialize can run.";
}

void TestMonitorFindings::messages() {
    QFETCH(QString, scenario);
    QFETCH(QString, id);
    QFETCH(QString, message);
    QFETCH(QString, fix);
    const Monitor monitor = run(build(scenario));
    const auto findings = monitor.findings("job");
    const auto it = std::find_if(findings.begin(), findings.end(), [&](const Finding& f) { return q(f.id) == id; });
    QVERIFY2(it != findings.end(), qPrintable("no finding " + id + " in " + summary(findings)));
    QCOMPARE(q(it->message), message);
    if (!fix.isEmpty()) QCOMPARE(q(it->fix), fix);
}

void TestMonitorFindings::missingRankComesAndGoes() {
    MonitorOptions options;
    options.record_changes = true;
    Monitor monitor(options);
    const JobShape shape{"job", 4, 1, 1};
    for (std::int64_t r : {0, 1, 3})
        for (const auto& e : rank_events(shape, r)) monitor.ingest(e, 0);
    monitor.tick(30);
    QCOMPARE(summary(monitor.findings("job")), QString("missing_rank:[2]"));
    (void)monitor.take_changes();
    monitor.ingest(rank_events(shape, 2).front(), 31);  // no tick needed: the finding goes at once
    QCOMPARE(summary(monitor.findings("job")), QString(""));
    const auto changes = monitor.take_changes();
    QVERIFY(std::any_of(changes.begin(), changes.end(), [](const Change& c) {
        return c.kind == ChangeKind::finding_removed && c.finding && c.finding->id == "missing_rank";
    }));
}

void TestMonitorFindings::planDeclaredAgainstEveryRank() {
    // The job declares (16, 1, 2) but every rank runs (8, 2, 2): every rank is flagged, for the topology and both
    // meshes; no group_disagreement on top (the topology explains it).
    Monitor monitor;
    const JobShape shape;
    auto events = job_events(shape);
    events.front().plan =
        nlohmann::json{{"schema", "meshscope.plan/1"}, {"topology", {{"dp", 16}, {"cp", 1}, {"ep", 2}}}};
    monitor.ingest(events, 0);
    const auto findings = monitor.findings("job");
    QCOMPARE(findings.size(), std::size_t{3});
    for (const auto& f : findings) {
        QCOMPARE(f.kind, FindingKind::topology_mismatch);
        QCOMPARE(f.ranks.size(), std::size_t{16});
    }
    QCOMPARE(q(findings.back().message),
             QString("ranks 0-15 report (dp, cp, ep) = (8, 2, 2), but the declared plan has (16, 1, 2)"));
}

void TestMonitorFindings::largeGroupJudgedByPeers() {
    // "half" is no dim of the job's meshes, so only its members' reports judge it, and its groups have more than
    // 1,024 members (the monitor tallies those instead of walking them): ranks 0-2047 and 2048-4095 report their
    // half, but rank 1 reports 1-2048. Worked by the rule in docs/findings.md: rank 1 is flagged (its member 2
    // reports another group), so is every other rank of 0-2047 (their member 1 reports another group); no rank of
    // 2048-4095 is (their members all report their group; a group this large keeps no list of who names whom).
    const JobShape wide{"job", 4096, 1, 1};
    const Group first_half = Group::progression(0, 1, 2048);
    auto events = job_events(wide, [&](std::int64_t r, std::vector<Event>& events) {
        find_event(events, Phase::parallel_state, Status::done)->groups["half"] =
            r == 1 ? Group::progression(1, 1, 2048) : Group::progression(r < 2048 ? 0 : 2048, 1, 2048);
    });
    Monitor monitor;
    monitor.ingest(events, 0);
    auto flagged = [&] {
        std::vector<std::int64_t> ranks;
        for (const auto& f : monitor.findings("job")) {
            if (f.kind != FindingKind::group_disagreement) continue;
            const std::string prefix = "group_disagreement/half/";
            ranks.push_back(f.id.starts_with(prefix) ? std::stoll(f.id.substr(prefix.size())) : -1);
        }
        std::sort(ranks.begin(), ranks.end());
        return ranks;
    };
    std::vector<std::int64_t> expected(2048);
    std::iota(expected.begin(), expected.end(), 0);
    QCOMPARE(flagged(), expected);
    const auto findings = monitor.findings("job");
    const auto one = std::find_if(findings.begin(), findings.end(),
                                  [](const Finding& f) { return f.id == "group_disagreement/half/1"; });
    QVERIFY(one != findings.end());
    QCOMPARE(q(one->message), QString("rank 1 reports its half group as [1, 2, 3, 4, ..., 2048] (2048 ranks), but rank "
                                      "2 reports [0, 1, 2, 3, ..., 2047] (2048 ranks); NCCL would hang creating this "
                                      "group"));
    // Rank 1's ready names its right group: every finding goes.
    auto own = rank_events(wide, 1);
    Event ready = *find_event(own, Phase::ready, Status::done);
    ready.ts = 100;
    ready.groups = {{"half", first_half}};
    monitor.ingest(ready, 1);
    QCOMPARE(flagged(), std::vector<std::int64_t>{});
}

QTEST_APPLESS_MAIN(TestMonitorFindings)
#include "tst_monitor_findings.moc"
