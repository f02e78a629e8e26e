// PlanController and its parts (PlanForm, PlanView, PlanSelection): the core's exact messages for typed values,
// the suggestions that fix them, keeping the last valid plan, LlamaFactory's model mesh, experts per rank, the
// text exports and the remembered plan.
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include "meshscope/mesh/plan_json.h"
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
    c.form()->setUseWorld(use_world);
    if (use_world)
        c.form()->setWorld(nodes_or_world);
    else
        c.form()->setNodes(nodes_or_world);
    c.form()->setGpusPerNode(gpus);
    c.form()->setCp(cp);
    c.form()->setEp(ep);
}
}  // namespace

class TestPlanController : public QObject {
    Q_OBJECT

private slots:
    void starts_valid() {
        PlanController c;
        QVERIFY(c.form()->valid());
        QCOMPARE(c.view()->planWorld(), 16);
        QCOMPARE(c.view()->planEp(), 8);
        QCOMPARE(c.view()->planEfsdp(), 2);
        QCOMPARE(c.view()->topologyText(), QStringLiteral("(dp, cp, ep) = (16, 1, 8) · world 16 = dp 16 × cp 1"));
        QCOMPARE(c.view()->expertMeshText(), QStringLiteral("edp 1 × efsdp 2 × ep 8 × expert_cp 1"));
        QCOMPARE(c.view()->clusterText(), QStringLiteral("2 nodes × 8 GPUs per node"));
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
        QCOMPARE(c.form()->errorText(), error);
        QCOMPARE(c.form()->valid(), error.isEmpty());
        QCOMPARE(name_of(static_cast<PlanInput>(c.form()->errorField())), field);
        QCOMPARE(suggestion_list(*c.form()->suggestions()), suggestions);
        if (!suggestions.isEmpty()) QCOMPARE(suggestion_field(*c.form()->suggestions()), field);
    }

    // LlamaFactory's model mesh on the default 2 x 8 = 16 ranks (ep 8): its words, checked before ep's.
    void model_mesh_inputs_data() {
        QTest::addColumn<int>("mpReplicate");
        QTest::addColumn<int>("mpShard");  // 0: world / mp_replicate
        QTest::addColumn<int>("ep");
        QTest::addColumn<QString>("error");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("suggestions");
        QTest::addColumn<QString>("model");  // modelMeshText when valid
        QTest::addRow("defaults") << 1 << 0 << 8 << ""
                                  << ""
                                  << ""
                                  << "mp_replicate 1 × mp_shard 16 (LlamaFactory's default)";
        QTest::addRow("mp_replicate 2") << 2 << 0 << 8 << ""
                                        << ""
                                        << ""
                                        << "mp_replicate 2 × mp_shard 8";
        QTest::addRow("both given") << 4 << 4 << 8 << ""
                                    << ""
                                    << ""
                                    << "mp_replicate 4 × mp_shard 4";
        QTest::addRow("does not divide the world")
            << 3 << 0 << 8 << "world_size (16) must be divisible by mp_replicate_size (3)."
            << "mpReplicate"
            << "1,2,4,8,16"
            << "";
        QTest::addRow("zero") << 0 << 0 << 8 << "mp_replicate_size must be positive, got 0."
                              << "mpReplicate"
                              << "1,2,4,8,16"
                              << "";
        QTest::addRow("product differs")
            << 2 << 4 << 8 << "mp_replicate_size * mp_shard_size must equal to world_size, got 2 * 4 != 16."
            << "mpShard"
            << "8"
            << "";
        QTest::addRow("model before ep") << 3 << 0 << 3 << "world_size (16) must be divisible by mp_replicate_size (3)."
                                         << "mpReplicate"
                                         << "1,2,4,8,16"
                                         << "";
    }

    void model_mesh_inputs() {
        QFETCH(int, mpReplicate);
        QFETCH(int, mpShard);
        QFETCH(int, ep);
        QFETCH(QString, error);
        QFETCH(QString, field);
        QFETCH(QString, suggestions);
        QFETCH(QString, model);
        PlanController c;
        c.form()->setEp(ep);
        c.form()->setMpReplicate(mpReplicate);
        c.form()->setMpShard(mpShard);
        QCOMPARE(c.form()->errorText(), error);
        QCOMPARE(name_of(static_cast<PlanInput>(c.form()->errorField())), field);
        QCOMPARE(suggestion_list(*c.form()->suggestions()), suggestions);
        if (!error.isEmpty()) {
            // The first suggestion fixes the model mesh: the error clears or moves on to the next check.
            c.form()->applySuggestion(0);
            QVERIFY(name_of(static_cast<PlanInput>(c.form()->errorField())) != field);
            return;
        }
        QCOMPARE(c.view()->modelMeshText(), model);
        QCOMPARE(c.view()->planMpReplicate() * c.view()->planMpShard(), 16);
        // The plan's model mesh is the one LlamaFactory builds first.
        QCOMPARE(QString::fromStdString(c.plan()->meshes().front().name), QStringLiteral("model"));
    }

