// The plan's exports (plan JSON, LlamaFactory YAML, torchrun) byte for byte, and a plan as a person asks for
// it: the exact rejection, the input to change, the CLI's hint and the values that fix it. Expected texts are
// worked out by hand from docs/plan-format.md and domain.md, not printed by the code under test.
#include <QTest>

#include "meshscope/mesh/plan_export.h"
#include "meshscope/mesh/plan_grid.h"
#include "meshscope/mesh/plan_request.h"
#include "plan_export_cases.h"
#include "test_support.h"

using namespace meshscope;

namespace {
Plan plan_of(std::int64_t world, std::int64_t cp, std::int64_t ep, std::int64_t gpus) {
    return Plan::make(Topology::from_world(world, cp, ep).value(), gpus).value();
}

QString text(std::string_view bytes) {
    return QString::fromUtf8(bytes.data(), static_cast<qsizetype>(bytes.size()));
}

PlanRequest request_of(std::optional<std::int64_t> dp, std::optional<std::int64_t> world, std::int64_t cp,
                       std::int64_t ep, std::int64_t gpus, CreationOrder order = CreationOrder::torch29) {
    PlanRequest r;
    r.dp = dp;
    r.world = world;
    r.cp = cp;
    r.ep = ep;
    r.gpus_per_node = gpus;
    r.order = order;
    return r;
}

std::optional<std::int64_t> none() {
    return std::nullopt;
}
}  // namespace

Q_DECLARE_METATYPE(std::optional<std::int64_t>)

class PlanExportTest : public QObject {
    Q_OBJECT
private slots:
    void plan_json_bytes() {
        namespace c = plan_export_cases;
        const Plan plan = plan_of(c::json_world, c::json_cp, c::json_ep, c::json_gpus_per_node);
        QCOMPARE(QString::fromStdString(plan_export(plan, PlanExportFormat::json)), text(c::json));
    }

    // LlamaFactory's model mesh goes top-level beside cp_size (its TrainingArguments), only when not the default.
    void yaml_with_a_model_mesh() {
        const Plan plan =
            Plan::make(Topology::from_world(16, 2, 4, ModelMeshSizes{2, std::nullopt}).value(), 8).value();
        QCOMPARE(QString::fromStdString(plan_export(plan, PlanExportFormat::yaml)),
                 QStringLiteral("# LlamaFactory v1, FSDPTurbo: world 16 = dp 8 x cp 2; expert mesh edp 1 x efsdp 2 x "
                                "ep 4 x expert_cp 2\n"
                                "cp_size: 2\n"
                                "mp_replicate_size: 2\n"
                                "mp_shard_size: 8\n"
                                "dist_config:\n"
                                "  name: fsdpturbo\n"
                                "  ep_size: 4\n"));
    }

    void text_exports_data() {
        QTest::addColumn<int>("index");
        for (std::size_t i = 0; i < plan_export_cases::text_cases.size(); ++i)
            QTest::addRow("%s", plan_export_cases::text_cases[i].name) << static_cast<int>(i);
    }
    void text_exports() {
        QFETCH(int, index);
        const auto& c = plan_export_cases::text_cases[static_cast<std::size_t>(index)];
        const Plan plan = plan_of(c.world, c.cp, c.ep, c.gpus_per_node);
        QCOMPARE(QString::fromStdString(plan_export(plan, PlanExportFormat::yaml)), text(c.yaml));
        QCOMPARE(QString::fromStdString(plan_export(plan, PlanExportFormat::torchrun)), text(c.torchrun));
    }

    void format_names() {
        QCOMPARE(parse_plan_export_format("json"), std::optional{PlanExportFormat::json});
        QCOMPARE(parse_plan_export_format("yaml"), std::optional{PlanExportFormat::yaml});
        QCOMPARE(parse_plan_export_format("torchrun"), std::optional{PlanExportFormat::torchrun});
        QVERIFY(!parse_plan_export_format("text"));
        QVERIFY(!parse_plan_export_format("JSON"));
        QVERIFY(!parse_plan_export_format(""));
        QCOMPARE(to_string(PlanExportFormat::torchrun), std::string_view("torchrun"));
    }

