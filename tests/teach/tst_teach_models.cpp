// The teaching mode's models under QAbstractItemModelTester (the tour list, the sandbox, the peers view and each
// framework's groups), from empty through every kind of change; the sandbox's rows for the design record's
// pitfall; the peers' ep groups for domain.md's worked example; progress remembered in settings, and not
// without them. Expected values are written out by hand from docs/tours.md and ../shared/docs/domain.md.
#include <QAbstractItemModelTester>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

#include "tour_controller.h"

using namespace meshscope::ui;

namespace {
std::unique_ptr<QAbstractItemModelTester> tester(QAbstractItemModel* model) {
    return std::make_unique<QAbstractItemModelTester>(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
}

QVariant role(const QAbstractItemModel& model, int row, int role) {
    return model.data(model.index(row, 0), role);
}

int row_of(const TourListModel& tours, const QString& name) {
    for (int row = 0; row < tours.rowCount(); ++row)
        if (role(tours, row, TourListModel::NameRole).toString() == name) return row;
    return -1;
}

QStringList groups_text(const PeerGroupsModel& groups) {
    QStringList texts;
    for (int row = 0; row < groups.rowCount(); ++row)
        texts << role(groups, row, PeerGroupsModel::RanksTextRole).toString();
    return texts;
}
}  // namespace

class TestTeachModels : public QObject {
    Q_OBJECT

private slots:
    // Every shipped tour parses (core's parse_tour) and is listed, in the order of docs/tours.md's table.
    void tour_list_lists_the_shipped_tours() {
        TourController tours;
        QVERIFY2(tours.catalog().errors.isEmpty(), qPrintable(tours.catalog().errors.join('\n')));
        auto t = tester(tours.tours());
        QStringList names;
        for (int row = 0; row < tours.tours()->rowCount(); ++row)
            names << role(*tours.tours(), row, TourListModel::NameRole).toString();
        QCOMPARE(names, (QStringList{"mesh-basics", "expert-mesh", "creation-order", "singleton-pitfall", "live-job",
                                     "read-a-hang", "peers"}));
        for (int row = 0; row < tours.tours()->rowCount(); ++row) {
            QVERIFY(role(*tours.tours(), row, TourListModel::StepsRole).toInt() > 0);
            QVERIFY(!role(*tours.tours(), row, TourListModel::TitleRole).toString().isEmpty());
            QCOMPARE(role(*tours.tours(), row, TourListModel::ProgressRole).toInt(), 0);
            QCOMPARE(role(*tours.tours(), row, TourListModel::FinishedRole).toBool(), false);
        }
        QCOMPARE(
            role(*tours.tours(), row_of(*tours.tours(), QStringLiteral("singleton-pitfall")), TourListModel::TitleRole)
                .toString(),
            QStringLiteral("The singleton pitfall: initialized with (16, 1, 2), got (16, 1, 4)"));
    }

    void start_refuses_what_does_not_exist_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("step");
        QTest::addColumn<bool>("opens");
        QTest::addRow("first step") << "peers" << 1 << true;
        QTest::addRow("unknown tour") << "peer" << 1 << false;
        QTest::addRow("step 0") << "peers" << 0 << false;
        QTest::addRow("past the last step") << "peers" << 99 << false;
    }
    void start_refuses_what_does_not_exist() {
        QFETCH(QString, name);
        QFETCH(int, step);
        QFETCH(bool, opens);
        TourController tours;
        QCOMPARE(tours.start(name, step), opens);
        QCOMPARE(tours.step()->active(), opens);
        QCOMPARE(tours.step()->index(), opens ? step : 0);
    }

