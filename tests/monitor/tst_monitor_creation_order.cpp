// creation_order_mismatch through the real Monitor: ranks of (dp, cp, ep) = (8, 2, 2) report their groups' creation
// indices in PyTorch 2.9's or 2.8's order (written out by hand below, from the rule in docs/protocol.md), and the
// monitor names exactly the ranks whose group another index's voters outvote, with the exact message.
#include <QtTest>

#include <set>

#include "monitor_test_support.h"

using namespace meshscope;
using namespace monitor_test;

namespace {
using Groups = std::vector<std::vector<std::int64_t>>;

// The groups of one mesh dim in the order a PyTorch version creates them; a rank's creation index along the dim is
// the place of its group. An empty torch28 list: the same order as 2.9.
struct DimOrder {
    std::string dim;
    Groups torch29;
    Groups torch28;
};

// Data mesh (dp, cp) = (8, 2): a 2-dim mesh has one order.
// Expert mesh (edp, efsdp, ep, expert_cp) = (1, 4, 2, 2), rank r at (0, r / 4, r / 2 % 2, r % 2):
//   edp: one-rank groups; 2.9 in rank order, 2.8 by rows of swapdims(-1, 0), i.e. over (expert_cp, efsdp, ep):
//     the even ranks, then the odd ones.
//   efsdp: 2.9 over (ep, expert_cp) = (0,0), (0,1), (1,0), (1,1); 2.8 over (expert_cp, ep) = (0,0), (0,1), (1,0),
//     (1,1): the 2nd and 3rd groups swap.
//   ep and expert_cp: d >= ndim - 2, the same order in both.
const std::vector<DimOrder>& orders() {
    static const std::vector<DimOrder> all = {
        {"dp", {{0, 2, 4, 6, 8, 10, 12, 14}, {1, 3, 5, 7, 9, 11, 13, 15}}, {}},
        {"cp", {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}}, {}},
        {"edp",
         {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10}, {11}, {12}, {13}, {14}, {15}},
         {{0}, {2}, {4}, {6}, {8}, {10}, {12}, {14}, {1}, {3}, {5}, {7}, {9}, {11}, {13}, {15}}},
        {"efsdp",
         {{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}},
         {{0, 4, 8, 12}, {2, 6, 10, 14}, {1, 5, 9, 13}, {3, 7, 11, 15}}},
        {"ep", {{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}}, {}},
        {"expert_cp", {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}}, {}},
    };
    return all;
}

enum class Torch { v29, v28 };

// The creation index of rank's group along every dim, in that PyTorch's order.
std::map<std::string, std::int64_t> creation_index(std::int64_t rank, Torch torch) {
    std::map<std::string, std::int64_t> out;
    for (const DimOrder& order : orders()) {
        const Groups& groups = torch == Torch::v28 && !order.torch28.empty() ? order.torch28 : order.torch29;
        for (std::size_t k = 0; k < groups.size(); ++k)
            if (std::find(groups[k].begin(), groups[k].end(), rank) != groups[k].end())
                out[order.dim] = static_cast<std::int64_t>(k);
    }
    return out;
}

const JobShape shape;  // dp 8, cp 2, ep 2: 16 ranks

// Every rank's events with its creation indices on its parallel_state report (where its groups are); the ranks in
// `on28` run PyTorch 2.8.
std::vector<Event> job(const std::set<std::int64_t>& on28,
                       const std::function<void(std::int64_t, std::vector<Event>&)>& edit = {}) {
    return job_events(shape, [&](std::int64_t r, std::vector<Event>& events) {
        find_event(events, Phase::parallel_state, Status::done)->creation_index =
            creation_index(r, on28.count(r) ? Torch::v28 : Torch::v29);
        if (edit) edit(r, events);
    });
}

std::set<std::int64_t> all_ranks() {
    std::set<std::int64_t> out;
    for (std::int64_t r = 0; r < 16; ++r) out.insert(r);
    return out;
}

// Rank 1's parallel_state report sent again later (a newer ts) with 2.9's indices.
Event rank1_again_on29() {
    auto events = rank_events(shape, 1);
    Event again = *find_event(events, Phase::parallel_state, Status::done);
    again.ts = 100;
    again.creation_index = creation_index(1, Torch::v29);
    return again;
}

