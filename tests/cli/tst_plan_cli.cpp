// meshscope plan through QProcess, like a user: the JSON contract, the text summary, and for bad input
// exit status 2 with the exact message and a hint line on stderr (and nothing on stdout).
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include "cli_process.h"
#include "plan_export_cases.h"

namespace {
CliResult run_plan(const QStringList& args) {
    return run_meshscope(QStringList{"plan"} + args);
}

QJsonArray ints(std::initializer_list<int> values) {
    QJsonArray out;
    for (int v : values) out.append(v);
    return out;
}

QJsonArray range(int from, int to, int step = 1) {
    QJsonArray out;
    for (int v = from; v < to; v += step) out.append(v);
    return out;
}
}  // namespace

class PlanCliTest : public QObject {
    Q_OBJECT
private slots:
    // The example, field by field.
    void json_contract() {
        const auto r = run_plan({"--dp", "16", "--ep", "8", "--format", "json"});
        QCOMPARE(r.exit_code, 0);
        QVERIFY(r.err.isEmpty());
        QJsonParseError error;
        const auto doc = QJsonDocument::fromJson(r.out.toUtf8(), &error).object();
        QCOMPARE(error.error, QJsonParseError::NoError);
        QCOMPARE(doc["schema"].toString(), QStringLiteral("meshscope.plan/1"));
        const auto topology = doc["topology"].toObject();
        QCOMPARE(topology["world"].toInt(), 16);
        QCOMPARE(topology["dp"].toInt(), 16);
        QCOMPARE(topology["cp"].toInt(), 1);
        QCOMPARE(topology["ep"].toInt(), 8);
        QCOMPARE(topology["efsdp"].toInt(), 2);
        QCOMPARE(topology["edp"].toInt(), 1);
        QCOMPARE(topology["mp_replicate"].toInt(), 1);  // LlamaFactory's defaults (1, world)
        QCOMPARE(topology["mp_shard"].toInt(), 16);
        QCOMPARE(doc["cluster"].toObject()["gpus_per_node"].toInt(), 8);
        QCOMPARE(doc["cluster"].toObject()["nodes"].toInt(), 2);
        QCOMPARE(doc["creation_order"].toString(), QStringLiteral("torch29"));

        const auto meshes = doc["meshes"].toArray();
        QCOMPARE(meshes.size(), 3);
        const auto model = meshes[0].toObject();
        QCOMPARE(model["name"].toString(), QStringLiteral("model"));
        QCOMPARE(model["dim_names"].toArray(), (QJsonArray{"mp_replicate", "mp_shard"}));
        QCOMPARE(model["shape"].toArray(), ints({1, 16}));
        QCOMPARE(model["groups"].toObject()["mp_shard"].toArray(), QJsonArray{range(0, 16)});
        QCOMPARE(model["groups"].toObject()["mp_replicate"].toArray().size(), 16);
        const auto data = meshes[1].toObject();
        QCOMPARE(data["name"].toString(), QStringLiteral("data"));
        QCOMPARE(data["dim_names"].toArray(), (QJsonArray{"dp", "cp"}));
        QCOMPARE(data["shape"].toArray(), ints({16, 1}));
        QCOMPARE(data["groups"].toObject()["dp"].toArray(), QJsonArray{range(0, 16)});
        QCOMPARE(data["groups"].toObject()["cp"].toArray().size(), 16);
        QCOMPARE(data["groups"].toObject()["cp"].toArray()[15].toArray(), ints({15}));

        const auto expert = meshes[2].toObject();
        QCOMPARE(expert["name"].toString(), QStringLiteral("expert"));
        QCOMPARE(expert["dim_names"].toArray(), (QJsonArray{"edp", "efsdp", "ep", "expert_cp"}));
        QCOMPARE(expert["shape"].toArray(), ints({1, 2, 8, 1}));
        const auto groups = expert["groups"].toObject();
        QCOMPARE(groups["edp"].toArray().size(), 16);
        QCOMPARE(groups["efsdp"].toArray().size(), 8);
        for (int i = 0; i < 8; ++i) QCOMPARE(groups["efsdp"].toArray()[i].toArray(), ints({i, i + 8}));
        QCOMPARE(groups["ep"].toArray(), (QJsonArray{range(0, 8), range(8, 16)}));
        QCOMPARE(groups["expert_cp"].toArray().size(), 16);

        const auto ranks = doc["ranks"].toArray();
        QCOMPARE(ranks.size(), 16);
        for (int r = 0; r < 16; ++r) QCOMPARE(ranks[r].toObject()["rank"].toInt(), r);
        const auto r13 = ranks[13].toObject();
        QCOMPARE(r13["node"].toInt(), 1);
        QCOMPARE(r13["local_rank"].toInt(), 5);
        QCOMPARE(r13["coords"].toObject()["model"].toArray(), ints({0, 13}));
        QCOMPARE(r13["coords"].toObject()["data"].toArray(), ints({13, 0}));
        QCOMPARE(r13["coords"].toObject()["expert"].toArray(), ints({0, 1, 5, 0}));
        QCOMPARE(doc["warnings"].toArray(), QJsonArray{});
    }