    // The design record's sequence, each row as core's ParallelState answers it (domain.md section 1).
    void sandbox_rows_follow_the_design_record() {
        SandboxModel sandbox;
        auto t = tester(&sandbox);
        QCOMPARE(sandbox.stateText(), QStringLiteral("not initialized"));
        sandbox.initialize(16, 1, 2);
        sandbox.initialize(16, 1, 4);
        sandbox.reset();
        sandbox.initialize(16, 1, 3);
        sandbox.initialize(16, 1, 4);
        sandbox.initialize(16, 1, 4);
        sandbox.relaunch();
        QCOMPARE(sandbox.rowCount(), 7);
        const QStringList outcomes{"initialized", "error", "reset", "error", "initialized", "unchanged", "relaunched"};
        for (int row = 0; row < 7; ++row)
            QCOMPARE(role(sandbox, row, SandboxModel::OutcomeRole).toString(), outcomes[row]);
        QCOMPARE(role(sandbox, 1, SandboxModel::ErrorTypeRole).toString(), QStringLiteral("RuntimeError"));
        QCOMPARE(role(sandbox, 1, SandboxModel::ErrorTextRole).toString(),
                 QStringLiteral("FSDPTurbo parallel state is already initialized with (16, 1, 2), got (16, 1, 4)."));
        QCOMPARE(role(sandbox, 1, SandboxModel::StateTextRole).toString(),
                 QStringLiteral("dp 16 · cp 1 · ep 2 · efsdp 8 · edp 1"));  // the failed call changed nothing
        QCOMPARE(role(sandbox, 3, SandboxModel::ErrorTypeRole).toString(), QStringLiteral("ValueError"));
        QCOMPARE(role(sandbox, 3, SandboxModel::ErrorTextRole).toString(),
                 QStringLiteral("dp_size must be divisible by ep_size, got 16 % 3 != 0."));
        QCOMPARE(role(sandbox, 4, SandboxModel::StateTextRole).toString(),
                 QStringLiteral("dp 16 · cp 1 · ep 4 · efsdp 4 · edp 1"));
        QCOMPARE(role(sandbox, 0, SandboxModel::CallRole).toString(), QStringLiteral("initialize(16, 1, 2)"));
        QCOMPARE(role(sandbox, 2, SandboxModel::CallRole).toString(), QStringLiteral("reset()"));
        QVERIFY(!sandbox.initialized());  // a new process
        QCOMPARE(sandbox.lastResult(), QStringLiteral("relaunched"));
        QCOMPARE(
            sandbox.calls_json().dump(),
            std::string(
                R"({"calls":[{"cp":1,"dp":16,"ep":2,"op":"initialize"},{"cp":1,"dp":16,"ep":4,"op":"initialize"},)"
                R"({"op":"reset"},{"cp":1,"dp":16,"ep":3,"op":"initialize"},{"cp":1,"dp":16,"ep":4,"op":"initialize"},)"
                R"({"cp":1,"dp":16,"ep":4,"op":"initialize"},{"op":"relaunch"}]})"));
        sandbox.clear();
        QCOMPARE(sandbox.rowCount(), 0);
        QCOMPARE(sandbox.lastResult(), QString());
    }

