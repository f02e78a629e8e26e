// The Cost panel's C++ side: the memory, communication and ranking models (QAbstractItemModelTester, values worked
// by hand here or taken from the hand-worked cases of tests/cost/tst_cost_formulas.cpp), the cost inputs with
// core's messages, and PlanCost wired into a PlanController: a preset prices the plan, a ranked row shows its
// layout, settings remember the inputs.
#include <QAbstractItemModelTester>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#include "cost_test_support.h"
#include "meshscope/cost/advice.h"
#include "plan_controller.h"

using namespace meshscope;
using namespace meshscope::ui;

namespace {
constexpr double gib = 1024.0 * 1024.0 * 1024.0;

QVariant role(const QAbstractItemModel& model, int row, int role) {
    return model.data(model.index(row, 0), role);
}

bool near(double a, double b) {
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
}

cost::LayoutCost tiny_cost(std::int64_t gpus_per_node) {
    const auto in = costtest::tiny_inputs(cost::Recompute::none);
    const auto topology = Topology::make(2, 1, 2).value();
    return cost::cost_layout(in, topology, cost::mesh_dims(topology, Placement::make(2, gpus_per_node).value()));
}
// Fitted on h200 by hand: calibration 0.41 and NVLink 300 GB/s from a run, the network left at ndr's 50 GB/s.
std::shared_ptr<const cost::LoadedClusterProfile> h200_profile() {
    cost::ClusterProfile p;
    p.hardware = "h200";
    p.network = "ndr";
    p.calibration = {0.41, cost::ConstantSource::fitted, "step time of dp 8, cp 1, ep 8 from train.log"};
    p.intra_node_gbps = {300, cost::ConstantSource::fitted, "3 intra-node collective records from nccl.log"};
    p.inter_node_gbps = {50, cost::ConstantSource::preset, "ndr preset"};
    return std::make_shared<const cost::LoadedClusterProfile>(cost::LoadedClusterProfile{"cluster.json", p});
}
}  // namespace

class TestCostPanel : public QObject {
    Q_OBJECT

private slots:
    // tiny_moe on dp 2, cp 1, ep 2, no recomputation (tst_cost_formulas' memory_by_part): parameters 1480 bytes,
    // gradients 1480, optimizer 8880, activations 2176, all-to-all 256, FSDP buffers 5456, on 1 GiB less 10%.
    void memory_rows_data() {
        QTest::addColumn<int>("part");
        QTest::addColumn<QString>("name");
        QTest::addColumn<double>("bytes");
        QTest::addColumn<double>("before");  // the parts left of it
        QTest::addRow("parameters") << 0 << "parameters" << 1480.0 << 0.0;
        QTest::addRow("gradients") << 1 << "gradients" << 1480.0 << 1480.0;
        QTest::addRow("optimizer") << 2 << "optimizer" << 8880.0 << 2960.0;
        QTest::addRow("activations") << 3 << "activations" << 2176.0 << 11840.0;
        QTest::addRow("all-to-all") << 4 << "all-to-all buffers" << 256.0 << 14016.0;
        QTest::addRow("FSDP") << 5 << "FSDP buffers" << 5456.0 << 14272.0;
    }
    void memory_rows() {
        QFETCH(int, part);
        QFETCH(QString, name);
        QFETCH(double, bytes);
        QFETCH(double, before);
        CostMemoryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.set(tiny_cost(4).memory);
        QCOMPARE(model.rowCount(), 6);
        // The total (19728 bytes) is far below the usable 0.9 GiB: the bar's full width is the usable memory.
        const double usable = 0.9 * gib;
        QVERIFY(near(model.usableFraction(), 1.0));
        QCOMPARE(role(model, part, CostMemoryModel::PartRole).toInt(), part);
        QCOMPARE(role(model, part, CostMemoryModel::NameRole).toString(), name);
        QVERIFY(near(role(model, part, CostMemoryModel::BytesRole).toDouble(), bytes));
        QVERIFY(near(role(model, part, CostMemoryModel::StartRole).toDouble(), before / usable));
        QVERIFY(near(role(model, part, CostMemoryModel::FractionRole).toDouble(), bytes / usable));
        QCOMPARE(role(model, part, CostMemoryModel::TextRole).toString(), QStringLiteral("0.0 GiB"));
        QVERIFY(model.fits());
        QCOMPARE(model.totalText(), QStringLiteral("0.0 GiB of 0.9 GiB usable"));
        QCOMPARE(model.fitText(), QStringLiteral("fits, 0.9 GiB headroom"));
    }