    // The same checks across layouts and flags: groups per dim = world / size, every rank once.
    void json_shapes_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("meshes");
        QTest::addColumn<bool>("groups");
        QTest::addColumn<bool>("ranks");
        QTest::addColumn<QString>("warnings");
        // Meshes: model and data always, expert when ep > 1.
        QTest::addRow("dp8 cp2 ep2") << QStringList{"--dp", "8", "--cp", "2", "--ep", "2"} << 3 << true << true << "";
        QTest::addRow("world 16 cp 2 ep 2")
            << QStringList{"--world", "16", "--cp", "2", "--ep", "2"} << 3 << true << true << "";
        QTest::addRow("ep1: model and data meshes")
            << QStringList{"--dp", "6", "--cp", "2"} << 2 << true << true << "partial_node";
        QTest::addRow("ep16 crosses nodes")
            << QStringList{"--dp", "16", "--ep", "16"} << 3 << true << true << "ep_cross_node";
        QTest::addRow("4 GPUs per node") << QStringList{"--dp", "8", "--cp", "2", "--ep", "4", "--gpus-per-node", "4"}
                                         << 3 << true << true << "ep_cross_node";
        QTest::addRow("torch28") << QStringList{"--dp", "12", "--cp", "3", "--ep", "2", "--order", "torch28"} << 3
                                 << true << true << "cp_cross_node,ep_cross_node,expert_cp_cross_node,partial_node";
        QTest::addRow("no groups") << QStringList{"--dp", "16", "--ep", "8", "--no-groups"} << 3 << false << true << "";
        QTest::addRow("no ranks") << QStringList{"--dp", "16", "--ep", "8", "--no-ranks"} << 3 << true << false << "";
        QTest::addRow("bare") << QStringList{"--dp", "64", "--ep", "8", "--no-ranks", "--no-groups"} << 3 << false
                              << false << "";
        QTest::addRow("model mesh (4, 4)")
            << QStringList{"--world", "16", "--cp", "2", "--ep", "2", "--mp-replicate", "4", "--mp-shard", "4"} << 3
            << true << true << "";
    }
    void json_shapes() {
        QFETCH(QStringList, args);
        QFETCH(int, meshes);
        QFETCH(bool, groups);
        QFETCH(bool, ranks);
        QFETCH(QString, warnings);
        const auto r = run_plan(args + QStringList{"--format", "json"});
        QCOMPARE(r.exit_code, 0);
        const auto doc = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(doc["schema"].toString(), QStringLiteral("meshscope.plan/1"));
        const int world = doc["topology"].toObject()["world"].toInt();
        QCOMPARE(world, doc["topology"].toObject()["dp"].toInt() * doc["topology"].toObject()["cp"].toInt());
        QCOMPARE(doc["meshes"].toArray().size(), meshes);
        for (const auto& value : doc["meshes"].toArray()) {
            const auto mesh = value.toObject();
            const auto names = mesh["dim_names"].toArray();
            const auto shape = mesh["shape"].toArray();
            QCOMPARE(names.size(), shape.size());
            QCOMPARE(mesh.contains("groups"), groups);
            QVERIFY(mesh["spans"].isObject());
            if (!groups) continue;
            for (int d = 0; d < names.size(); ++d) {
                const auto list = mesh["groups"].toObject()[names[d].toString()].toArray();
                QCOMPARE(list.size(), world / shape[d].toInt());
                QList<int> seen(world, 0);
                for (const auto& g : list) {
                    QCOMPARE(g.toArray().size(), shape[d].toInt());
                    for (const auto& rank : g.toArray()) ++seen[rank.toInt()];
                }
                QVERIFY(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
            }
        }
        QCOMPARE(doc.contains("ranks"), ranks);
        if (ranks) QCOMPARE(doc["ranks"].toArray().size(), world);
        QStringList codes;
        for (const auto& w : doc["warnings"].toArray()) {
            codes << w.toObject()["code"].toString();
            QVERIFY(!w.toObject()["message"].toString().isEmpty());
        }
        QCOMPARE(codes.join(','), warnings);
    }

    void text_format() {
        const auto r = run_plan({"--dp", "8", "--cp", "2", "--ep", "2"});
        QCOMPARE(r.exit_code, 0);
        QVERIFY(r.err.isEmpty());
        const QString text = r.out;
        QVERIFY(
            text.startsWith("topology     (dp, cp, ep) = (8, 2, 2)  world 16 = dp 8 x cp 2\n"
                            "model mesh   mp_replicate 1 x mp_shard 16 (LlamaFactory's default: one shard group "
                            "over the world)\n"));
        QVERIFY(text.contains("expert mesh  edp 1 x efsdp 4 x ep 2 x expert_cp 2\n"));
        QVERIFY(text.contains("cluster      2 nodes x 8 GPUs per node\n"));
        QVERIFY(text.contains("order        torch29 (PyTorch >= 2.9)\n"));
        QVERIFY(text.contains("expert mesh (edp, efsdp, ep, expert_cp) shape (1, 4, 2, 2)\n"));
        QVERIFY(
            text.contains("  efsdp         size  4   4 groups  4 leave a node (up to 2 nodes)\n"
                          "    [0, 4, 8, 12] [1, 5, 9, 13] [2, 6, 10, 14] [3, 7, 11, 15]\n"));
        QVERIFY(
            text.contains("  ep            size  2   8 groups  each within one node\n"
                          "    [0, 2] [1, 3] [4, 6] [5, 7] ... 4 more\n"));
        QVERIFY(text.contains("model mesh (mp_replicate, mp_shard) shape (1, 16)\n"));
        QVERIFY(text.contains("rank  node  local  model   data   expert\n"));
        QVERIFY(text.contains("   5     0      5  [0,5]   [2,1]  [0,1,0,1]\n"));
        QVERIFY(text.endsWith("\nwarnings     none\n"));
        for (const auto& line : text.split('\n')) QVERIFY2(!line.endsWith(' '), qPrintable(line));
    }

    // `--mp-replicate`: the model mesh in the summary and as the first mesh, groups worked by hand
    // (rank = r * mp_shard + s).
    void text_model_mesh() {
        const auto r = run_plan({"--world", "16", "--mp-replicate", "2", "--no-ranks"});
        QCOMPARE(r.exit_code, 0);
        QVERIFY(r.err.isEmpty());
        const QString text = r.out;
        QVERIFY(text.contains("\nmodel mesh   mp_replicate 2 x mp_shard 8\n"));
        QVERIFY(
            text.contains("\nmodel mesh (mp_replicate, mp_shard) shape (2, 8)\n"
                          "  mp_replicate  size  2   8 groups  8 leave a node (up to 2 nodes)\n"
                          "    [0, 8] [1, 9] [2, 10] [3, 11] ... 4 more\n"
                          "  mp_shard      size  8   2 groups  each within one node\n"
                          "    [0, 1, 2, 3, 4, 5, 6, 7] [8, 9, 10, 11, 12, 13, 14, 15]\n"
                          "\ndata mesh (dp, cp)"));
        QVERIFY(text.indexOf("model mesh (") < text.indexOf("data mesh ("));
    }

    // Columns stay aligned when sizes have different widths; singular "group" for one group.
    void text_alignment() {
        const auto r = run_plan({"--world", "4096", "--ep", "8", "--no-groups", "--no-ranks", "--gpus-per-node", "4"});
        QCOMPARE(r.exit_code, 0);
        const QString text = r.out;
        QVERIFY(text.contains("  dp            size 4096     1 group   1 leaves a node (up to 1024 nodes)\n"));
        QVERIFY(text.contains("  cp            size    1  4096 groups  each within one node\n"));
        QVERIFY(text.contains("  efsdp         size  512     8 groups  8 leave a node (up to 512 nodes)\n"));
        QVERIFY(text.contains("(4096 ranks: per-rank table left out above 64 ranks; use --format json)") == false);
        QVERIFY(text.contains("warnings\n  ep_cross_node: ep groups span 2 nodes: the all-to-all leaves NVLink\n"));
        const auto long_groups = run_plan({"--dp", "32", "--ep", "32"}).out;
        QVERIFY(long_groups.contains("    [0, 1, 2, 3, 4, 5, ... 25 more ..., 31]\n"));
        const auto big = run_plan({"--dp", "128"}).out;
        QVERIFY(big.contains("(128 ranks: per-rank table left out above 64 ranks; use --format json)\n"));
        QVERIFY(big.contains("expert mesh  none (ep = 1: FSDPTurbo builds no expert mesh; efsdp = edp = 1)\n"));
    }

    void bad_input_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("hint");
        const QString usage =
            "hint: meshscope plan (--dp D | --world W) [--cp C] [--ep E] [--mp-replicate R [--mp-shard S]] "
            "[--gpus-per-node G] [--order torch29|torch28] [--format text|json|yaml|torchrun] [--no-groups] "
            "[--no-ranks]";
        const QString model_hint =
            "hint: mp_replicate must divide world = 16 (valid: 1, 2, 4, 8, 16) and mp_shard, "
            "if given, must be world / mp_replicate";
        // LlamaFactory's model mesh: its words, checked before the data mesh's and FSDPTurbo's.
        QTest::addRow("mp_replicate 3 of 16")
            << QStringList{"--world", "16", "--mp-replicate", "3"}
            << "world_size (16) must be divisible by mp_replicate_size (3)." << model_hint;
        QTest::addRow("mp product") << QStringList{"--dp", "8", "--cp", "2", "--mp-replicate", "2", "--mp-shard", "4"}
                                    << "mp_replicate_size * mp_shard_size must equal to world_size, got 2 * 4 != 16."
                                    << model_hint;
        QTest::addRow("mp_shard alone") << QStringList{"--world", "16", "--mp-shard", "8"}
                                        << "mp_replicate_size * mp_shard_size must equal to world_size, got 1 * 8 != "
                                           "16."
                                        << model_hint;
        QTest::addRow("mp before cp") << QStringList{"--world", "16", "--cp", "3", "--mp-replicate", "3"}
                                      << "world_size (16) must be divisible by mp_replicate_size (3)." << model_hint;
        QTest::addRow("mp_replicate 0") << QStringList{"--world", "16", "--mp-replicate", "0"}
                                        << "mp_replicate_size must be positive, got 0." << model_hint;
        QTest::addRow("mp_shard not a number") << QStringList{"--dp", "8", "--mp-shard", "x"}
                                               << "meshscope plan: --mp-shard expects an integer, got 'x'." << usage;
        QTest::addRow("ep 3 of 16") << QStringList{"--dp", "16", "--ep", "3"}
                                    << "dp_size must be divisible by ep_size, got 16 % 3 != 0."
                                    << "hint: ep must divide dp = 16; valid ep: 1, 2, 4, 8, 16";
        QTest::addRow("ep 0") << QStringList{"--dp", "16", "--ep", "0"} << "ep_size must be positive, got 0."
                              << "hint: ep must divide dp = 16; valid ep: 1, 2, 4, 8, 16";
        QTest::addRow("ep with world") << QStringList{"--world", "24", "--cp", "2", "--ep", "5"}
                                       << "dp_size must be divisible by ep_size, got 12 % 5 != 0."
                                       << "hint: ep must divide dp = 12; valid ep: 1, 2, 3, 4, 6, 12";
        QTest::addRow("cp 3 of world 16")
            << QStringList{"--world", "16", "--cp", "3"} << "world_size (16) must be divisible by cp_size (3)."
            << "hint: cp must divide world = 16; valid cp: 1, 2, 4, 8, 16";
        QTest::addRow("cp 0") << QStringList{"--world", "16", "--cp", "0"} << "cp_size must be positive, got 0."
                              << "hint: cp must divide world = 16; valid cp: 1, 2, 4, 8, 16";
        QTest::addRow("dp 0") << QStringList{"--dp", "0"} << "dp_size must be positive, got 0."
                              << "hint: dp (or world), cp and ep are positive integers, and ep must divide dp";
        QTest::addRow("world -8") << QStringList{"--world", "-8"} << "world_size must be positive, got -8."
                                  << "hint: dp (or world), cp and ep are positive integers, and ep must divide dp";
        QTest::addRow("gpus 0") << QStringList{"--dp", "8", "--gpus-per-node", "0"}
                                << "gpus_per_node must be positive, got 0."
                                << "hint: --gpus-per-node is a positive integer (8 on H100/H200 nodes)";
        QTest::addRow("too big") << QStringList{"--dp", "1099511627776", "--cp", "2"}
                                 << "world_size (1099511627776 * 2) exceeds the supported maximum of 1099511627776."
                                 << "hint: the largest world meshscope plans is 1099511627776 ranks";
        QTest::addRow("dp not a number") << QStringList{"--dp", "abc"}
                                         << "meshscope plan: --dp expects an integer, got 'abc'." << usage;
        QTest::addRow("ep trailing text")
            << QStringList{"--dp", "16", "--ep", "2x"} << "meshscope plan: --ep expects an integer, got '2x'." << usage;
        QTest::addRow("cp fraction") << QStringList{"--dp", "16", "--cp", "1.5"}
                                     << "meshscope plan: --cp expects an integer, got '1.5'." << usage;
        QTest::addRow("empty world") << QStringList{"--world", ""}
                                     << "meshscope plan: --world expects an integer, got ''." << usage;
        QTest::addRow("overflow") << QStringList{"--dp", "99999999999999999999"}
                                  << "meshscope plan: --dp is out of range, got '99999999999999999999'." << usage;
        QTest::addRow("unknown flag") << QStringList{"--dp", "8", "--tp", "2"}
                                      << "meshscope plan: The following arguments were not expected: 2 --tp" << usage;
        QTest::addRow("stray word") << QStringList{"--dp", "8", "extra"}
                                    << "meshscope plan: The following argument was not expected: extra" << usage;
        QTest::addRow("dp with world") << QStringList{"--dp", "8", "--world", "16"}
                                       << "meshscope plan: --dp excludes --world" << usage;
        QTest::addRow("neither dp nor world")
            << QStringList{"--ep", "2"} << "meshscope plan: give --dp or --world" << usage;
        QTest::addRow("dp without value")
            << QStringList{"--dp"} << "meshscope plan: --dp: 1 required INT missing" << usage;
        QTest::addRow("bad order") << QStringList{"--dp", "8", "--order", "torch27"}
                                   << "meshscope plan: --order: torch27 not in {torch29,torch28}" << usage;
        QTest::addRow("bad format") << QStringList{"--dp", "8", "--format", "xml"}
                                    << "meshscope plan: --format: xml not in {text,json,yaml,torchrun}" << usage;
        QTest::addRow("bad input, yaml") << QStringList{"--dp", "16", "--ep", "3", "--format", "yaml"}
                                         << "dp_size must be divisible by ep_size, got 16 % 3 != 0."
                                         << "hint: ep must divide dp = 16; valid ep: 1, 2, 4, 8, 16";
    }
    void bad_input() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        QFETCH(QString, hint);
        const auto r = run_plan(args);
        QCOMPARE(r.exit_code, 2);
        QCOMPARE(r.err, message + "\n" + hint + "\n");
        QVERIFY(r.out.isEmpty());
    }

    // --format json|yaml|torchrun print exactly the exports' bytes (hand-worked in plan_export_cases.h, which
    // core, the collector and the desktop planner are compared to as well).
    void exports_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QByteArray>("expected");
        namespace c = plan_export_cases;
        const auto bytes = [](std::string_view text) { return QByteArray(text.data(), qsizetype(text.size())); };
        QTest::addRow("json") << QStringList{"--world",
                                             QString::number(c::json_world),
                                             "--ep",
                                             QString::number(c::json_ep),
                                             "--gpus-per-node",
                                             QString::number(c::json_gpus_per_node),
                                             "--format",
                                             "json"}
                              << bytes(c::json);
        for (const auto& e : c::text_cases) {
            const QStringList plan{"--world",
                                   QString::number(e.world),
                                   "--cp",
                                   QString::number(e.cp),
                                   "--ep",
                                   QString::number(e.ep),
                                   "--gpus-per-node",
                                   QString::number(e.gpus_per_node)};
            QTest::addRow("yaml: %s", e.name) << plan + QStringList{"--format", "yaml"} << bytes(e.yaml);
            QTest::addRow("torchrun: %s", e.name) << plan + QStringList{"--format", "torchrun"} << bytes(e.torchrun);
        }
        // The exports are whole documents: --no-groups and --no-ranks only trim the json and text formats.
        QTest::addRow("yaml ignores --no-groups")
            << QStringList{"--dp", "8", "--cp", "2", "--ep", "2", "--no-groups", "--no-ranks", "--format", "yaml"}
            << bytes(c::text_cases[0].yaml);
    }
    void exports() {
        QFETCH(QStringList, args);
        QFETCH(QByteArray, expected);
        const auto r = run_plan(args);
        QCOMPARE(r.exit_code, 0);
        QVERIFY(r.err.isEmpty());
        QCOMPARE(r.out, QString::fromUtf8(expected));
    }

    void help() {
        const auto r = run_plan({"--help"});
        QCOMPARE(r.exit_code, 0);
        for (const char* flag : {"--dp", "--world", "--cp", "--ep", "--mp-replicate", "--mp-shard", "--gpus-per-node",
                                 "--order", "--format", "--no-groups", "--no-ranks"})
            QVERIFY2(r.out.contains(flag), flag);
    }

    // 2^20 ranks without per-rank or per-group output (its speed is bench/core's and docs/benchmarks.md's).
    void huge_world_summary_data() {
        QTest::addColumn<QString>("format");
        QTest::addRow("text") << "text";
        QTest::addRow("json") << "json";
    }
    void huge_world_summary() {
        QFETCH(QString, format);
        const auto r = run_plan({"--world", "1048576", "--ep", "8", "--no-groups", "--no-ranks", "--format", format});
        QCOMPARE(r.exit_code, 0);
        QVERIFY2(r.out.size() < 4096, QByteArray::number(r.out.size()));
        if (format == "json") {
            const auto doc = QJsonDocument::fromJson(r.out.toUtf8()).object();
            QCOMPARE(doc["topology"].toObject()["world"].toInt(), 1048576);
            QCOMPARE(doc["topology"].toObject()["efsdp"].toInt(), 131072);
            QCOMPARE(doc["cluster"].toObject()["nodes"].toInt(), 131072);
            const auto spans = doc["meshes"].toArray()[2].toObject()["spans"].toObject();
            QCOMPARE(spans["ep"].toObject()["groups"].toInt(), 131072);
            QCOMPARE(spans["ep"].toObject()["cross_node_groups"].toInt(), 0);
            QCOMPARE(spans["efsdp"].toObject()["max_nodes"].toInt(), 131072);
        }
    }
};

QTEST_GUILESS_MAIN(PlanCliTest)
#include "tst_plan_cli.moc"
