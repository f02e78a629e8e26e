// PlanController: the core's exact messages for typed values, the suggestions that fix them, keeping the
// last valid plan, experts per rank, the text exports and the remembered plan.
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "meshscope/plan_json.h"
#include "plan_controller.h"
#include "plan_export_cases.h"

using meshscope::ui::PlanController;
using meshscope::ui::PlanInput;
namespace CreationOrderQml = meshscope::ui::CreationOrderQml;
namespace MeshViewQml = meshscope::ui::MeshViewQml;
using meshscope::ui::name_of;

namespace {
QString suggestion_list(const meshscope::ui::SuggestionModel& model) {
    QStringList out;
    for (int row = 0; row < model.rowCount(); ++row)
        out << model.data(model.index(row), meshscope::ui::SuggestionModel::LabelRole).toString();
    return out.join(QLatin1Char(','));
}

QString suggestion_field(const meshscope::ui::SuggestionModel& model) {
    return model.rowCount() ? model.data(model.index(0), meshscope::ui::SuggestionModel::FieldRole).toString()
                            : QString();
}

void set_inputs(PlanController& c, bool use_world, int nodes_or_world, int gpus, int cp, int ep) {
    c.setUseWorld(use_world);
    if (use_world)
        c.setWorld(nodes_or_world);
    else
        c.setNodes(nodes_or_world);
    c.setGpusPerNode(gpus);
    c.setCp(cp);
    c.setEp(ep);
}
}  // namespace

class TestPlanController : public QObject {
    Q_OBJECT

private slots:
    void starts_valid() {
        PlanController c;
        QVERIFY(c.valid());
        QCOMPARE(c.planWorld(), 16);
        QCOMPARE(c.planEp(), 8);
        QCOMPARE(c.planEfsdp(), 2);
        QCOMPARE(c.topologyText(), QStringLiteral("(dp, cp, ep) = (16, 1, 8) · world 16 = dp 16 × cp 1"));
        QCOMPARE(c.expertMeshText(), QStringLiteral("edp 1 × efsdp 2 × ep 8 × expert_cp 1"));
        QCOMPARE(c.clusterText(), QStringLiteral("2 nodes × 8 GPUs per node"));
    }

    void errors_data() {
        QTest::addColumn<bool>("useWorld");
        QTest::addColumn<int>("size");  // nodes, or the world when useWorld
        QTest::addColumn<int>("gpus");
        QTest::addColumn<int>("cp");
        QTest::addColumn<int>("ep");
        QTest::addColumn<QString>("error");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("suggestions");

        QTest::addRow("valid") << false << 2 << 8 << 1 << 8 << ""
                               << ""
                               << "";
        QTest::addRow("ep does not divide dp")
            << false << 2 << 8 << 1 << 3 << "dp_size must be divisible by ep_size, got 16 % 3 != 0."
            << "ep"
            << "1,2,4,8,16";
        QTest::addRow("ep zero") << false << 2 << 8 << 1 << 0 << "ep_size must be positive, got 0."
                                 << "ep"
                                 << "1,2,4,8,16";
        QTest::addRow("ep negative with cp") << false << 2 << 8 << 2 << -2 << "ep_size must be positive, got -2."
                                             << "ep"
                                             << "1,2,4,8";
        QTest::addRow("cp does not divide world")
            << true << 12 << 8 << 5 << 1 << "world_size (12) must be divisible by cp_size (5)."
            << "cp"
            << "1,2,3,4,6,12";
        QTest::addRow("cp zero") << false << 2 << 8 << 0 << 1 << "cp_size must be positive, got 0."
                                 << "cp"
                                 << "1,2,4,8,16";
        QTest::addRow("gpus per node zero") << false << 2 << 0 << 1 << 1 << "gpus_per_node must be positive, got 0."
                                            << "gpusPerNode"
                                            << "8,4,2,1";
        QTest::addRow("no nodes") << false << 0 << 8 << 1 << 1 << "world_size must be positive, got 0."
                                  << "nodes"
                                  << "1,2,4";
        QTest::addRow("world negative") << true << -4 << 8 << 1 << 1 << "world_size must be positive, got -4."
                                        << "world"
                                        << "8,16";
        QTest::addRow("too many ranks to draw")
            << false << 10000 << 8 << 1 << 8
            << "The planner draws at most 65536 ranks, got world_size 80000; `meshscope plan --no-groups` handles "
               "larger worlds."
            << "nodes"
            << "";
    }