    // The desktop planner's layout (docs/planner.md): blocks, columns, rows per mesh.
    void grids_data() {
        QTest::addColumn<int>("world");
        QTest::addColumn<int>("cp");
        QTest::addColumn<int>("ep");
        QTest::addColumn<int>("gpus");
        QTest::addColumn<QString>("mesh");
        QTest::addColumn<Ints>("blocks_columns_rows");
        QTest::addRow("expert dp16 ep8") << 16 << 1 << 8 << 8 << "expert" << Ints{2, 8, 1};
        QTest::addRow("data dp16 ep8 wraps every ep") << 16 << 1 << 8 << 8 << "data" << Ints{2, 8, 1};
        QTest::addRow("expert dp8 cp2 ep2") << 16 << 2 << 2 << 8 << "expert" << Ints{4, 2, 2};
        QTest::addRow("ep 1: a node's worth of dp") << 32 << 2 << 1 << 8 << "data" << Ints{4, 4, 2};
        QTest::addRow("ep 1 asks for expert: data") << 32 << 2 << 1 << 8 << "expert" << Ints{4, 4, 2};
        QTest::addRow("ep 1, cp larger than a node") << 32 << 16 << 1 << 8 << "data" << Ints{2, 1, 16};
        QTest::addRow("ep 1, dp smaller than a node") << 3 << 1 << 1 << 8 << "data" << Ints{1, 3, 1};
        QTest::addRow("131072 ranks, ep 8 cp 2") << 131072 << 2 << 8 << 8 << "expert" << Ints{8192, 8, 2};
    }
    void grids() {
        QFETCH(int, world);
        QFETCH(int, cp);
        QFETCH(int, ep);
        QFETCH(int, gpus);
        QFETCH(QString, mesh);
        QFETCH(Ints, blocks_columns_rows);
        const PlanGrid grid = plan_grid(plan_of(world, cp, ep, gpus), mesh.toStdString());
        QCOMPARE((Ints{grid.blocks, grid.columns, grid.rows}), blocks_columns_rows);
    }

    void rejections_data() {
        QTest::addColumn<std::optional<std::int64_t>>("dp");
        QTest::addColumn<std::optional<std::int64_t>>("world");
        QTest::addColumn<int>("cp");
        QTest::addColumn<int>("ep");
        QTest::addColumn<int>("gpus");
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("hint");
        QTest::addColumn<Ints>("values");
        const QString general = "hint: dp (or world), cp and ep are positive integers, and ep must divide dp";
        QTest::addRow("ep 3 of dp 16") << std::optional<std::int64_t>{16} << none() << 1 << 3 << 8
                                       << "dp_size must be divisible by ep_size, got 16 % 3 != 0."
                                       << "ep"
                                       << "hint: ep must divide dp = 16; valid ep: 1, 2, 4, 8, 16"
                                       << Ints{1, 2, 4, 8, 16};
        QTest::addRow("ep 5 of world 24 cp 2")
            << none() << std::optional<std::int64_t>{24} << 2 << 5 << 8
            << "dp_size must be divisible by ep_size, got 12 % 5 != 0."
            << "ep"
            << "hint: ep must divide dp = 12; valid ep: 1, 2, 3, 4, 6, 12" << Ints{1, 2, 3, 4, 6, 12};
        QTest::addRow("ep 0") << std::optional<std::int64_t>{6} << none() << 1 << 0 << 8
                              << "ep_size must be positive, got 0."
                              << "ep"
                              << "hint: ep must divide dp = 6; valid ep: 1, 2, 3, 6" << Ints{1, 2, 3, 6};
        QTest::addRow("cp 3 of world 16")
            << none() << std::optional<std::int64_t>{16} << 3 << 1 << 8
            << "world_size (16) must be divisible by cp_size (3)."
            << "cp"
            << "hint: cp must divide world = 16; valid cp: 1, 2, 4, 8, 16" << Ints{1, 2, 4, 8, 16};
        QTest::addRow("cp 0 of world 12")
            << none() << std::optional<std::int64_t>{12} << 0 << 1 << 8 << "cp_size must be positive, got 0."
            << "cp"
            << "hint: cp must divide world = 12; valid cp: 1, 2, 3, 4, 6, 12" << Ints{1, 2, 3, 4, 6, 12};
        QTest::addRow("cp 0 with dp") << std::optional<std::int64_t>{8} << none() << 0 << 1 << 8
                                      << "cp_size must be positive, got 0."
                                      << "cp" << general << Ints{};
        QTest::addRow("dp 0") << std::optional<std::int64_t>{0} << none() << 1 << 1 << 8
                              << "dp_size must be positive, got 0."
                              << "dp" << general << Ints{8, 16};
        QTest::addRow("world -8 on nodes of 4")
            << none() << std::optional<std::int64_t>{-8} << 1 << 1 << 4 << "world_size must be positive, got -8."
            << "world" << general << Ints{4, 8};
        QTest::addRow("gpus 0") << std::optional<std::int64_t>{8} << none() << 1 << 1 << 0
                                << "gpus_per_node must be positive, got 0."
                                << "gpus_per_node"
                                << "hint: --gpus-per-node is a positive integer (8 on H100/H200 nodes)"
                                << Ints{8, 4, 2, 1};
        QTest::addRow("too big") << std::optional<std::int64_t>{1099511627776} << none() << 2 << 1 << 8
                                 << "world_size (1099511627776 * 2) exceeds the supported maximum of 1099511627776."
                                 << "dp"
                                 << "hint: the largest world meshscope plans is 1099511627776 ranks" << Ints{};
        QTest::addRow("dp and world disagree")
            << std::optional<std::int64_t>{8} << std::optional<std::int64_t>{32} << 2 << 2 << 8
            << "dp_size * cp_size must equal to world_size, got 8 * 2 != 32."
            << "world"
            << "hint: world = dp * cp; give dp or world, or make them agree" << Ints{16};
        QTest::addRow("neither dp nor world") << none() << none() << 1 << 1 << 8 << "give dp or world"
                                              << "dp" << general << Ints{};
    }
    void rejections() {
        QFETCH(std::optional<std::int64_t>, dp);
        QFETCH(std::optional<std::int64_t>, world);
        QFETCH(int, cp);
        QFETCH(int, ep);
        QFETCH(int, gpus);
        QFETCH(QString, message);
        QFETCH(QString, field);
        QFETCH(QString, hint);
        QFETCH(Ints, values);
        const PlanRequest request = request_of(dp, world, cp, ep, gpus);
        const auto plan = make_plan(request);
        QVERIFY(!plan);
        QCOMPARE(QString::fromStdString(plan.error().message()), message);
        QCOMPARE(plan.error().type(), ErrorType::value_error);
        const PlanAdvice advice = plan_advice(request, plan.error());
        QCOMPARE(QString::fromStdString(advice.field), field);
        QCOMPARE(QString::fromStdString(advice.hint), hint);
        QCOMPARE(test::show(advice.values), test::show(values));
    }