    // The grid can draw the model mesh; its dims are the legend's.
    void model_mesh_view() {
        PlanController c;
        c.form()->setMpReplicate(2);
        QSignalSpy view_changed(c.view(), &meshscope::ui::PlanView::viewChanged);
        c.view()->setViewMesh(MeshViewQml::Model);
        QCOMPARE(view_changed.count(), 1);
        QCOMPARE(c.view()->shownMesh(), int(MeshViewQml::Model));
        QVERIFY(!c.view()->showingExpertMesh());
        QCOMPARE(c.view()->legend()->rowCount(), 2);
        c.view()->setShownDim(QStringLiteral("mp_shard"));
        QCOMPARE(c.view()->shownDim(), QStringLiteral("mp_shard"));
        c.view()->setViewMesh(MeshViewQml::Expert);  // mp_shard is no dim of the expert mesh
        QCOMPARE(c.view()->shownDim(), QString());
    }

    void keeps_the_last_valid_plan_and_a_suggestion_fixes_it() {
        PlanController c;
        QSignalSpy plan_changed(c.view(), &meshscope::ui::PlanView::planChanged);
        QSignalSpy validity(c.form(), &meshscope::ui::PlanForm::validityChanged);
        c.form()->setEp(3);
        QVERIFY(!c.form()->valid());
        QCOMPARE(validity.count(), 1);
        QCOMPARE(plan_changed.count(), 0);
        QCOMPARE(c.view()->planEp(), 8);  // still the last valid plan
        QCOMPARE(c.plan()->topology().ep, 8);
        c.form()->applySuggestion(2);  // "4"
        QVERIFY(c.form()->valid());
        QCOMPARE(c.form()->ep(), 4);
        QCOMPARE(c.view()->planEp(), 4);
        QCOMPARE(plan_changed.count(), 1);
        QCOMPARE(c.form()->suggestions()->rowCount(), 0);
        c.form()->applySuggestion(7);  // out of range: nothing happens
        QCOMPARE(c.form()->ep(), 4);
    }

    void selection_is_cleared_when_the_plan_shrinks() {
        PlanController c;
        c.selection()->setSelectedRank(13);
        QCOMPARE(c.selection()->selectedRank(), 13);
        c.form()->setNodes(1);  // world 8, ep 8
        QVERIFY(c.form()->valid());
        QCOMPARE(c.selection()->selectedRank(), -1);
        c.selection()->setSelectedRank(99);
        QCOMPARE(c.selection()->selectedRank(), -1);
    }