std::vector<Event> build(const QString& name) {
    if (name == "all 2.9") return job({});
    if (name == "all 2.8") return job(all_ranks());
    if (name == "rank 1 on 2.8") return job({1});
    if (name == "rank 1 on 2.8, reversed") {
        auto events = job({1});
        std::reverse(events.begin(), events.end());
        return events;
    }
    // Rank 0's groups come at the same index in both orders (efsdp [0, 4, 8, 12] first, edp [0] first): nothing to
    // see, and nothing hangs, since every group it joins has the same name on every member.
    if (name == "rank 0 on 2.8") return job({0});
    if (name == "ranks 1, 5 on 2.8") return job({1, 5});
    // A tie: at 2, ranks 2, 6 vote [2, 6, 10, 14] and ranks 9, 13 vote [1, 5, 9, 13]; the lowest rank's wins.
    if (name == "half on 2.8") return job({8, 9, 10, 11, 12, 13, 14, 15});
    if (name == "rank 1 on 2.8, then again on 2.9") {
        auto events = job({1});
        events.push_back(rank1_again_on29());
        return events;
    }
    // A rank whose efsdp group is wrong is a group_disagreement; its index is not judged as well.
    if (name == "rank 1 on 2.8 with a wrong efsdp group") {
        return job({1}, [](std::int64_t r, std::vector<Event>& events) {
            if (r == 1) find_event(events, Phase::parallel_state, Status::done)->groups["efsdp"] = {1, 5, 9, 12};
        });
    }
    // Without groups of 2+ ranks nothing can hang: the one-rank edp groups are never judged.
    if (name == "only edp reported, rank 1 on 2.8") {
        return job({1}, [](std::int64_t, std::vector<Event>& events) {
            Event* e = find_event(events, Phase::parallel_state, Status::done);
            e->creation_index = {{"edp", e->creation_index.at("edp")}};
        });
    }
    return {};
}

std::vector<Finding> findings_of(const std::vector<Event>& events) {
    Monitor monitor;
    monitor.ingest(events, 1.0);
    return monitor.findings("job");
}
}  // namespace

class TestMonitorCreationOrder : public QObject {
    Q_OBJECT
private slots:
    void handWorkedIndices();
    void findings_data();
    void findings();
    void messages_data();
    void messages();
    void newerReportRemovesTheFinding();
};

// The tables above against the two examples docs/protocol.md gives for rank 5.
void TestMonitorCreationOrder::handWorkedIndices() {
    const std::map<std::string, std::int64_t> on29 = {{"dp", 1},    {"cp", 2}, {"edp", 5},
                                                      {"efsdp", 1}, {"ep", 3}, {"expert_cp", 2}};
    QCOMPARE(creation_index(5, Torch::v29), on29);
    auto on28 = on29;
    on28["edp"] = 10;
    on28["efsdp"] = 2;
    QCOMPARE(creation_index(5, Torch::v28), on28);
}

void TestMonitorCreationOrder::findings_data() {
    QTest::addColumn<QString>("scenario");
    QTest::addColumn<QString>("expected");
    QTest::addRow("every rank on 2.9") << "all 2.9"
                                       << "";
    QTest::addRow("every rank on 2.8") << "all 2.8"
                                       << "";
    QTest::addRow("one rank on 2.8") << "rank 1 on 2.8"
                                     << "creation_order_mismatch:[1]";
    QTest::addRow("one rank on 2.8, events reversed") << "rank 1 on 2.8, reversed"
                                                      << "creation_order_mismatch:[1]";
    QTest::addRow("rank 0 on 2.8: same indices") << "rank 0 on 2.8"
                                                 << "";
    QTest::addRow("two ranks of one group on 2.8") << "ranks 1, 5 on 2.8"
                                                   << "creation_order_mismatch:[1,5]";
    QTest::addRow("half the job on 2.8: a tie per index") << "half on 2.8"
                                                          << "creation_order_mismatch:[9,10,13,14]";
    QTest::addRow("a newer report on 2.9") << "rank 1 on 2.8, then again on 2.9"
                                           << "";
    QTest::addRow("wrong group: group_disagreement only") << "rank 1 on 2.8 with a wrong efsdp group"
                                                          << "group_disagreement:[1]";
    QTest::addRow("one-rank groups only") << "only edp reported, rank 1 on 2.8"
                                          << "";
}