    void errors() {
        QFETCH(bool, useWorld);
        QFETCH(int, size);
        QFETCH(int, gpus);
        QFETCH(int, cp);
        QFETCH(int, ep);
        QFETCH(QString, error);
        QFETCH(QString, field);
        QFETCH(QString, suggestions);
        PlanController c;
        set_inputs(c, useWorld, size, gpus, cp, ep);
        QCOMPARE(c.errorText(), error);
        QCOMPARE(c.valid(), error.isEmpty());
        QCOMPARE(name_of(static_cast<PlanInput>(c.errorField())), field);
        QCOMPARE(suggestion_list(*c.suggestions()), suggestions);
        if (!suggestions.isEmpty()) QCOMPARE(suggestion_field(*c.suggestions()), field);
    }

    void keeps_the_last_valid_plan_and_a_suggestion_fixes_it() {
        PlanController c;
        QSignalSpy plan_changed(&c, &PlanController::planChanged);
        QSignalSpy validity(&c, &PlanController::validityChanged);
        c.setEp(3);
        QVERIFY(!c.valid());
        QCOMPARE(validity.count(), 1);
        QCOMPARE(plan_changed.count(), 0);
        QCOMPARE(c.planEp(), 8);  // still the last valid plan
        QCOMPARE(c.plan()->topology().ep, 8);
        c.applySuggestion(2);  // "4"
        QVERIFY(c.valid());
        QCOMPARE(c.ep(), 4);
        QCOMPARE(c.planEp(), 4);
        QCOMPARE(plan_changed.count(), 1);
        QCOMPARE(c.suggestions()->rowCount(), 0);
        c.applySuggestion(7);  // out of range: nothing happens
        QCOMPARE(c.ep(), 4);
    }

    void selection_is_cleared_when_the_plan_shrinks() {
        PlanController c;
        c.setSelectedRank(13);
        QCOMPARE(c.selectedRank(), 13);
        c.setNodes(1);  // world 8, ep 8
        QVERIFY(c.valid());
        QCOMPARE(c.selectedRank(), -1);
        c.setSelectedRank(99);
        QCOMPARE(c.selectedRank(), -1);
    }

    void view_follows_the_plan() {
        PlanController c;
        QVERIFY(c.showingExpertMesh());
        c.setShownDim(QStringLiteral("efsdp"));
        QCOMPARE(c.shownDim(), QStringLiteral("efsdp"));
        c.setEp(1);  // no expert mesh: the data mesh is shown and efsdp is not one of its dims
        QVERIFY(!c.showingExpertMesh());
        QCOMPARE(c.viewMesh(), int(MeshViewQml::Expert));  // the choice stays for when ep > 1 again
        QCOMPARE(c.shownDim(), QString());
        c.toggleShownDim(QStringLiteral("dp"));
        QCOMPARE(c.shownDim(), QStringLiteral("dp"));
        c.toggleShownDim(QStringLiteral("dp"));
        QCOMPARE(c.shownDim(), QString());
        c.setEp(2);
        QVERIFY(c.showingExpertMesh());
        c.setViewMesh(7);  // no MeshView value
        QCOMPARE(c.viewMesh(), int(MeshViewQml::Expert));
        c.setViewMesh(MeshViewQml::Data);
        QVERIFY(!c.showingExpertMesh());
        c.setOrder(-1);  // no CreationOrder value
        QCOMPARE(c.order(), int(CreationOrderQml::Torch29));
    }

    void experts_data() {
        QTest::addColumn<int>("ep");
        QTest::addColumn<int>("experts");
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<QString>("suggestions");
        QTest::addRow("not given") << 8 << 0 << "" << true << "";
        QTest::addRow("divides") << 8 << 64 << "8 experts per rank (64 experts / ep 8)" << true << "";
        QTest::addRow("ep 1") << 1 << 64 << "64 experts per rank: ep = 1 keeps every expert on every rank" << true
                              << "";
        QTest::addRow("does not divide") << 8 << 60 << "num_experts must be divisible by ep_size, got 60 % 8 != 0."
                                         << false << "1,2,4";
        QTest::addRow("negative") << 8 << -1 << "num_experts must be positive, got -1." << false << "";
    }

