// meshscope check through QProcess, like a user before a run: hand-written LlamaFactory v1 training YAMLs, the
// exit status (0 fine, 1 warnings, 2 errors), and the exact texts of LlamaFactory's and FSDPTurbo's own errors.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "cli_process.h"

namespace {
using Result = CliResult;

Result run(const QStringList& args) {
    return run_meshscope(QStringList{"check"} + args);
}

QString config(const char* name) {
    return QStringLiteral(COST_CONFIG_DIR) + "/" + name;
}
}  // namespace

class CheckCliTest : public QObject {
    Q_OBJECT
    QTemporaryDir dir;

    // A YAML file in the temporary folder; `MODEL` in the text becomes the folder holding Qwen3-30B-A3B's
    // config.json, as `model:` names a local checkpoint.
    QString yaml(const QString& name, QString text) {
        text.replace("MODEL", dir.filePath("qwen3-30b-a3b"));
        const QString path = dir.filePath(name);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly)) return {};
        file.write(text.toUtf8());
        return path;
    }

private slots:
    void initTestCase() {
        QVERIFY(dir.isValid());
        QVERIFY(QDir(dir.path()).mkdir("qwen3-30b-a3b"));
        QVERIFY(QFile::copy(config("qwen3-30b-a3b.json"), dir.filePath("qwen3-30b-a3b/config.json")));
    }

    // Qwen3-30B-A3B, ep 8 on 2 nodes of 8: dp 16 = world / cp; efsdp = 16 / 8 = 2, edp 1; the ep groups are
    // 8 consecutive ranks (one node), efsdp pairs ranks 8 apart (two nodes), dp spans both nodes.
    void explains_the_layout() {
        const auto path = yaml("good.yaml",
                               "model: MODEL\n"
                               "micro_batch_size: 1\n"
                               "global_batch_size: 64\n"
                               "cutoff_len: 4096\n"
                               "dist_config:\n"
                               "  name: fsdpturbo\n"
                               "  ep_size: 8\n");
        const auto r = run({path, "--nnodes", "2", "--nproc-per-node", "8", "--hardware", "h200"});
        QVERIFY2(r.exit_code == 0, qPrintable(r.out + r.err));
        QVERIFY(r.err.isEmpty());
        QVERIFY(r.out.startsWith("config: " + path + " on 2 nodes x 8 GPUs = world 16\n"));
        QVERIFY(
            r.out.contains("\nlayout: dp 16 x cp 1 = world 16; ep 8, efsdp 2, edp 1 (edp is 1 whenever ep "
                           "divides dp; experts are split over ep and sharded over efsdp)\n"));
        QVERIFY(r.out.contains("\n  data.dp (size 16): leaves its node, across 2 nodes\n"));
        QVERIFY(r.out.contains("\n  expert.efsdp (size 2): leaves its node, across 2 nodes\n"));
        QVERIFY(r.out.contains("\n  expert.ep (size 8): inside a node\n"));
        QVERIFY(r.out.contains("\nmodel: " + dir.filePath("qwen3-30b-a3b/config.json") + " (model_type qwen3_moe)\n"));
        QVERIFY(r.out.contains("\nFSDPTurbo has an EP spec for qwen3_moe: model.layers.{*}.mlp.experts\n"));
        // LlamaFactory v1 turns activation checkpointing on unless the YAML says otherwise.
        QVERIFY(
            r.out.contains("\ntraining: seq 4096 (cutoff_len), micro-batch 1, global batch 64 sequences, recompute "
                           "full (enable_activation_checkpointing)\n"));
        QVERIFY(r.out.contains("\nmemory: "));
        // 64 sequences over dp 16 with one per micro-batch: 4 micro-batches.
        QVERIFY(r.out.contains(", grad-accum 4, "));
        // All is well: no warning, no error, exit 0. At 64 sequences on 16 GPUs nothing is 10% faster.
        QVERIFY(r.out.endsWith("\nno layout is 10% faster at this global batch\n"));
        QVERIFY(!r.out.contains("warning: "));
        QVERIFY(!r.out.contains("error: "));
    }

    // Where the YAML is silent the step uses LlamaFactory's defaults, and says which: cutoff_len 2048, the global batch
    // dp x micro_batch_size (16 x 1), and no recomputation when checkpointing is turned off.
    void names_the_defaults() {
        const auto path = yaml(
            "defaults.yaml",
            "model: MODEL\nenable_activation_checkpointing: false\ndist_config:\n  name: fsdpturbo\n  ep_size: 8\n");
        const auto r = run({path, "--nnodes", "2", "--nproc-per-node", "8", "--hardware", "h200"});
        QVERIFY2(r.out.contains("\ntraining: seq 2048 (cutoff_len's default), micro-batch 1, global batch 16 sequences "
                                "(dp x micro_batch_size, LlamaFactory's default), recompute none\n"),
                 qPrintable(r.out));
        QVERIFY(r.out.contains(", grad-accum 1, "));
    }

    // LlamaFactory's and FSDPTurbo's errors, exactly as they raise them; exit 2.
    void seed_errors_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("error");
        const QStringList two_nodes{"--nnodes", "2", "--nproc-per-node", "8"};
        QTest::addRow("ep does not divide dp") << "model: MODEL\ndist_config:\n  name: fsdpturbo\n  ep_size: 3\n"
                                               << two_nodes << "dp_size must be divisible by ep_size, got 16 % 3 != 0.";
        QTest::addRow("ep zero") << "model: MODEL\ndist_config:\n  name: fsdpturbo\n  ep_size: 0\n"
                                 << two_nodes << "ep_size must be positive, got 0.";
        QTest::addRow("cp does not divide the world")
            << "model: MODEL\ncp_size: 3\ndist_config:\n  name: fsdpturbo\n"
            << two_nodes << "world_size (16) must be divisible by cp_size (3).";
        QTest::addRow("dp x cp is not the world")
            << "model: MODEL\ndp_size: 4\ncp_size: 2\ndist_config:\n  name: fsdpturbo\n"
            << two_nodes << "dp_size * cp_size must equal to world_size, got 4 * 2 != 16.";
        QTest::addRow("mp_replicate x mp_shard is not the world")
            << "model: MODEL\nmp_replicate_size: 2\nmp_shard_size: 4\ndist_config:\n  name: fsdpturbo\n"
            << two_nodes << "mp_replicate_size * mp_shard_size must equal to world_size, got 2 * 4 != 16.";
        QTest::addRow("mp_replicate does not divide the world")
            << "model: MODEL\nmp_replicate_size: 3\ndist_config:\n  name: fsdpturbo\n"
            << two_nodes << "world_size (16) must be divisible by mp_replicate_size (3).";
        QTest::addRow("experts not divisible by ep")
            << "model: MODEL\ndist_config:\n  name: fsdpturbo\n  ep_size: 256\n"
            << QStringList{"--nnodes", "32", "--nproc-per-node", "8"}
            << "num_experts must be divisible by ep_size, got 128 % 256 != 0.";
        QTest::addRow("heads not divisible by cp") << "model: MODEL\ncp_size: 64\ndist_config:\n  name: fsdpturbo\n"
                                                   << QStringList{"--nnodes", "8", "--nproc-per-node", "8"}
                                                   << "num_attention_heads must be divisible by cp_size";
        QTest::addRow("topology inside dist_config")
            << "model: MODEL\ndist_config:\n  name: fsdpturbo\n  ep_size: 8\n  cp_size: 2\n"
            << two_nodes
            << "dist_config.cp_size: LlamaFactory rejects topology fields inside dist_config (Unknown params); put "
               "cp_size at the top level";
        QTest::addRow("global batch not divisible")
            << "model: MODEL\nglobal_batch_size: 100\ndist_config:\n  name: fsdpturbo\n  ep_size: 8\n"
            << two_nodes << "global batch of 100 sequences is not a multiple of dp x micro-batch (16 x 1 = 16)";
    }
    void seed_errors() {
        QFETCH(QString, text);
        QFETCH(QStringList, args);
        QFETCH(QString, error);
        const auto r = run(QStringList{yaml("seed.yaml", text)} + args);
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.out.contains("\nerror: " + error + "\n"), qPrintable(r.out));
    }

    // FSDPTurbo finds the expert modules of a model type it has a spec for; DeepSeek-V3 has none, so ep > 1 needs
    // dist_config.ep_modules (fsdpturbo.py's ValueError, exactly).
    void expert_parallel_spec() {
        const auto no_spec = yaml("deepseek.yaml",
                                  "model: deepseek-ai/DeepSeek-V3\ndist_config:\n  name: fsdpturbo\n"
                                  "  ep_size: 8\n");
        const QStringList args{"--nnodes", "32", "--nproc-per-node", "8", "--model-config", config("deepseek-v3.json")};
        auto r = run(QStringList{no_spec} + args);
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.out.contains("\nerror: `ep_modules` is not specified and no FSDPTurbo EP spec is registered for "
                                "model_type=deepseek_v3.\n"),
                 qPrintable(r.out));
        const auto named = yaml("deepseek-modules.yaml",
                                "model: deepseek-ai/DeepSeek-V3\ndist_config:\n  name: fsdpturbo\n  ep_size: 8\n"
                                "  ep_modules: [model.layers.{*}.mlp.experts]\n");
        r = run(QStringList{named} + args);
        QVERIFY(!r.out.contains("ep_modules"));
    }

    // Qwen3-235B-A22B on one node of 8 H100: 235B parameters at 16 bytes over 8 GPUs is 470 GB a GPU alone.
    void memory_does_not_fit() {
        const auto path =
            yaml("big.yaml", "model: Qwen/Qwen3-235B-A22B\ndist_config:\n  name: fsdpturbo\n  ep_size: 8\n");
        const auto r = run({path, "--nnodes", "1", "--nproc-per-node", "8"});
        QCOMPARE(r.exit_code, 2);
        QVERIFY(r.out.contains("\nmodel: preset qwen3-235b-a22b (model_type qwen3_moe)\n"));
        QVERIFY2(r.out.contains("\nerror: does not fit: needs "), qPrintable(r.out));
        QVERIFY(r.out.contains(" GiB per GPU; 72.0 GiB usable (80 GiB less the 10% reserve)\n"));
    }

    // Warnings alone: exit 1.
    void warnings_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("warning");
        QTest::addRow("no dist_config") << "model: MODEL\n"
                                        << "no dist_config: LlamaFactory does not use FSDPTurbo, so there is no expert "
                                           "parallelism";
        QTest::addRow("ep under fsdp2") << "model: MODEL\ndist_config:\n  name: fsdp2\n  ep_size: 8\n"
                                        << "dist_config.name is 'fsdp2', not 'fsdpturbo': ep_size 8 is FSDPTurbo's and "
                                           "has no effect";
        QTest::addRow("model unknown") << "model: someone/some-model\ndist_config:\n  name: fsdpturbo\n"
                                       << "model 'someone/some-model' is not a local folder with config.json nor a "
                                          "known model: give --model-config FILE to check experts, heads and memory";
    }
    void warnings() {
        QFETCH(QString, text);
        QFETCH(QString, warning);
        const auto r = run({yaml("warn.yaml", text), "--nnodes", "1", "--nproc-per-node", "8", "--hardware", "h200"});
        QCOMPARE(r.exit_code, 1);
        QVERIFY2(r.out.contains("warning: " + warning + "\n"), qPrintable(r.out));
        QVERIFY(!r.out.contains("error: "));
    }

    // A layout at least 10% faster is named with the settings that give it. cp 2 without expert parallelism on 2
    // nodes of 8: every expert stays under the outer FSDP2 and is gathered across both nodes for each of the 4
    // micro-batches, where cp 1 with ep 8 gathers no routed expert outside its node.
    void names_a_faster_layout() {
        const auto path = yaml("slow.yaml",
                               "model: MODEL\ncp_size: 2\nglobal_batch_size: 32\ncutoff_len: 4096\ndist_config:\n"
                               "  name: fsdpturbo\n");
        const auto r = run({path, "--nnodes", "2", "--nproc-per-node", "8", "--hardware", "h200"});
        QCOMPARE(r.exit_code, 1);
        QVERIFY2(r.out.contains("\nwarning: dp 16, cp 1, ep "), qPrintable(r.out));
        QVERIFY(r.out.contains(" faster at this global batch ("));
        QVERIFY(r.out.contains(" a step): set cp_size: 1 and dist_config.ep_size: "));
    }

    void usage_errors_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::addRow("missing file") << QStringList{"/nonexistent.yaml", "--nnodes", "1", "--nproc-per-node", "8"}
                                      << "cannot read config '/nonexistent.yaml': No such file or directory";
        QTest::addRow("no nnodes") << QStringList{"x.yaml", "--nproc-per-node", "8"} << "give --nnodes";
        QTest::addRow("no nproc") << QStringList{"x.yaml", "--nnodes", "1"} << "give --nproc-per-node";
        QTest::addRow("nnodes zero") << QStringList{"x.yaml", "--nnodes", "0", "--nproc-per-node", "8"}
                                     << "--nnodes must be positive, got 0.";
        QTest::addRow("nproc not a number") << QStringList{"x.yaml", "--nnodes", "1", "--nproc-per-node", "eight"}
                                            << "--nproc-per-node expects an integer, got 'eight'.";
        QTest::addRow("no config") << QStringList{"--nnodes", "1", "--nproc-per-node", "8"} << "CONFIG is required";
    }
    void usage_errors() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const auto r = run(args);
        QCOMPARE(r.exit_code, 2);
        QVERIFY(r.out.isEmpty());
        const auto lines = r.err.split('\n');
        QCOMPARE(lines.value(0), "meshscope check: " + message);
        QVERIFY(lines.value(1).startsWith("hint: meshscope check CONFIG.yaml --nnodes N --nproc-per-node G"));
    }

    // A YAML that does not parse, or a field of the wrong type: exit 2 with the place.
    void bad_yaml() {
        auto r = run({yaml("broken.yaml", "model: [unclosed\n"), "--nnodes", "1", "--nproc-per-node", "8"});
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.err.startsWith("meshscope check: " + dir.filePath("broken.yaml") + " is not valid YAML (line "),
                 qPrintable(r.err));
        r = run(
            {yaml("typed.yaml", "model: MODEL\nmicro_batch_size: two\n"), "--nnodes", "1", "--nproc-per-node", "8"});
        QCOMPARE(r.exit_code, 2);
        QCOMPARE(r.err.split('\n').value(0), "meshscope check: " + dir.filePath("typed.yaml") +
                                                 ": micro_batch_size must be an integer, got 'two'.");
        r = run({yaml("zero.yaml", "model: MODEL\nglobal_batch_size: 0\n"), "--nnodes", "1", "--nproc-per-node", "8"});
        QCOMPARE(r.exit_code, 2);
        QCOMPARE(r.err.split('\n').value(0),
                 "meshscope check: " + dir.filePath("zero.yaml") + ": global_batch_size must be positive, got 0.");
        r = run({yaml("list.yaml", "- a\n- b\n"), "--nnodes", "1", "--nproc-per-node", "8"});
        QCOMPARE(r.exit_code, 2);
        QCOMPARE(r.err.split('\n').value(0), "meshscope check: " + dir.filePath("list.yaml") +
                                                 ": the config must be a YAML mapping of LlamaFactory arguments");
    }
};

QTEST_MAIN(CheckCliTest)
#include "tst_check_cli.moc"