    // W=16, dp=8, cp=2, ep=2 (domain.md section 3): FSDPTurbo's ep groups [0,2],[1,3],[4,6],...; TorchTitan's and
    // Megatron-Core's [0,1],[2,3],...; none leaves an 8-GPU node. Rank 5's group in each.
    void peers_side_by_side() {
        PeersModel peers;
        auto t = tester(&peers);
        std::vector<std::unique_ptr<QAbstractItemModelTester>> groups_testers;
        for (int row = 0; row < 3; ++row) groups_testers.push_back(tester(peers.layout(row)));
        peers.set_shape({16, 2, 2, 8});
        QCOMPARE(peers.rowCount(), 3);
        QCOMPARE(role(peers, 0, PeersModel::FrameworkRole).toString(), QStringLiteral("fsdpturbo"));
        QCOMPARE(role(peers, 1, PeersModel::TitleRole).toString(), QStringLiteral("TorchTitan"));
        QCOMPARE(role(peers, 2, PeersModel::TitleRole).toString(), QStringLiteral("Megatron-Core"));
        const QStringList fsdpturbo = groups_text(*peers.layout(0));
        QCOMPARE(fsdpturbo.size(), 8);
        QCOMPARE(fsdpturbo.mid(0, 3), (QStringList{"[0, 2]", "[1, 3]", "[4, 6]"}));
        for (int row : {1, 2}) {
            const QStringList groups = groups_text(*peers.layout(row));
            QCOMPARE(groups.size(), 8);
            QCOMPARE(groups.mid(0, 3), (QStringList{"[0, 1]", "[2, 3]", "[4, 5]"}));
            QCOMPARE(peers.layout(row)->crossNodeCount(), 0);
        }
        peers.setSelectedRank(5);
        QCOMPARE(peers.layout(0)->selectedGroupText(), QStringLiteral("[5, 7]"));
        QCOMPARE(peers.layout(1)->selectedGroupText(), QStringLiteral("[4, 5]"));
        const int row = peers.layout(0)->groupOf(5);
        QVERIFY(role(*peers.layout(0), row, PeerGroupsModel::SelectedRole).toBool());
        // ep 16 over two nodes: the one ep group leaves the node in every framework.
        peers.setCp(1);
        peers.setEp(16);
        for (int r = 0; r < 3; ++r) {
            QCOMPARE(peers.layout(r)->count(), 1);
            QCOMPARE(peers.layout(r)->crossNodeCount(), 1);
            QVERIFY(role(*peers.layout(r), 0, PeerGroupsModel::CrossNodeRole).toBool());
        }
        // A shape TorchTitan refuses: its own message, no rows.
        peers.setEp(3);
        QCOMPARE(peers.layout(1)->count(), 0);
        QCOMPARE(peers.layout(1)->error(),
                 QStringLiteral("expert_parallel_degree (3) must divide dp_shard * cp * tp (16)"));
        peers.setSelectedRank(99);
        QCOMPARE(peers.selectedRank(), -1);
    }

    // Progress in the app's settings: the last step reached and "finished" survive a new controller; without
    // settings (a screenshot) nothing is written.
    void progress_is_remembered_in_settings() {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("progress.ini")), QSettings::IniFormat);
        {
            TourController tours;
            tours.set_settings(&settings);
            QVERIFY(tours.start(QStringLiteral("peers"), 2));
            tours.leave();
        }
        TourController again;
        again.set_settings(&settings);
        auto t = tester(again.tours());
        const int row = row_of(*again.tours(), QStringLiteral("peers"));
        QVERIFY(row >= 0);
        QCOMPARE(role(*again.tours(), row, TourListModel::ProgressRole).toInt(), 2);
        QVERIFY(again.resume(QStringLiteral("peers")));
        QCOMPARE(again.step()->index(), 2);
        QCOMPARE(settings.value(QStringLiteral("tours/peers/step")).toInt(), 2);

        TourController screenshot;  // no settings
        QVERIFY(screenshot.start(QStringLiteral("mesh-basics"), 1));
        QVERIFY(!settings.contains(QStringLiteral("tours/mesh-basics/step")));
        QCOMPARE(role(*screenshot.tours(), row_of(*screenshot.tours(), QStringLiteral("mesh-basics")),
                      TourListModel::ProgressRole)
                     .toInt(),
                 1);
    }

    // ui/ runs no collector: a live step's job runs where the app's TourJobs runs it, and without one the step
    // says so instead of showing an empty Live page.
    void a_live_step_without_tour_jobs_says_so() {
        LiveSession live;
        TourController tours;
        tours.setLiveSession(&live);
        QVERIFY(tours.start(QStringLiteral("live-job"), 1));
        QCOMPARE(tours.current_job(), QStringLiteral("tour-live-job"));
        QCOMPARE(tours.jobError(), QStringLiteral("this dashboard runs no tour jobs"));
        QVERIFY(live.inputs()->url().isEmpty());
    }
};

QTEST_MAIN(TestTeachModels)
#include "tst_teach_models.moc"