void TestMonitorCreationOrder::findings() {
    QFETCH(QString, scenario);
    QFETCH(QString, expected);
    const auto events = build(scenario);
    QVERIFY(!events.empty());
    QCOMPARE(summary(findings_of(events)), expected);
    // One request or one event at a time: the same findings.
    Monitor monitor;
    for (const auto& e : events) monitor.ingest(e, 1.0);
    QCOMPARE(summary(monitor.findings("job")), expected);
}

void TestMonitorCreationOrder::messages_data() {
    QTest::addColumn<QString>("scenario");
    QTest::addColumn<QString>("id");
    QTest::addColumn<QString>("message");
    const QString hang = "; NCCL would hang at the first collective on these groups";
    QTest::addRow("one rank")
        << "rank 1 on 2.8"
        << "creation_order_mismatch/efsdp"
        << "rank 1 created the efsdp groups in a different order from the rest of the job: it created [1, 5, 9, 13] "
           "at creation index 2, where ranks 2, 6, 10, 14 created [2, 6, 10, 14], and ranks 5, 9, 13 created it at "
           "1" +
               hang;
    QTest::addRow("two ranks")
        << "ranks 1, 5 on 2.8"
        << "creation_order_mismatch/efsdp"
        << "ranks 1, 5 created the efsdp groups in a different order from the rest of the job: rank 1 created [1, 5, "
           "9, 13] at creation index 2, where ranks 2, 6, 10, 14 created [2, 6, 10, 14], and ranks 9, 13 created it "
           "at 1" +
               hang;
    QTest::addRow("tie")
        << "half on 2.8"
        << "creation_order_mismatch/efsdp"
        << "ranks 9, 10, 13, 14 created the efsdp groups in a different order from the rest of the job: rank 9 "
           "created [1, 5, 9, 13] at creation index 2, where ranks 2, 6 created [2, 6, 10, 14], and ranks 1, 5 "
           "created it at 1" +
               hang;
}

void TestMonitorCreationOrder::messages() {
    QFETCH(QString, scenario);
    QFETCH(QString, id);
    QFETCH(QString, message);
    const auto findings = findings_of(build(scenario));
    QCOMPARE(findings.size(), std::size_t{1});
    QCOMPARE(q(findings[0].id), id);
    QCOMPARE(q(findings[0].message), message);
    // One event at a time, in either order (most ranks join an index whose claimers agree): the same message.
    for (const bool reversed : {false, true}) {
        auto events = build(scenario);
        if (reversed) std::reverse(events.begin(), events.end());
        Monitor monitor;
        for (const auto& e : events) monitor.ingest(e, 1.0);
        const auto one_by_one = monitor.findings("job");
        QCOMPARE(one_by_one.size(), std::size_t{1});
        QCOMPARE(q(one_by_one[0].message), message);
    }
    QCOMPARE(
        q(findings[0].fix),
        QString("Run the same PyTorch version on every rank (one container image or environment for the whole job) "
                "and relaunch: PyTorch 2.8 and 2.9 create a mesh's groups in different orders, and ranks that "
                "create them in different orders hang in NCCL."));
}

// The change feed: added when rank 1 reports 2.8's indices, removed when its newer report has 2.9's.
void TestMonitorCreationOrder::newerReportRemovesTheFinding() {
    MonitorOptions options;
    options.record_changes = true;
    Monitor monitor(options);
    monitor.ingest(build("rank 1 on 2.8"), 1.0);
    auto kinds = [&] {
        QStringList out;
        for (const auto& c : monitor.take_changes())
            if (c.finding && c.finding->kind == FindingKind::creation_order_mismatch)
                out << q(std::string(to_string(c.kind))) + " " + q(c.finding->id);
        return out;
    };
    QCOMPARE(kinds(), QStringList{"finding_added creation_order_mismatch/efsdp"});
    monitor.ingest(rank1_again_on29(), 2.0);
    QCOMPARE(kinds(), QStringList{"finding_removed creation_order_mismatch/efsdp"});
    QCOMPARE(summary(monitor.findings("job")), QString());
}

QTEST_APPLESS_MAIN(TestMonitorCreationOrder)
#include "tst_monitor_creation_order.moc"