    void experts() {
        QFETCH(int, ep);
        QFETCH(int, experts);
        QFETCH(QString, text);
        QFETCH(bool, valid);
        QFETCH(QString, suggestions);
        PlanController c;
        c.setEp(ep);
        c.setExperts(experts);
        QCOMPARE(c.expertsText(), text);
        QCOMPARE(c.expertsValid(), valid);
        QCOMPARE(suggestion_list(*c.expertsSuggestions()), suggestions);
        if (!suggestions.isEmpty()) {
            c.applyExpertsSuggestion(2);
            QCOMPARE(c.planEp(), 4);
            QVERIFY(c.expertsValid());
        }
    }

    void exports_data() {
        QTest::addColumn<int>("world");
        QTest::addColumn<int>("gpus");
        QTest::addColumn<int>("cp");
        QTest::addColumn<int>("ep");
        QTest::addColumn<QString>("yaml");
        QTest::addColumn<QString>("torchrun");
        QTest::addRow("two nodes, ep 8")
            << 16 << 8 << 1 << 8
            << "# LlamaFactory v1, FSDPTurbo: world 16 = dp 16 x cp 1; expert mesh edp 1 x efsdp 2 x ep 8 x "
               "expert_cp 1\ncp_size: 1\ndist_config:\n  name: fsdpturbo\n  ep_size: 8\n"
            << "torchrun --nnodes 2 --nproc-per-node 8 --rdzv-backend c10d --rdzv-endpoint <MASTER_ADDR>:29500 "
               "--rdzv-id <JOB_ID> <TRAIN_SCRIPT> <CONFIG.yaml>\n";
        QTest::addRow("cp 2 ep 4 on 8 nodes")
            << 64 << 8 << 2 << 4
            << "# LlamaFactory v1, FSDPTurbo: world 64 = dp 32 x cp 2; expert mesh edp 1 x efsdp 8 x ep 4 x "
               "expert_cp 2\ncp_size: 2\ndist_config:\n  name: fsdpturbo\n  ep_size: 4\n"
            << "torchrun --nnodes 8 --nproc-per-node 8 --rdzv-backend c10d --rdzv-endpoint <MASTER_ADDR>:29500 "
               "--rdzv-id <JOB_ID> <TRAIN_SCRIPT> <CONFIG.yaml>\n";
        QTest::addRow("one partly used node, ep 1")
            << 4 << 8 << 1 << 1
            << "# LlamaFactory v1, FSDPTurbo: world 4 = dp 4 x cp 1; ep_size 1 builds no expert mesh\ncp_size: "
               "1\ndist_config:\n  name: fsdpturbo\n  ep_size: 1\n"
            << "torchrun --nnodes 1 --nproc-per-node 4 --standalone <TRAIN_SCRIPT> <CONFIG.yaml>\n";
        QTest::addRow("world does not fill the nodes")
            << 12 << 8 << 1 << 2
            << "# LlamaFactory v1, FSDPTurbo: world 12 = dp 12 x cp 1; expert mesh edp 1 x efsdp 6 x ep 2 x "
               "expert_cp 1\ncp_size: 1\ndist_config:\n  name: fsdpturbo\n  ep_size: 2\n"
            << "# world size 12 does not fill 2 nodes of 8 GPUs; torchrun starts the same number of processes on "
               "every node, so this line starts 16\ntorchrun --nnodes 2 --nproc-per-node 8 --rdzv-backend c10d "
               "--rdzv-endpoint <MASTER_ADDR>:29500 --rdzv-id <JOB_ID> <TRAIN_SCRIPT> <CONFIG.yaml>\n";
    }

