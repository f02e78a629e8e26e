// CommunicatorsModel (the Live page's bus bandwidth per dim and per group): the collector's JSON as rows, and
// the model against a real collector on loopback fed with meshscope-probe events, under
// QAbstractItemModelTester. Figures are worked by hand.
#include <QAbstractItemModelTester>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "communicators_model.h"
#include "live_test_collector.h"

using namespace meshscope::ui;
using nlohmann::json;

namespace {
// Every member of ep groups [2g, 2g+1] reports the group's busbw (GB/s) at 64 KiB.
QString probe_events(const std::vector<double>& busbw) {
    QString out;
    const auto world = static_cast<std::int64_t>(busbw.size() * 2);
    for (std::int64_t g = 0; g < static_cast<std::int64_t>(busbw.size()); ++g)
        for (std::int64_t r : {2 * g, 2 * g + 1}) {
            const double b = busbw[static_cast<std::size_t>(g)];
            json e = {{"job", "probe"},
                      {"rank", r},
                      {"world_size", world},
                      {"phase", "communicator"},
                      {"status", "started"},
                      {"communicators",
                       {{{"dim", "ep"},
                         {"index", g},
                         {"members", {2 * g, 2 * g + 1}},
                         {"state", "formed"},
                         {"results",
                          {{{"collective", "all_to_all"},
                            {"bytes", 65536},
                            {"seconds", 0.001},
                            {"algbw", 2 * b},
                            {"busbw", b}}}}}}}};
            out += QString::fromStdString(e.dump()) + "\n";
        }
    return out;
}
}  // namespace

class TestCommunicatorsModel : public QObject {
    Q_OBJECT
private slots:
    void parses_dims_then_groups() {
        const json body = json::parse(R"({"dims": [{"dim": "ep", "collective": "all_to_all", "groups": 2, "measured": 2,
            "bytes": 65536, "median_busbw": 2.0, "min_busbw": 1.0, "max_busbw": 4.0}],
          "groups": [{"dim": "ep", "index": 1, "members": [1, 3], "reported": 1, "state": "formed", "slow": true,
            "results": [{"collective": "all_to_all", "bytes": 1024, "seconds": 1, "algbw": 9, "busbw": 9},
                        {"collective": "all_to_all", "bytes": 65536, "seconds": 1, "algbw": 1, "busbw": 0.5}]},
            {"dim": "cp", "index": 0, "members": [0, 1], "reported": 1, "state": "not_formed", "slow": false,
             "results": []}]})");
        const auto rows = parse_communicator_rows(body);
        QCOMPARE(rows.size(), std::size_t{3});
        QVERIFY(rows[0].is_dim);
        QCOMPARE(rows[0].label, QString("ep · all_to_all"));
        QCOMPARE(rows[0].busbw, 2.0);
        QCOMPARE(rows[0].detail, QString("2 groups · 64 KiB"));
        // A group's figure is taken at its largest size: 0.5 GB/s at 64 KiB, not 9 at 1 KiB.
        QCOMPARE(rows[1].label, QString("ep group 1 [1, 3]"));
        QCOMPARE(rows[1].busbw, 0.5);
        QVERIFY(rows[1].slow);
        QCOMPARE(rows[1].detail, QString("1/2 members · 64 KiB"));
        QCOMPARE(rows[2].state, QString("not_formed"));
        QCOMPARE(rows[2].detail, QString("1/2 members"));
        QCOMPARE(bandwidth_text(12.345), QString("12.3 GB/s"));
        QCOMPARE(bandwidth_text(0.5), QString("0.50 GB/s"));
        QCOMPARE(bandwidth_text(0.0123), QString("0.012 GB/s"));
        QVERIFY(parse_communicator_rows(json::array()).empty());
    }

    void follows_a_real_collector() {
        meshscope::test::LiveTestCollector collector;
        QVERIFY(collector.start());
        // Four ep groups; group 3 is 32x below the others: log2 [2, 2, 2, -3], median 2, MAD 0 -> slow.
        QCOMPARE(collector.post(probe_events({4, 4, 4, 0.125})), 200);
        CommunicatorsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPollIntervalMs(50);
        model.setUrl(collector.url());
        model.setJob("probe");
        QTRY_COMPARE_WITH_TIMEOUT(model.count(), 5, 10000);  // one dim row, four group rows
        QCOMPARE(model.dimCount(), 1);
        const auto busbw = [&](int row) {
            return model.data(model.index(row), CommunicatorsModel::BusbwRole).toDouble();
        };
        QCOMPARE(busbw(0), 4.0);  // the median on the log scale of [0.125, 4, 4, 4]: 4
        QCOMPARE(model.data(model.index(4), CommunicatorsModel::LabelRole).toString(), QString("ep group 3 [6, 7]"));
        QCOMPARE(busbw(4), 0.125);
        QVERIFY(model.data(model.index(4), CommunicatorsModel::SlowRole).toBool());
        QVERIFY(!model.data(model.index(1), CommunicatorsModel::SlowRole).toBool());
        // Another job: the rows go, and come back for a job that has none only as none.
        model.setJob("nothing");
        QCOMPARE(model.count(), 0);
    }
};

QTEST_MAIN(TestCommunicatorsModel)
#include "tst_communicators_model.moc"