    void view_follows_the_plan() {
        PlanController c;
        QVERIFY(c.view()->showingExpertMesh());
        c.view()->setShownDim(QStringLiteral("efsdp"));
        QCOMPARE(c.view()->shownDim(), QStringLiteral("efsdp"));
        c.form()->setEp(1);  // no expert mesh: the data mesh is shown and efsdp is not one of its dims
        QVERIFY(!c.view()->showingExpertMesh());
        QCOMPARE(c.view()->viewMesh(), int(MeshViewQml::Expert));  // the choice stays for when ep > 1 again
        QCOMPARE(c.view()->shownDim(), QString());
        c.view()->toggleShownDim(QStringLiteral("dp"));
        QCOMPARE(c.view()->shownDim(), QStringLiteral("dp"));
        c.view()->toggleShownDim(QStringLiteral("dp"));
        QCOMPARE(c.view()->shownDim(), QString());
        c.form()->setEp(2);
        QVERIFY(c.view()->showingExpertMesh());
        c.view()->setViewMesh(7);  // no MeshView value
        QCOMPARE(c.view()->viewMesh(), int(MeshViewQml::Expert));
        c.view()->setViewMesh(MeshViewQml::Data);
        QVERIFY(!c.view()->showingExpertMesh());
        c.form()->setOrder(-1);  // no CreationOrder value
        QCOMPARE(c.form()->order(), int(CreationOrderQml::Torch29));
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
        c.form()->setEp(ep);
        c.form()->setExperts(experts);
        QCOMPARE(c.form()->expertsText(), text);
        QCOMPARE(c.form()->expertsValid(), valid);
        QCOMPARE(suggestion_list(*c.form()->expertsSuggestions()), suggestions);
        if (!suggestions.isEmpty()) {
            c.form()->applyExpertsSuggestion(2);
            QCOMPARE(c.view()->planEp(), 4);
            QVERIFY(c.form()->expertsValid());
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
        QVERIFY2(c.form()->valid(), qPrintable(c.form()->errorText()));
        QCOMPARE(c.view()->exportText(QStringLiteral("yaml")), yaml);
        QCOMPARE(c.view()->llamaFactoryYaml(), yaml);
        QCOMPARE(c.view()->exportText(QStringLiteral("torchrun")), torchrun);
        QCOMPARE(c.view()->torchrunCommand(), torchrun);
        QCOMPARE(c.view()->exportText(QStringLiteral("nonsense")), QString());

        // The plan JSON is the `meshscope plan --format json` document of the same plan.
        const auto expected = meshscope::to_json(*c.plan());
        const auto exported = nlohmann::json::parse(c.view()->exportText(QStringLiteral("json")).toStdString());
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
        QVERIFY2(c.form()->valid(), qPrintable(c.form()->errorText()));
        QCOMPARE(c.view()->exportText(QStringLiteral("json")), text(cases::json));
        for (const auto& e : cases::text_cases) {
            set_inputs(c, true, e.world, e.gpus_per_node, e.cp, e.ep);
            QVERIFY2(c.form()->valid(), qPrintable(c.form()->errorText()));
            QCOMPARE(c.view()->exportText(QStringLiteral("yaml")), text(e.yaml));
            QCOMPARE(c.view()->exportText(QStringLiteral("torchrun")), text(e.torchrun));
        }
    }

    void save_export_writes_the_text() {
        QTemporaryDir dir;
        PlanController c;
        const QString path = dir.filePath(QStringLiteral("plan.yaml"));
        QVERIFY(c.view()->saveExport(QStringLiteral("yaml"), QUrl::fromLocalFile(path)));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(file.readAll()), c.view()->llamaFactoryYaml());
        QCOMPARE(c.view()->statusText(), QStringLiteral("Saved %1").arg(path));
        QVERIFY(!c.view()->saveExport(QStringLiteral("yaml"),
                                      QUrl::fromLocalFile(dir.filePath(QStringLiteral("no/such/dir/x")))));
        QVERIFY(c.view()->statusText().startsWith(QStringLiteral("Could not write")));
    }

    void remembers_the_last_valid_plan() {
        QTemporaryDir dir;
        const QString ini = dir.filePath(QStringLiteral("meshscope.ini"));
        {
            PlanController c;
            set_inputs(c, false, 4, 8, 2, 4);
            c.form()->setMpReplicate(4);
            c.form()->setExperts(64);
            c.form()->setOrder(CreationOrderQml::Torch28);
            c.view()->setViewMesh(MeshViewQml::Data);
            c.form()->setEp(3);  // invalid at exit: the last valid plan is what is remembered
            QSettings settings(ini, QSettings::IniFormat);
            c.save(settings);
        }
        PlanController restored;
        QSettings settings(ini, QSettings::IniFormat);
        restored.restore(settings);
        QVERIFY(restored.form()->valid());
        QCOMPARE(restored.form()->nodes(), 4);
        QCOMPARE(restored.form()->cp(), 2);
        QCOMPARE(restored.form()->ep(), 4);
        QCOMPARE(restored.form()->experts(), 64);
        QCOMPARE(restored.form()->mpReplicate(), 4);
        QCOMPARE(restored.view()->planMpShard(), 8);
        QCOMPARE(restored.form()->order(), int(CreationOrderQml::Torch28));
        QCOMPARE(restored.view()->viewMesh(), int(MeshViewQml::Data));
        QCOMPARE(settings.value(QStringLiteral("planner/order")).toString(), QStringLiteral("torch28"));  // names
        QCOMPARE(settings.value(QStringLiteral("planner/viewMesh")).toString(), QStringLiteral("data"));

        // A damaged file keeps the defaults.
        QSettings broken(dir.filePath(QStringLiteral("broken.ini")), QSettings::IniFormat);
        broken.setValue(QStringLiteral("planner/ep"), 3);
        PlanController defaults;
        defaults.restore(broken);
        QVERIFY(defaults.form()->valid());
        QCOMPARE(defaults.form()->ep(), 8);
    }
};

QTEST_GUILESS_MAIN(TestPlanController)
#include "tst_plan_controller.moc"