    // Round GiB worked by hand: 2 + 2 + 4 + 1 + 0.5 + 0.5 = 10 GiB against 8 usable: the bar spans the 10, the
    // usable mark sits at 0.8, the optimizer starts at 0.4 and takes 0.4.
    void memory_that_does_not_fit() {
        CostMemoryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy changed(&model, &CostMemoryModel::memoryChanged);
        cost::MemoryBreakdown m;
        m.params = 2 * gib;
        m.grads = 2 * gib;
        m.optimizer = 4 * gib;
        m.activations = 1 * gib;
        m.all_to_all = 0.5 * gib;
        m.fsdp_buffers = 0.5 * gib;
        m.usable = 8 * gib;
        model.set(m);
        QCOMPARE(changed.count(), 1);
        QVERIFY(!model.fits());
        QVERIFY(near(model.usableFraction(), 0.8));
        QVERIFY(near(role(model, 2, CostMemoryModel::StartRole).toDouble(), 0.4));
        QVERIFY(near(role(model, 2, CostMemoryModel::FractionRole).toDouble(), 0.4));
        QVERIFY(near(role(model, 5, CostMemoryModel::StartRole).toDouble(), 0.95));
        QCOMPARE(role(model, 2, CostMemoryModel::TextRole).toString(), QStringLiteral("4.0 GiB"));
        QCOMPARE(model.totalText(), QStringLiteral("10.0 GiB of 8.0 GiB usable"));
        QCOMPARE(model.fitText(), QStringLiteral("does not fit, 2.0 GiB over"));
        model.clear();
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.fitText(), QString());
    }

    // tiny_moe on dp 2, ep 2 (tst_cost_formulas' traffic_by_dim): only dp and ep move anything. On one node of 4:
    //   dp: all-gather 7 calls * (10 + 2) us + 1720 B / 100 GB/s, reduce-scatter 4 * 12 us + 1808 B / 100 GB/s;
    //   ep: all-to-all 4 * 12 us + 256 B / 100 GB/s.
    // One GPU per node: every group spans 2 nodes, each of a ring's 1 step crosses the network (10 + 20 us per
    // call, 10 GB/s): dp 11 * 30 us + 3528 B / 10 GB/s, ep 4 * 30 us + 256 B / 10 GB/s.
    void comm_rows_data() {
        QTest::addColumn<int>("gpus_per_node");
        QTest::addColumn<bool>("inter");
        QTest::addColumn<double>("dp_seconds");
        QTest::addColumn<double>("ep_seconds");
        QTest::addColumn<QString>("link");
        QTest::addColumn<QString>("total");
        QTest::addRow("one node") << 4 << false << 11 * 12e-6 + 3528 / 100e9 << 4 * 12e-6 + 256 / 100e9
                                  << "inside a node"
                                  << "0.18 ms per step before overlap: inside nodes 0.18 ms, between nodes 0.00 ms";
        QTest::addRow("a node per GPU")
            << 1 << true << 11 * 30e-6 + 3528 / 10e9 << 4 * 30e-6 + 256 / 10e9 << "across 2 nodes"
            << "0.45 ms per step before overlap: inside nodes 0.00 ms, between nodes 0.45 ms";
    }
    void comm_rows() {
        QFETCH(int, gpus_per_node);
        QFETCH(bool, inter);
        QFETCH(double, dp_seconds);
        QFETCH(double, ep_seconds);
        QFETCH(QString, link);
        QFETCH(QString, total);
        CostCommModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.set(tiny_cost(gpus_per_node));
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(role(model, 0, CostCommModel::DimRole).toString(), QStringLiteral("dp"));
        QCOMPARE(role(model, 0, CostCommModel::MeshRole).toString(), QStringLiteral("data"));
        QCOMPARE(role(model, 1, CostCommModel::DimRole).toString(), QStringLiteral("ep"));
        QCOMPARE(role(model, 1, CostCommModel::SizeRole).toInt(), 2);
        QVERIFY(near(role(model, 0, CostCommModel::SecondsRole).toDouble(), dp_seconds));
        QVERIFY(near(role(model, 1, CostCommModel::SecondsRole).toDouble(), ep_seconds));
        for (int row = 0; row < 2; ++row) {
            QCOMPARE(role(model, row, CostCommModel::InterNodeRole).toBool(), inter);
            QCOMPARE(role(model, row, CostCommModel::LinkTextRole).toString(), link);
            // A dim's time is all inside a node or all between nodes.
            const double seconds = role(model, row, CostCommModel::SecondsRole).toDouble();
            QCOMPARE(role(model, row, inter ? CostCommModel::IntraNodeSecondsRole : CostCommModel::InterNodeSecondsRole)
                         .toDouble(),
                     0.0);
            QVERIFY(
                near(role(model, row, inter ? CostCommModel::InterNodeSecondsRole : CostCommModel::IntraNodeSecondsRole)
                         .toDouble(),
                     seconds));
        }
        // dp is the slowest: its bar is full, ep's the ratio of the two.
        const int full = inter ? CostCommModel::InterFractionRole : CostCommModel::IntraFractionRole;
        QVERIFY(near(role(model, 0, full).toDouble(), 1.0));
        QVERIFY(near(role(model, 1, full).toDouble(), ep_seconds / dp_seconds));
        QCOMPARE(model.totalText(), total);
        QVERIFY(near(inter ? model.interNodeSeconds() : model.intraNodeSeconds(), dp_seconds + ep_seconds));
        // The overlap rules: ep's all-to-all is exposed whole; dp's gathers hide behind compute except one of each
        // collective, and the tiny model's compute (nanoseconds) hides almost none of the rest.
        QVERIFY(near(role(model, 1, CostCommModel::ExposedSecondsRole).toDouble(), ep_seconds));
        const double dp_exposed = role(model, 0, CostCommModel::ExposedSecondsRole).toDouble();
        QVERIFY(dp_exposed <= dp_seconds && dp_exposed >= dp_seconds - model.computeSeconds() - 1e-12);
        QVERIFY(near(model.exposedSeconds(), dp_exposed + ep_seconds));
        QVERIFY2(model.stepText().startsWith(QStringLiteral("step ")), qPrintable(model.stepText()));
        QVERIFY(model.stepText().contains(QStringLiteral(" tokens/s per GPU · MFU ")));
        QCOMPARE(role(model, 1, CostCommModel::CollectivesTextRole).toString(),
                 QStringLiteral("all_to_all 4 × 0.0 MiB"));
        model.clear();
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.totalText(), QString());
        QCOMPARE(model.stepText(), QString());
    }

    // Milliseconds with two decimals below a second (as `meshscope advise`), seconds from one on.
    void time_texts_data() {
        QTest::addColumn<double>("seconds");
        QTest::addColumn<QString>("text");
        QTest::addRow("zero") << 0.0 << "0.00 ms";
        QTest::addRow("microseconds") << 0.00012 << "0.12 ms";
        QTest::addRow("milliseconds") << 0.34681 << "346.81 ms";
        QTest::addRow("just below a second") << 0.999994 << "999.99 ms";
        QTest::addRow("one second") << 1.0 << "1.00 s";
        QTest::addRow("seconds") << 40.61528 << "40.62 s";
    }
    void time_texts() {
        QFETCH(double, seconds);
        QFETCH(QString, text);
        QCOMPARE(ms_text(seconds), text);
    }

    // tiny_moe on 4 GPUs: cp 1 (dp 4: ep 1, 2, 4), cp 2 (dp 2: ep 1, 2) and cp 4 (dp 1, ep 1): six layouts. cp 4
    // cannot split 2 query heads (LlamaFactory's message); the other five fit in 0.9 GiB.
    void ranking_rows() {
        RankedLayoutsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy current(&model, &RankedLayoutsModel::currentChanged);
        model.set_current(Topology::make(1, 4, 1).value());
        model.set(cost::advise(costtest::tiny_inputs(), 4).value());
        QCOMPARE(model.rowCount(), 6);
        QCOMPARE(model.rankedCount(), 5);
        QCOMPARE(model.excludedCount(), 1);
        double previous = 0;
        for (int row = 0; row < 5; ++row) {
            QCOMPARE(role(model, row, RankedLayoutsModel::RankRole).toInt(), row + 1);
            QVERIFY(role(model, row, RankedLayoutsModel::FitsRole).toBool());
            QCOMPARE(role(model, row, RankedLayoutsModel::ReasonRole).toString(), QString());
            const double seconds = role(model, row, RankedLayoutsModel::SecondsRole).toDouble();
            QVERIFY(seconds >= previous);  // fastest first
            previous = seconds;
            QCOMPARE(role(model, row, RankedLayoutsModel::DpRole).toInt() *
                         role(model, row, RankedLayoutsModel::CpRole).toInt(),
                     4);
        }
        QCOMPARE(role(model, 5, RankedLayoutsModel::RankRole).toInt(), 0);
        QVERIFY(!role(model, 5, RankedLayoutsModel::FitsRole).toBool());
        QCOMPARE(role(model, 5, RankedLayoutsModel::DpRole).toInt(), 1);
        QCOMPARE(role(model, 5, RankedLayoutsModel::CpRole).toInt(), 4);
        QCOMPARE(role(model, 5, RankedLayoutsModel::EpRole).toInt(), 1);
        QCOMPARE(role(model, 5, RankedLayoutsModel::ReasonRole).toString(),
                 QStringLiteral("num_attention_heads must be divisible by cp_size"));
        QCOMPARE(role(model, 5, RankedLayoutsModel::TimeTextRole).toString(), QString());
        // The plan's layout, set before the advice came, is found in it.
        QCOMPARE(model.currentRow(), 5);
        QVERIFY(role(model, 5, RankedLayoutsModel::CurrentRole).toBool());
        QCOMPARE(current.count(), 1);

        // Moving the plan to dp 2, cp 2, ep 2 moves the mark and says which rows changed.
        QSignalSpy data(&model, &QAbstractItemModel::dataChanged);
        model.set_current(Topology::make(2, 2, 2).value());
        const int row = model.currentRow();
        QVERIFY(row >= 0 && row < 5);
        QCOMPARE(model.layout(row)->cp, std::int64_t{2});
        QCOMPARE(model.layout(row)->ep, std::int64_t{2});
        QVERIFY(!role(model, 5, RankedLayoutsModel::CurrentRole).toBool());
        QCOMPARE(data.count(), 2);
        QCOMPARE(current.count(), 2);
        QVERIFY(!model.layout(6));
        QVERIFY(!model.layout(-1));
        model.clear();
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.currentRow(), -1);
    }

    // Core's messages for inputs it rejects; no model shows no cost at all.
    void cost_inputs_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("hardware");
        QTest::addColumn<int>("seq");
        QTest::addColumn<QString>("recompute");
        QTest::addColumn<QString>("error");
        QTest::addColumn<QString>("field");
        QTest::addRow("valid") << "deepseek-v3"
                               << "b200" << 4096 << "full"
                               << ""
                               << "";
        QTest::addRow("any case") << "Mixtral-8x7B"
                                  << "H200" << 4096 << "none"
                                  << ""
                                  << "";
        QTest::addRow("no model") << "none"
                                  << "x100" << 0 << "none"
                                  << ""
                                  << "";
        QTest::addRow("unknown model")
            << "llama"
            << "h100" << 4096 << "none"
            << "unknown model 'llama'; known: qwen3-30b-a3b, qwen3-235b-a22b, deepseek-v3, mixtral-8x7b, "
               "qwen3.5-35b-a3b"
            << "model";
        QTest::addRow("unknown hardware") << "qwen3-30b-a3b"
                                          << "x100" << 4096 << "none"
                                          << "unknown hardware 'x100'; known: a100, h100, h200, b200, gb200"
                                          << "hardware";
        QTest::addRow("seq 0") << "qwen3-30b-a3b"
                               << "h100" << 0 << "none"
                               << "seq must be positive, got 0."
                               << "seq";
        QTest::addRow("unknown recompute")
            << "qwen3-30b-a3b"
            << "h100" << 4096 << "some"
            << "recompute must be one of none, selective, full, megatron-selective, torchtitan-selective, "
               "llamafactory, torchtitan-full, automodel-full, megatron-full, megatron-layernorm-moe-act, got 'some'"
            << "recompute";
    }
    void cost_inputs() {
        QFETCH(QString, model);
        QFETCH(QString, hardware);
        QFETCH(int, seq);
        QFETCH(QString, recompute);
        QFETCH(QString, error);
        QFETCH(QString, field);
        PlanController c;
        CostForm& form = *c.costForm();
        form.setModel(model);
        form.setHardware(hardware);
        form.setSeq(seq);
        form.setRecompute(recompute);
        QCOMPARE(form.errorText(), error);
        QCOMPARE(form.errorField(), field);
        const bool shown = error.isEmpty() && model != QLatin1String("none");
        QCOMPARE(c.cost()->shown(), shown);
        QCOMPARE(c.cost()->memory()->rowCount(), shown ? 6 : 0);
        QCOMPARE(c.cost()->ranking()->rowCount() > 0, shown);
    }

    void choices_are_cores_names() {
        QCOMPARE(CostForm::modelNames(), (QStringList{"none", "qwen3-30b-a3b", "qwen3-235b-a22b", "deepseek-v3",
                                                      "mixtral-8x7b", "qwen3.5-35b-a3b"}));
        QCOMPARE(CostForm::hardwareNames(), (QStringList{"a100", "h100", "h200", "b200", "gb200"}));
        QCOMPARE(CostForm::networkNames(), (QStringList{"ndr", "hdr"}));
        QCOMPARE(CostForm::recomputeNames(), (QStringList{"none", "selective", "full"}));
    }

    // The default plan (2 nodes of 8, cp 1, ep 8) priced for Qwen3-30B-A3B; world 16 has 15 (cp, ep) layouts:
    // cp 1 (dp 16: 5 ep), cp 2 (dp 8: 4), cp 4 (dp 4: 3), cp 8 (dp 2: 2), cp 16 (dp 1: 1).
    void a_preset_prices_the_plan_and_a_row_shows_its_layout() {
        PlanController c;
        std::vector<std::unique_ptr<QAbstractItemModelTester>> testers;
        for (QAbstractItemModel* model :
             std::initializer_list<QAbstractItemModel*>{c.cost()->memory(), c.cost()->comm(), c.cost()->ranking()})
            testers.push_back(std::make_unique<QAbstractItemModelTester>(
                model, QAbstractItemModelTester::FailureReportingMode::QtTest));
        QVERIFY(!c.cost()->shown());
        QSignalSpy changed(c.cost(), &PlanCost::costChanged);
        c.costForm()->setModel(QStringLiteral("qwen3-30b-a3b"));
        QVERIFY(c.cost()->shown());
        QCOMPARE(changed.count(), 1);
        QVERIFY(c.cost()->modelText().startsWith(QStringLiteral("qwen3-30b-a3b: ")));
        QCOMPARE(c.cost()->clusterText(),
                 QStringLiteral("h100: 80 GiB per GPU, 10% kept free · NVLink 450 GB/s · ndr 50 GB/s per GPU"));
        QCOMPARE(c.cost()->layoutProblem(), QString());
        RankedLayoutsModel& ranking = *c.cost()->ranking();
        QCOMPARE(ranking.rowCount(), 15);
        QVERIFY(c.cost()->rankingText().startsWith(QStringLiteral("world 16, 16 sequences a step: 15 layouts, ")));
        // The sentence on why the first wins is the one meshscope advise prints for the same question.
        const auto in = c.costForm()->inputs(8);
        QVERIFY(in && in->inputs);
        QCOMPARE(c.cost()->whyText(), QString::fromStdString(cost::advise(*in->inputs, 16).value().why));
        QVERIFY(c.cost()->whyText().startsWith(QStringLiteral("dp ")));
        // ep 8 across 2 nodes of 8: the ep groups stay inside a node, dp's cross.
        const CostCommModel& comm = *c.cost()->comm();
        for (int row = 0; row < comm.rowCount(); ++row) {
            const QString dim = role(comm, row, CostCommModel::DimRole).toString();
            if (dim == QLatin1String("ep")) QVERIFY(!role(comm, row, CostCommModel::InterNodeRole).toBool());
            if (dim == QLatin1String("dp")) QVERIFY(role(comm, row, CostCommModel::InterNodeRole).toBool());
        }

        // A row of another layout puts it on screen; the ranking stays (same world), its mark moves.
        int other = 0;
        while (role(ranking, other, RankedLayoutsModel::CpRole).toInt() == 1 &&
               role(ranking, other, RankedLayoutsModel::EpRole).toInt() == 8)
            ++other;
        const int cp = role(ranking, other, RankedLayoutsModel::CpRole).toInt();
        const int ep = role(ranking, other, RankedLayoutsModel::EpRole).toInt();
        QSignalSpy reset(&ranking, &QAbstractItemModel::modelReset);
        c.cost()->applyRanked(other);
        QCOMPARE(c.form()->cp(), cp);
        QCOMPARE(c.form()->ep(), ep);
        QVERIFY(c.form()->valid());
        QCOMPARE(c.view()->planCp(), cp);
        QCOMPARE(c.view()->planEp(), ep);
        QCOMPARE(c.view()->planWorld(), 16);
        QCOMPARE(ranking.currentRow(), other);
        QCOMPARE(reset.count(), 0);

        // A ranked row also repairs an invalid world input: the form goes back to the plan's world.
        c.form()->setNodes(0);
        QVERIFY(!c.form()->valid());
        c.cost()->applyRanked(0);
        QVERIFY(c.form()->valid());
        QCOMPARE(c.form()->nodes(), 2);

        // Back to no model: nothing shown.
        c.costForm()->setModel(QStringLiteral("none"));
        QVERIFY(!c.cost()->shown());
        QCOMPARE(c.cost()->memory()->rowCount(), 0);
        QCOMPARE(ranking.rowCount(), 0);
    }

    // A global batch of the user's, on the default plan (world 16, cp 1, ep 8, so dp 16): 24 sequences are not a
    // multiple of dp 16 x micro-batch 1, so the plan's layout is left out with core's reason, keeps its memory and
    // shows no step; at cp 2 (dp 8) it runs 24 / 8 = 3 micro-batches. The ranking runs 24 sequences on every layout.
    // A negative global batch is refused with the collector's text.
    void a_global_batch_sets_each_layouts_micro_batches() {
        PlanController c;
        c.costForm()->setModel(QStringLiteral("qwen3-30b-a3b"));
        c.costForm()->setGlobalBatch(24);
        QVERIFY(c.cost()->shown());
        QCOMPARE(c.cost()->layoutProblem(),
                 QStringLiteral("global batch of 24 sequences is not a multiple of dp x micro-batch (16 x 1 = 16)"));
        QVERIFY(c.cost()->memory()->rowCount() > 0);
        QCOMPARE(c.cost()->comm()->rowCount(), 0);
        QCOMPARE(c.cost()->comm()->stepText(), QString());
        QVERIFY(c.cost()->rankingText().startsWith(QStringLiteral("world 16, 24 sequences a step: 15 layouts, ")));
        const RankedLayoutsModel& ranking = *c.cost()->ranking();
        // Ranked layouts have a dp dividing 24; dp 16 is excluded with the reason (its 5 values of ep).
        int batch_excluded = 0;
        for (int row = 0; row < ranking.rowCount(); ++row) {
            const int dp = role(ranking, row, RankedLayoutsModel::DpRole).toInt();
            if (role(ranking, row, RankedLayoutsModel::FitsRole).toBool()) QCOMPARE(24 % dp, 0);
            if (dp == 16) {
                QCOMPARE(
                    role(ranking, row, RankedLayoutsModel::ReasonRole).toString(),
                    QStringLiteral("global batch of 24 sequences is not a multiple of dp x micro-batch (16 x 1 = 16)"));
                ++batch_excluded;
            }
        }
        QCOMPARE(batch_excluded, 5);

        c.form()->setCp(2);
        QCOMPARE(c.cost()->layoutProblem(), QString());
        QVERIFY2(c.cost()->comm()->stepText().endsWith(QStringLiteral(" · grad-accum 3")),
                 qPrintable(c.cost()->comm()->stepText()));

        c.costForm()->setGlobalBatch(-1);
        QCOMPARE(c.costForm()->errorText(), QStringLiteral("global_batch must be at least 0, got -1."));
        QVERIFY(!c.cost()->shown());
        c.costForm()->setGlobalBatch(0);
        QVERIFY(c.cost()->rankingText().startsWith(QStringLiteral("world 16, 16 sequences a step: ")));
    }

    // Saved with the plan under planner/cost/; only a set core accepts comes back.
    void settings_remember_the_inputs() {
        QTemporaryDir dir;
        const QString ini = dir.filePath(QStringLiteral("s.ini"));
        {
            PlanController c;
            c.costForm()->setModel(QStringLiteral("deepseek-v3"));
            c.costForm()->setHardware(QStringLiteral("b200"));
            c.costForm()->setNetwork(QStringLiteral("hdr"));
            c.costForm()->setSeq(8192);
            c.costForm()->setMicroBatch(2);
            c.costForm()->setGradAccum(4);
            c.costForm()->setGlobalBatch(512);
            c.costForm()->setRecompute(QStringLiteral("full"));
            QSettings settings(ini, QSettings::IniFormat);
            c.save(settings);
        }
        {
            PlanController c;
            QSettings settings(ini, QSettings::IniFormat);
            c.restore(settings);
            QCOMPARE(c.costForm()->model(), QStringLiteral("deepseek-v3"));
            QCOMPARE(c.costForm()->hardware(), QStringLiteral("b200"));
            QCOMPARE(c.costForm()->network(), QStringLiteral("hdr"));
            QCOMPARE(c.costForm()->seq(), 8192);
            QCOMPARE(c.costForm()->microBatch(), 2);
            QCOMPARE(c.costForm()->gradAccum(), 4);
            QCOMPARE(c.costForm()->globalBatch(), 512);
            QCOMPARE(c.costForm()->recompute(), QStringLiteral("full"));
            QVERIFY(c.cost()->shown());
        }
        {
            QSettings broken(ini, QSettings::IniFormat);
            broken.setValue(QStringLiteral("planner/cost/seq"), 0);
            broken.sync();
            PlanController c;
            QCOMPARE(c.costForm()->restore(broken), false);
            QCOMPARE(c.costForm()->model(), QStringLiteral("none"));
            QCOMPARE(c.costForm()->seq(), 4096);
        }
    }

    // The constants the Cost panel shows: the profile's where it applies (bold, "cluster profile FILE: basis"), the
    // preset where the profile left one, and on another GPU every preset with why the profile is not used.
    void cluster_constants() {
        PlanController c;
        ClusterConstantsModel& constants = *c.cost()->constants();
        QAbstractItemModelTester tester(&constants, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(constants.rowCount(), 0);
        c.costForm()->setClusterProfile(h200_profile());
        c.costForm()->setHardware(QStringLiteral("h200"));
        c.costForm()->setModel(QStringLiteral("qwen3-30b-a3b"));
        QCOMPARE(constants.rowCount(), 3);
        QCOMPARE(constants.clusterProfileText(), QStringLiteral("cluster profile cluster.json"));
        const QStringList labels{"compute calibration", "NVLink bandwidth", "network bandwidth"};
        const QStringList values{"0.41", "300 GB/s", "50 GB/s"};
        const QList<bool> fitted{true, true, false};
        const QStringList sources{"cluster profile cluster.json: step time of dp 8, cp 1, ep 8 from train.log",
                                  "cluster profile cluster.json: 3 intra-node collective records from nccl.log",
                                  "preset: ndr preset"};
        for (int row = 0; row < 3; ++row) {
            QCOMPARE(role(constants, row, ClusterConstantsModel::LabelRole).toString(), labels[row]);
            QCOMPARE(role(constants, row, ClusterConstantsModel::ValueTextRole).toString(), values[row]);
            QCOMPARE(role(constants, row, ClusterConstantsModel::FromClusterProfileRole).toBool(), fitted[row]);
            QCOMPARE(role(constants, row, ClusterConstantsModel::SourceTextRole).toString(), sources[row]);
            QCOMPARE(role(constants, row, ClusterConstantsModel::SourceNameRole).toString(),
                     fitted[row] ? QStringLiteral("cluster profile") : QStringLiteral("preset"));
        }
        QVERIFY(c.cost()->clusterText().contains(QStringLiteral("NVLink 300 GB/s")));

        c.costForm()->setHardware(QStringLiteral("h100"));
        QCOMPARE(constants.clusterProfileText(), QStringLiteral("cluster profile cluster.json not used: the cluster "
                                                                "profile was fitted on h200; the cluster is h100"));
        QCOMPARE(role(constants, 0, ClusterConstantsModel::ValueTextRole).toString(), QStringLiteral("0.6"));
        QCOMPARE(role(constants, 1, ClusterConstantsModel::ValueTextRole).toString(), QStringLiteral("450 GB/s"));
        for (int row = 0; row < 3; ++row) {
            QVERIFY(!role(constants, row, ClusterConstantsModel::FromClusterProfileRole).toBool());
            QCOMPARE(role(constants, row, ClusterConstantsModel::SourceRole).toString(), QStringLiteral("preset"));
        }
        QCOMPARE(role(constants, 1, ClusterConstantsModel::SourceTextRole).toString(),
                 QStringLiteral("preset: h100 preset"));
        c.costForm()->setModel(CostForm::no_model);
        QCOMPARE(constants.rowCount(), 0);
    }

    // What the Cost panel's delegates read the constants by, the list's label, and when `count` and the profile's
    // text tell QML they changed: a number of rows that changes (0 -> 3 -> 0) tells `count`, the same three rows
    // from another source (h200 -> h100: the presets) tell the constants only.
    void cluster_constants_roles_and_signals() {
        PlanController c;
        ClusterConstantsModel& constants = *c.cost()->constants();
        const QHash<int, QByteArray> names{{ClusterConstantsModel::NameRole, "name"},
                                           {ClusterConstantsModel::LabelRole, "label"},
                                           {ClusterConstantsModel::ValueTextRole, "valueText"},
                                           {ClusterConstantsModel::SourceRole, "source"},
                                           {ClusterConstantsModel::FromClusterProfileRole, "fromClusterProfile"},
                                           {ClusterConstantsModel::SourceTextRole, "sourceText"},
                                           {ClusterConstantsModel::SourceNameRole, "sourceName"}};
        QCOMPARE(constants.roleNames(), names);
        QSignalSpy count(&constants, &ClusterConstantsModel::countChanged);
        QSignalSpy text(&constants, &ClusterConstantsModel::constantsChanged);
        c.costForm()->setClusterProfile(h200_profile());
        c.costForm()->setHardware(QStringLiteral("h200"));
        c.costForm()->setModel(QStringLiteral("qwen3-30b-a3b"));
        QCOMPARE(constants.property("count").toInt(), 3);
        QCOMPARE(count.count(), 1);
        QVERIFY(text.count() >= 1);
        const QStringList keys{"calibration", "intra_node_gbps", "inter_node_gbps"};
        for (int row = 0; row < 3; ++row) {
            QCOMPARE(role(constants, row, ClusterConstantsModel::NameRole).toString(), keys[row]);
            QCOMPARE(role(constants, row, Qt::DisplayRole), role(constants, row, ClusterConstantsModel::LabelRole));
        }
        QCOMPARE(role(constants, 0, ClusterConstantsModel::SourceRole).toString(), QStringLiteral("fitted"));
        count.clear();
        text.clear();
        c.costForm()->setHardware(QStringLiteral("h100"));
        QCOMPARE(count.count(), 0);
        QVERIFY(text.count() >= 1);
        c.costForm()->setModel(CostForm::no_model);
        QCOMPARE(constants.property("count").toInt(), 0);
        QCOMPARE(count.count(), 1);
        QCOMPARE(constants.clusterProfileText(), QString());
    }
};

QTEST_MAIN(TestCostPanel)
#include "tst_cost_panel.moc"