    void dp_and_world_that_agree_make_the_plan() {
        const auto plan = make_plan(request_of(8, 16, 2, 2, 8, CreationOrder::torch28));
        QVERIFY(plan);
        QCOMPARE(plan->topology().world(), std::int64_t{16});
        QCOMPARE(plan->order(), CreationOrder::torch28);
        QVERIFY(make_plan(request_of(std::nullopt, 16, 2, 2, 8)));
    }

    void integers_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("error");  // empty: accepted
        QTest::addColumn<qint64>("value");
        QTest::addRow("plain") << "16"
                               << "" << qint64{16};
        QTest::addRow("plus") << "+4"
                              << "" << qint64{4};
        QTest::addRow("negative") << "-3"
                                  << "" << qint64{-3};
        QTest::addRow("fraction") << "1.5"
                                  << "ep expects an integer, got '1.5'." << qint64{0};
        QTest::addRow("trailing") << "2x"
                                  << "ep expects an integer, got '2x'." << qint64{0};
        QTest::addRow("empty") << ""
                               << "ep expects an integer, got ''." << qint64{0};
        QTest::addRow("lone plus") << "+"
                                   << "ep expects an integer, got '+'." << qint64{0};
        QTest::addRow("space") << " 2"
                               << "ep expects an integer, got ' 2'." << qint64{0};
        QTest::addRow("overflow") << "99999999999999999999"
                                  << "ep is out of range, got '99999999999999999999'." << qint64{0};
    }
    void integers() {
        QFETCH(QString, text);
        QFETCH(QString, error);
        QFETCH(qint64, value);
        std::int64_t out = 0;
        const auto message = parse_plan_integer("ep", text.toStdString(), out);
        QCOMPARE(QString::fromStdString(message.value_or("")), error);
        if (error.isEmpty()) QCOMPARE(out, value);
    }
};

QTEST_GUILESS_MAIN(PlanExportTest)
#include "tst_plan_export.moc"
