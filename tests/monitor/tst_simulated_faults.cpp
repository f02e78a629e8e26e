// The simulator's scripts judged by the real Monitor, without a network: for every fault kind the monitor decides
// without the clock, the findings are exactly what the simulator says it injected (kinds and ranks), over several
// seeds; and the faults a layout cannot hold are refused with their exact text. (tests/server/tst_end_to_end runs
// the same through `meshscope serve` and `meshscope simulate`, the clock's kinds included.)
#include <QtTest>

#include <map>
#include <set>

#include "meshscope/monitor/monitor.h"
#include "monitor_test_support.h"
#include "simulation.h"

using namespace meshscope;
using monitor_test::q;

namespace {
using ByKind = std::map<std::string, std::set<std::int64_t>>;

QString describe(const ByKind& kinds) {
    QStringList parts;
    for (const auto& [kind, ranks] : kinds) {
        QStringList r;
        for (const auto x : ranks) r << QString::number(x);
        parts << q(kind) + "=[" + r.join(',') + "]";
    }
    return parts.join(' ');
}

Expected<sim::Scenario> scenario_for(const QString& faults, std::int64_t dp, std::int64_t cp, std::int64_t ep,
                                     std::uint64_t seed) {
    auto counts = sim::parse_faults(faults.toStdString());
    if (!counts) return counts.error();
    sim::ScenarioOptions options;
    options.dp = dp;
    options.cp = cp;
    options.ep = ep;
    options.gpus_per_node = 4;
    options.job = "sim";
    options.faults = *counts;
    options.seed = seed;
    options.start_ts = 1000;
    return sim::make_scenario(options);
}
}  // namespace

class TestSimulatedFaults : public QObject {
    Q_OBJECT
private slots:
    void exactlyTheInjectedFaults_data();
    void exactlyTheInjectedFaults();
    void refusesFaultsTheLayoutCannotHold_data();
    void refusesFaultsTheLayoutCannotHold();
};

void TestSimulatedFaults::exactlyTheInjectedFaults_data() {
    QTest::addColumn<QString>("faults");
    QTest::addColumn<qint64>("dp");
    QTest::addColumn<qint64>("cp");
    QTest::addColumn<qint64>("ep");
    QTest::addColumn<int>("faulty");  // ranks the row injects, by hand
    QTest::addRow("no faults") << "" << qint64{8} << qint64{2} << qint64{4} << 0;
    for (const char* kind : {"topology_mismatch", "group_disagreement", "duplicate_rank", "rank_error",
                             "reinit_mismatch", "creation_order_mismatch"})
        QTest::addRow("%s", kind) << QString(kind) + "=1" << qint64{8} << qint64{2} << qint64{4} << 1;
    // The data mesh's dp group is the whole world here: the wrong group goes on the expert mesh's efsdp.
    QTest::addRow("group_disagreement, (8, 1, 2)")
        << "group_disagreement=1" << qint64{8} << qint64{1} << qint64{2} << 1;
    QTest::addRow("creation_order_mismatch, (8, 2, 2)")
        << "creation_order_mismatch=1" << qint64{8} << qint64{2} << qint64{2} << 1;
    QTest::addRow("three creation_order_mismatch")
        << "creation_order_mismatch=3" << qint64{16} << qint64{2} << qint64{8} << 3;
    QTest::addRow("every kind at once")
        << "topology_mismatch=1,group_disagreement=1,duplicate_rank=1,rank_error=1,reinit_mismatch=1,"
           "creation_order_mismatch=1"
        << qint64{16} << qint64{2} << qint64{8} << 6;
}

void TestSimulatedFaults::exactlyTheInjectedFaults() {
    QFETCH(QString, faults);
    QFETCH(qint64, dp);
    QFETCH(qint64, cp);
    QFETCH(qint64, ep);
    QFETCH(int, faulty);
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
        const auto scenario = scenario_for(faults, dp, cp, ep, seed);
        QVERIFY2(scenario.has_value(), scenario ? "" : scenario.error().what());
        ByKind injected;
        std::set<std::int64_t> ranks;
        for (const auto& [kind, list] : scenario->injected)
            for (const auto r : list) {
                injected[std::string(to_string(kind))].insert(r);
                ranks.insert(r);
            }
        QCOMPARE(static_cast<int>(ranks.size()), faulty);  // distinct ranks, one fault each

        Monitor monitor;
        for (const auto& e : scenario->events) monitor.ingest(e.event, e.at);
        ByKind found;
        for (const auto& f : monitor.findings("sim"))
            for (const auto r : f.ranks) found[std::string(to_string(f.kind))].insert(r);
        QVERIFY2(found == injected, qPrintable("seed " + QString::number(seed) + ": injected " + describe(injected) +
                                               " / found " + describe(found)));
    }
}

// (8, 2, 2): the expert mesh (1, 4, 2, 2) has efsdp groups A [0, 4, 8, 12], B [1, 5, 9, 13], C [2, 6, 10, 14],
// D [3, 7, 11, 15]; PyTorch 2.8 swaps B and C, so a faulty rank sits in B or C and its pick takes both: room for 1.
void TestSimulatedFaults::refusesFaultsTheLayoutCannotHold_data() {
    QTest::addColumn<QString>("faults");
    QTest::addColumn<qint64>("dp");
    QTest::addColumn<qint64>("cp");
    QTest::addColumn<qint64>("ep");
    QTest::addColumn<QString>("message");
    const QString needs =
        " needs ranks whose groups PyTorch 2.8 and 2.9 create in different orders (an expert mesh with cp > 1 and "
        "ep > 1), apart from the other faults; (dp, cp, ep) = ";
    QTest::addRow("cp = 1") << "creation_order_mismatch=1" << qint64{8} << qint64{1} << qint64{2}
                            << "--faults: creation_order_mismatch=1" + needs + "(8, 1, 2) has room for 0";
    QTest::addRow("ep = 1") << "creation_order_mismatch=1" << qint64{8} << qint64{2} << qint64{1}
                            << "--faults: creation_order_mismatch=1" + needs + "(8, 2, 1) has room for 0";
    QTest::addRow("two on (8, 2, 2)") << "creation_order_mismatch=2" << qint64{8} << qint64{2} << qint64{2}
                                      << "--faults: creation_order_mismatch=2" + needs + "(8, 2, 2) has room for 1";
    // Every group of (10, 1, 1) is one rank or all ten: no group can hold an outsider.
    QTest::addRow("no group to disagree with")
        << "group_disagreement=1" << qint64{10} << qint64{1} << qint64{1}
        << "--faults: group_disagreement needs a mesh dim whose groups hold from 2 ranks to fewer than the world, for "
           "a rank to report one with an outsider in it; (dp, cp, ep) = (10, 1, 1) has none";
}

void TestSimulatedFaults::refusesFaultsTheLayoutCannotHold() {
    QFETCH(QString, faults);
    QFETCH(qint64, dp);
    QFETCH(qint64, cp);
    QFETCH(qint64, ep);
    QFETCH(QString, message);
    const auto scenario = scenario_for(faults, dp, cp, ep, 1);
    QVERIFY(!scenario.has_value());
    QCOMPARE(q(scenario.error().message()), message);
}

QTEST_APPLESS_MAIN(TestSimulatedFaults)
#include "tst_simulated_faults.moc"