    void exports() {
        QFETCH(int, world);
        QFETCH(int, gpus);
        QFETCH(int, cp);
        QFETCH(int, ep);
        QFETCH(QString, yaml);
        QFETCH(QString, torchrun);
        PlanController c;
        set_inputs(c, true, world, gpus, cp, ep);
        QVERIFY2(c.valid(), qPrintable(c.errorText()));
        QCOMPARE(c.exportText(QStringLiteral("yaml")), yaml);
        QCOMPARE(c.llamaFactoryYaml(), yaml);
        QCOMPARE(c.exportText(QStringLiteral("torchrun")), torchrun);
        QCOMPARE(c.torchrunCommand(), torchrun);
        QCOMPARE(c.exportText(QStringLiteral("nonsense")), QString());

        // The plan JSON is the `meshscope plan --format json` document of the same plan.
        const auto expected = meshscope::to_json(*c.plan());
        const auto exported = nlohmann::json::parse(c.exportText(QStringLiteral("json")).toStdString());
        QVERIFY(exported == expected);
        QCOMPARE(QString::fromStdString(exported.at("schema").get<std::string>()), QStringLiteral("meshscope.plan/1"));
    }

    // The desktop's exports are core's bytes: the hand-worked texts every writer is compared to.
    void exports_are_the_cli_bytes() {
        namespace cases = plan_export_cases;
        const auto text = [](std::string_view bytes) {
            return QString::fromUtf8(bytes.data(), qsizetype(bytes.size()));
        };
        PlanController c;
        set_inputs(c, true, cases::json_world, cases::json_gpus_per_node, cases::json_cp, cases::json_ep);
        QVERIFY2(c.valid(), qPrintable(c.errorText()));
        QCOMPARE(c.exportText(QStringLiteral("json")), text(cases::json));
        for (const auto& e : cases::text_cases) {
            set_inputs(c, true, e.world, e.gpus_per_node, e.cp, e.ep);
            QVERIFY2(c.valid(), qPrintable(c.errorText()));
            QCOMPARE(c.exportText(QStringLiteral("yaml")), text(e.yaml));
            QCOMPARE(c.exportText(QStringLiteral("torchrun")), text(e.torchrun));
        }
    }

    void save_export_writes_the_text() {
        QTemporaryDir dir;
        PlanController c;
        const QString path = dir.filePath(QStringLiteral("plan.yaml"));
        QVERIFY(c.saveExport(QStringLiteral("yaml"), QUrl::fromLocalFile(path)));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(file.readAll()), c.llamaFactoryYaml());
        QCOMPARE(c.statusText(), QStringLiteral("Saved %1").arg(path));
        QVERIFY(
            !c.saveExport(QStringLiteral("yaml"), QUrl::fromLocalFile(dir.filePath(QStringLiteral("no/such/dir/x")))));
        QVERIFY(c.statusText().startsWith(QStringLiteral("Could not write")));
    }

    void remembers_the_last_valid_plan() {
        QTemporaryDir dir;
        const QString ini = dir.filePath(QStringLiteral("meshscope.ini"));
        {
            PlanController c;
            set_inputs(c, false, 4, 8, 2, 4);
            c.setExperts(64);
            c.setOrder(CreationOrderQml::Torch28);
            c.setViewMesh(MeshViewQml::Data);
            c.setEp(3);  // invalid at exit: the last valid plan is what is remembered
            QSettings settings(ini, QSettings::IniFormat);
            c.save(settings);
        }
        PlanController restored;
        QSettings settings(ini, QSettings::IniFormat);
        restored.restore(settings);
        QVERIFY(restored.valid());
        QCOMPARE(restored.nodes(), 4);
        QCOMPARE(restored.cp(), 2);
        QCOMPARE(restored.ep(), 4);
        QCOMPARE(restored.experts(), 64);
        QCOMPARE(restored.order(), int(CreationOrderQml::Torch28));
        QCOMPARE(restored.viewMesh(), int(MeshViewQml::Data));
        QCOMPARE(settings.value(QStringLiteral("planner/order")).toString(), QStringLiteral("torch28"));  // names
        QCOMPARE(settings.value(QStringLiteral("planner/viewMesh")).toString(), QStringLiteral("data"));

        // A damaged file keeps the defaults.
        QSettings broken(dir.filePath(QStringLiteral("broken.ini")), QSettings::IniFormat);
        broken.setValue(QStringLiteral("planner/ep"), 3);
        PlanController defaults;
        defaults.restore(broken);
        QVERIFY(defaults.valid());
        QCOMPARE(defaults.ep(), 8);
    }
};

QTEST_GUILESS_MAIN(TestPlanController)
#include "tst_plan_controller.moc"
