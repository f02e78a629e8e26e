// The planner's list models: QAbstractItemModelTester on each (from before they hold data, through plan,
// view and selection changes), and the inspector's content for the domain's worked example.
#include <QAbstractItemModelTester>
#include <QtTest>

#include <memory>

#include "plan_controller.h"

using meshscope::ui::DimsModel;
using meshscope::ui::InspectorModel;
using meshscope::ui::PlanController;
namespace MeshViewQml = meshscope::ui::MeshViewQml;

namespace {
QString role_text(const QAbstractItemModel& model, int row, int role) {
    return model.data(model.index(row, 0), role).toString();
}

int row_of(const QAbstractItemModel& model, const QString& mesh, const QString& dim) {
    for (int row = 0; row < model.rowCount(); ++row)
        if (role_text(model, row, InspectorModel::MeshRole) == mesh &&
            role_text(model, row, InspectorModel::DimRole) == dim)
            return row;
    return -1;
}
}  // namespace

class TestPlannerModels : public QObject {
    Q_OBJECT

private slots:
    void models_hold_up_under_every_change() {
        PlanController c;
        std::vector<std::unique_ptr<QAbstractItemModelTester>> testers;
        for (QAbstractItemModel* model : std::initializer_list<QAbstractItemModel*>{
                 c.form()->suggestions(), c.form()->expertsSuggestions(), c.view()->legend(), c.view()->dims(),
                 c.selection()->inspector()})
            testers.push_back(std::make_unique<QAbstractItemModelTester>(
                model, QAbstractItemModelTester::FailureReportingMode::QtTest));
        // Models made empty, before a plan, are fine too.
        DimsModel empty_dims;
        InspectorModel empty_inspector;
        QAbstractItemModelTester t1(&empty_dims, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(&empty_inspector, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(empty_dims.rowCount(), 0);
        QCOMPARE(empty_inspector.rowCount(), 0);

        c.form()->setEp(3);
        c.form()->setEp(0);
        c.form()->setCp(5);
        c.form()->setCp(2);
        c.form()->setEp(4);
        c.selection()->setSelectedRank(5);
        c.view()->setShownDim(QStringLiteral("ep"));
        c.view()->setViewMesh(MeshViewQml::Data);
        c.view()->setShownDim(QStringLiteral("dp"));
        c.selection()->setSelectedRank(15);
        c.form()->setExperts(6);
        c.form()->setExperts(8);
        c.form()->setEp(1);
        c.form()->setNodes(64);
        c.selection()->setSelectedRank(-1);
        QVERIFY(c.form()->valid());
        QCOMPARE(c.view()->legend()->rowCount(), 2);  // ep = 1: the data mesh's dp and cp
    }

    void legend_follows_the_shown_mesh() {
        PlanController c;
        QCOMPARE(c.view()->legend()->rowCount(), 4);
        QCOMPARE(role_text(*c.view()->legend(), 2, DimsModel::DimRole), QStringLiteral("ep"));
        QCOMPARE(c.view()->dims()->rowCount(), 8);  // model 2, data 2, expert 4
        c.view()->setViewMesh(MeshViewQml::Data);
        QCOMPARE(c.view()->legend()->rowCount(), 2);
        QCOMPARE(role_text(*c.view()->legend(), 0, DimsModel::DimRole), QStringLiteral("dp"));
        c.view()->setShownDim(QStringLiteral("cp"));
        QCOMPARE(c.view()->legend()->data(c.view()->legend()->index(1), DimsModel::ShownRole).toBool(), true);
        QCOMPARE(c.view()->legend()->data(c.view()->legend()->index(0), DimsModel::ShownRole).toBool(), false);
        // Cross-node facts come from the core's DimSpan.
        c.view()->setViewMesh(MeshViewQml::Expert);
        c.form()->setNodes(4);
        c.form()->setGpusPerNode(4);
        c.form()->setEp(8);  // world 16 on nodes of 4: every ep group spans 2 nodes
        QCOMPARE(role_text(*c.view()->legend(), 2, DimsModel::SpanTextRole),
                 QStringLiteral("2 of 2 leave a node (up to 2 nodes)"));
        QCOMPARE(role_text(*c.view()->legend(), 3, DimsModel::SpanTextRole), QStringLiteral("each within one node"));
        c.view()->setViewMesh(MeshViewQml::Data);  // the one dp group of 16 ranks leaves its node
        QCOMPARE(role_text(*c.view()->legend(), 0, DimsModel::SpanTextRole),
                 QStringLiteral("1 of 1 leaves a node (up to 4 nodes)"));
    }

    void inspector_data() {
        QTest::addColumn<QString>("mesh");
        QTest::addColumn<QString>("dim");
        QTest::addColumn<int>("coordinate");
        QTest::addColumn<int>("groupIndex");
        QTest::addColumn<QString>("members");
        QTest::addColumn<bool>("leavesNode");
        // domain.md: dp=8, cp=2, ep=2 -> rank 5 at [0,1,0,1]; nodes of 8 GPUs. LlamaFactory's default model mesh
        // (1, 16): rank 5 at [0, 5], alone along mp_replicate (the 6th of 16 singleton groups), one mp_shard group.
        QTest::addRow("model mp_replicate") << "model"
                                            << "mp_replicate" << 0 << 5 << "5" << false;
        QTest::addRow("model mp_shard") << "model"
                                        << "mp_shard" << 5 << 0
                                        << "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15" << true;
        QTest::addRow("data dp") << "data"
                                 << "dp" << 2 << 1 << "1, 3, 5, 7, 9, 11, 13, 15" << true;
        QTest::addRow("data cp") << "data"
                                 << "cp" << 1 << 2 << "4, 5" << false;
        QTest::addRow("expert edp") << "expert"
                                    << "edp" << 0 << 5 << "5" << false;
        QTest::addRow("expert efsdp") << "expert"
                                      << "efsdp" << 1 << 1 << "1, 5, 9, 13" << true;
        QTest::addRow("expert ep") << "expert"
                                   << "ep" << 0 << 3 << "5, 7" << false;
        QTest::addRow("expert expert_cp") << "expert"
                                          << "expert_cp" << 1 << 2 << "4, 5" << false;
    }

    void inspector() {
        QFETCH(QString, mesh);
        QFETCH(QString, dim);
        QFETCH(int, coordinate);
        QFETCH(int, groupIndex);
        QFETCH(QString, members);
        QFETCH(bool, leavesNode);
        PlanController c;
        c.form()->setCp(2);
        c.form()->setEp(2);
        c.selection()->setSelectedRank(5);
        const InspectorModel& m = *c.selection()->inspector();
        QVERIFY(m.has_selection());
        QCOMPARE(m.rank(), 5);
        QCOMPARE(m.node(), 0);
        QCOMPARE(m.local_rank(), 5);
        QCOMPARE(m.expert_coordinate(), QStringLiteral("(edp 0, efsdp 1, ep 0, expert_cp 1)"));
        QCOMPARE(m.data_coordinate(), QStringLiteral("(dp 2, cp 1)"));
        QCOMPARE(m.model_coordinate(), QStringLiteral("(mp_replicate 0, mp_shard 5)"));
        QCOMPARE(m.rowCount(), 8);
        const int row = row_of(m, mesh, dim);
        QVERIFY(row >= 0);
        QCOMPARE(m.data(m.index(row), InspectorModel::CoordinateRole).toInt(), coordinate);
        QCOMPARE(m.data(m.index(row), InspectorModel::GroupIndexRole).toInt(), groupIndex);
        QCOMPARE(m.data(m.index(row), InspectorModel::MembersRole).toString(), members);
        QCOMPARE(m.data(m.index(row), InspectorModel::LeavesNodeRole).toBool(), leavesNode);
        // The first row of each mesh carries the mesh's heading: model mp_replicate, data dp, then expert edp.
        QCOMPARE(m.data(m.index(row), InspectorModel::FirstOfMeshRole).toBool(),
                 dim == "mp_replicate" || dim == "dp" || dim == "edp");
    }

    void long_groups_are_abbreviated() {
        std::vector<std::int64_t> ranks(100);
        for (std::size_t i = 0; i < ranks.size(); ++i) ranks[i] = static_cast<std::int64_t>(i) * 2;
        QCOMPARE(InspectorModel::members_text(ranks),
                 QStringLiteral("0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, …, 198  (100 ranks)"));
        QCOMPARE(InspectorModel::members_text({3}), QStringLiteral("3"));
    }

    void inspector_clears_without_selection() {
        PlanController c;
        c.selection()->setSelectedRank(3);
        QCOMPARE(c.selection()->inspector()->rowCount(), 8);
        c.selection()->setSelectedRank(-1);
        QCOMPARE(c.selection()->inspector()->rowCount(), 0);
        QVERIFY(!c.selection()->inspector()->has_selection());
        QCOMPARE(c.selection()->inspector()->expert_coordinate(), QString());
    }
};

QTEST_GUILESS_MAIN(TestPlannerModels)
#include "tst_planner_models.moc"
