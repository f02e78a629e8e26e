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

// LlamaFactory's own example YAMLs, one folder per version (tests/cli/llamafactory/README.md has the commits).
QString upstream(const QString& version, const QString& file) {
    return QStringLiteral(LLAMAFACTORY_EXAMPLES_DIR) + "/" + version + "/" + file;
}

// FSDPTurboParams' fields at f28afaf (plugins/trainer_plugins/distributed/interface.py lines 45-59), as
// BasePlugin.parse_params prints them: sorted(known) (utils/plugin.py lines 88-93).
const char* const turbo_expected =
    "Expected: ['dcp_path', 'ep_dispatcher', 'ep_size', 'fsdp_ignored_modules', 'fsdp_implementation', "
    "'hook_modules', 'name', 'offload_params', 'pin_memory', 'reshard_after_forward']";
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

    // GB200 NVL72: 4 hosts of 4 GPUs are inside one rack's 72-GPU NVLink domain, so every group of the same YAML
    // on 16 GPUs stays on NVLink, where 2 nodes of 8 H200 put dp and efsdp on the network.
    void gb200_groups_stay_inside_the_nvlink_domain() {
        const auto path = yaml("gb200.yaml",
                               "model: MODEL\n"
                               "micro_batch_size: 1\n"
                               "global_batch_size: 64\n"
                               "cutoff_len: 4096\n"
                               "dist_config:\n"
                               "  name: fsdpturbo\n"
                               "  ep_size: 8\n");
        const auto r = run({path, "--nnodes", "4", "--nproc-per-node", "4", "--hardware", "gb200"});
        // No error; exit 1 is the advisor's warning that a layout is faster (ep 16 stays on NVLink here too).
        QVERIFY2((r.exit_code == 0 || r.exit_code == 1) && !r.out.contains("error: ") && r.err.isEmpty(),
                 qPrintable(r.out + r.err));
        QVERIFY(r.out.startsWith("config: " + path + " on 4 nodes x 4 GPUs = world 16\n"));
        QVERIFY(r.out.contains("\n  data.dp (size 16): inside one NVLink domain of 72 GPUs\n"));
        QVERIFY(r.out.contains("\n  expert.efsdp (size 2): inside one NVLink domain of 72 GPUs\n"));
        QVERIFY(r.out.contains("\n  expert.ep (size 8): inside one NVLink domain of 72 GPUs\n"));
        QVERIFY2(r.out.contains("GiB usable (gb200)"), qPrintable(r.out));
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
        // The newest version parses dist_config strictly as FSDPTurboParams (interface.py line 108 at f28afaf ->
        // utils/plugin.py lines 88-93): cp_size is not one of its fields.
        QTest::addRow("topology inside dist_config")
            << "model: MODEL\ndist_config:\n  name: fsdpturbo\n  ep_size: 8\n  cp_size: 2\n"
            << two_nodes
            << QString("Unknown params for DistributedPlugin.FSDPTurboParams: ['cp_size']. ") + turbo_expected;
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

    // FSDPTurbo finds the expert modules of a model type it has a spec for; DeepSeek-V3 has none. The newest version
    // raises in prepare_model_ep (fsdpturbo.py lines 364-366 at f28afaf) and does not take ep_modules from the YAML
    // (not an FSDPTurboParams field); pull request #10676 at b8b6398 took them (fsdpturbo.py lines 315-323).
    void expert_parallel_spec() {
        const auto no_spec = yaml("deepseek.yaml",
                                  "model: deepseek-ai/DeepSeek-V3\ndist_config:\n  name: fsdpturbo\n"
                                  "  ep_size: 8\n");
        const QStringList args{"--nnodes", "32", "--nproc-per-node", "8", "--model-config", config("deepseek-v3.json")};
        auto r = run(QStringList{no_spec} + args);
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.out.contains("\nerror: No FSDPTurbo EP spec is registered for model_type=deepseek_v3.\n"),
                 qPrintable(r.out));
        r = run(QStringList{no_spec} + args + QStringList{"--llamafactory-version", "pr10676-b8b6398"});
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.out.contains("\nerror: `ep_modules` is not specified and no FSDPTurbo EP spec is registered for "
                                "model_type=deepseek_v3.\n"),
                 qPrintable(r.out));
        const auto named = yaml("deepseek-modules.yaml",
                                "model: deepseek-ai/DeepSeek-V3\ndist_config:\n  name: fsdpturbo\n  ep_size: 8\n"
                                "  ep_modules:\n    - model.layers.{*}.mlp.experts\n");
        r = run(QStringList{named} + args + QStringList{"--llamafactory-version", "pr10676-b8b6398"});
        QVERIFY2(!r.out.contains("ep_modules` is not specified"), qPrintable(r.out));
        r = run(QStringList{named} + args);
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.out.contains("\nerror: Unknown params for DistributedPlugin.FSDPTurboParams: ['ep_modules']. " +
                                QString(turbo_expected) + "\n"),
                 qPrintable(r.out));
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
        QTest::addColumn<QStringList>("version");
        QTest::addColumn<QString>("warning");
        QTest::addRow("no dist_config") << "model: MODEL\n"
                                        << QStringList{}
                                        << "no dist_config: LlamaFactory does not use FSDPTurbo, so there is no expert "
                                           "parallelism";
        // Where dist_config is a plain dict (pull request #10676 at b8b6398), ep_size under fsdp2 is read by the
        // DistributedStrategy (accelerator/interface.py line 182) but the fsdp2 engine never builds experts on it.
        QTest::addRow("ep under fsdp2") << "model: MODEL\ndist_config:\n  name: fsdp2\n  ep_size: 8\n"
                                        << QStringList{"--llamafactory-version", "pr10676-b8b6398"}
                                        << "dist_config.name is 'fsdp2', not 'fsdpturbo': ep_size 8 is FSDPTurbo's and "
                                           "has no effect";
        QTest::addRow("model unknown") << "model: someone/some-model\ndist_config:\n  name: fsdpturbo\n"
                                       << QStringList{}
                                       << "model 'someone/some-model' is not a local folder with config.json nor a "
                                          "known model: give --model-config FILE to check experts, heads and memory";
        // The dispatcher goes to FSDPTurbo unchanged (fsdpturbo.py line 374 at f28afaf); LlamaFactory's design doc
        // lists eager, fused, mc2 and domino.
        QTest::addRow("unknown dispatcher")
            << "model: MODEL\ndist_config:\n  name: fsdpturbo\n  ep_size: 8\n  ep_dispatcher: deepep\n"
            << QStringList{}
            << "dist_config.ep_dispatcher 'deepep' is not one FSDPTurbo documents (eager, fused, mc2, domino); "
               "LlamaFactory forwards it unchanged and FSDPTurbo decides";
        // A plain-dict dist_config ignores what the plugin does not read.
        QTest::addRow("key nobody reads") << "model: MODEL\ndist_config:\n  name: fsdpturbo\n  ep_size: 8\n"
                                             "  ep_sizes: 4\n"
                                          << QStringList{"--llamafactory-version", "pr10676-b8b6398"}
                                          << "dist_config.ep_sizes is not read by LlamaFactory pr10676-b8b6398's "
                                             "fsdpturbo plugin (a plain dict there: ignored)";
        QTest::addRow("ep_modules match nothing")
            << "model: MODEL\ndist_config:\n  name: fsdpturbo\n  ep_size: 8\n"
               "  ep_modules:\n    - model.language_model.layers.{*}.mlp.experts\n"
            << QStringList{"--llamafactory-version", "pr10676-b8b6398"}
            << "dist_config.ep_modules 'model.language_model.layers.{*}.mlp.experts' matches no module of qwen3_moe "
               "(its experts are model.layers.{*}.mlp.experts)";
    }
    void warnings() {
        QFETCH(QString, text);
        QFETCH(QStringList, version);
        QFETCH(QString, warning);
        const auto r =
            run(QStringList{yaml("warn.yaml", text), "--nnodes", "1", "--nproc-per-node", "8", "--hardware", "h200"} +
                version);
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

    // Every upstream example under its own version: LlamaFactory would run it, so no error. The dense models
    // (Qwen3-0.6B, Qwen3-4B, Qwen3.5-0.8B) are not presets: a warning, exit 1. Qwen3.5-35B-A3B is the preset;
    // /home/model/Qwen3.5-35B-A3B (pull request #10676's examples) names it by its folder.
    // Except where upstream itself refuses its example: pull request #10676's branch carries six examples with
    // `template: qwen3_nothink`, a field #10598 (b61140d) removed from ModelArguments (config/model_args.py at b8b6398
    // and c6437cb has custom_chat_template only), so HfArgumentParser.parse_dict (config/arg_parser.py line 52)
    // raises "Some keys are not used by the HfArgumentParser: ['template']" (main fixed the files in 3f77101).
    void upstream_examples_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("file");
        for (const QString version : {"2026-08-13", "pr10676-b8b6398", "pr10676-c6437cb", "0.9.5"}) {
            const QDir folder(QStringLiteral(LLAMAFACTORY_EXAMPLES_DIR) + "/" + version);
            const auto files = folder.entryList({"*.yaml"}, QDir::Files, QDir::Name);
            QVERIFY(files.size() >= 12);
            for (const auto& file : files)
                QTest::addRow("%s/%s", qPrintable(version), qPrintable(file)) << version << file;
        }
    }
    void upstream_examples() {
        QFETCH(QString, version);
        QFETCH(QString, file);
        const auto r = run({upstream(version, file), "--nnodes", "1", "--nproc-per-node", "16", "--hardware", "h200",
                            "--llamafactory-version", version});
        const QStringList with_template{"train_full_fsdp2_batching_normal.yaml",
                                        "train_full_fsdp2_dynamic_batching.yaml",
                                        "train_full_fsdp2_dynamic_padding_free.yaml",
                                        "train_full_fsdp2_padding_free.yaml",
                                        "train_full_liger_kernel.yaml",
                                        "train_lora_dpo.yaml"};
        if (version.startsWith("pr10676") && with_template.contains(file)) {
            QCOMPARE(r.exit_code, 2);
            QVERIFY2(r.out.contains("\nerror: Some keys are not used by the HfArgumentParser: ['template']\n"),
                     qPrintable(r.out));
            QCOMPARE(r.out.count("error: "), 1);
            return;
        }
        QVERIFY2(!r.out.contains("error: "), qPrintable(r.out));
        QVERIFY2(r.exit_code == 0 || r.exit_code == 1, qPrintable(r.out + r.err));
        QVERIFY(r.out.contains("\nllamafactory: " + version + " ("));
        if (file.contains("qwen3_moe")) {
            QVERIFY2(r.out.contains("\nmodel: preset qwen3.5-35b-a3b"), qPrintable(r.out));
            QVERIFY(r.out.contains("(model_type qwen3_5_moe)\n"));
            QVERIFY(r.out.contains("\nlayout: dp 16 x cp 1 = world 16; ep 16, efsdp 1, edp 1 "));
            QVERIFY(
                r.out.contains("\n  30 linear-attention (Gated DeltaNet) and 10 full-attention layers; the vision "
                               "tower is left out (model_class: llm)\n"));
            QVERIFY2(!r.out.contains("matches no module"), qPrintable(r.out));
            QVERIFY(r.out.contains("\nmemory: "));
        } else if (!file.contains("deepspeed")) {
            QCOMPARE(r.exit_code, 1);
            QVERIFY2(r.out.contains("\nwarning: model '"), qPrintable(r.out));
        }
    }

    // The same files under another version, which refuses them: the errors that version's code raises.
    void upstream_examples_across_versions_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("run_as");
        QTest::addColumn<QStringList>("errors");
        QTest::addColumn<QString>("hint");
        // The user's case: #10676's Qwen3.5 example (topology and the module lists in dist_config) under the merged
        // plugin, whose FSDPTurboParams (interface.py lines 45-59 at f28afaf) has none of cp_size, ep_modules,
        // ep_fsdp_modules, fsdp_modules, param_dtype, reduce_dtype, triton_ops; parse_params lists them sorted
        // (utils/plugin.py lines 88-93).
        QTest::addRow("fused smoke20 under the newest")
            << "pr10676-b8b6398"
            << "train_full_qwen3_moe_fsdpturbo_ep_fused_smoke20.yaml"
            << "2026-08-13"
            << QStringList{QString("Unknown params for DistributedPlugin.FSDPTurboParams: ['cp_size', "
                                   "'ep_fsdp_modules', 'ep_modules', 'fsdp_modules', 'param_dtype', 'reduce_dtype', "
                                   "'triton_ops']. ") +
                           turbo_expected}
            << "hint: LlamaFactory pr10676-b8b6398 (pull request #10676, 2026-07-22) reads dp_size, cp_size, cp_mode "
               "and mp_* inside dist_config; if that is the version you run, check with --llamafactory-version "
               "pr10676-b8b6398";
        // The merged example under #10676 at b8b6398: its TrainingArguments has no cp_size (config/training_args.py
        // there), so HfArgumentParser.parse_dict refuses it (config/arg_parser.py line 52; transformers'
        // hf_argparser.py: "Some keys are not used by the HfArgumentParser: {sorted(unused_keys)}"); its kernel_config
        // and the other keys are fields there. And that plugin's spec
        // registry has qwen3_moe alone (fsdpturbo.py lines 172-176), with no ep_modules in the YAML
        // (fsdpturbo.py lines 315-323).
        QTest::addRow("merged example under the pull request")
            << "2026-08-13" << "train_full_qwen3_moe_fsdpturbo_ep_fsdp.yaml" << "pr10676-b8b6398"
            << QStringList{"Some keys are not used by the HfArgumentParser: ['cp_size'] (LlamaFactory pr10676-b8b6398 "
                           "reads the mesh topology inside dist_config)",
                           "`ep_modules` is not specified and no FSDPTurbo EP spec is registered for "
                           "model_type=qwen3_5_moe."}
            << "hint: LlamaFactory 2026-08-13 (main (#10676 merged; same through ff6d4d1 of 2026-08-18), 2026-08-13) "
               "reads dp_size, cp_size, cp_mode and mp_* at the top level; if that is the version you run, check with "
               "--llamafactory-version 2026-08-13";
        // v0.9.5's Ulysses example (cp_size and cp_mode in dist_config) under the newest: FSDP2Params
        // (interface.py lines 36-42 at f28afaf) has neither.
        QTest::addRow("0.9.5 ulysses under the newest")
            << "0.9.5" << "train_full_ulysses_cp.yaml" << "2026-08-13"
            << QStringList{"Unknown params for DistributedPlugin.FSDP2Params: ['cp_mode', 'cp_size']. Expected: "
                           "['dcp_path', 'name', 'offload_params', 'pin_memory', 'reshard_after_forward']"}
            << "hint: LlamaFactory pr10676-b8b6398";
        // And the newest Ulysses example under v0.9.5, whose TrainingArguments has neither at the top level.
        QTest::addRow("newest ulysses under 0.9.5")
            << "2026-08-13" << "train_full_ulysses_cp.yaml" << "0.9.5"
            << QStringList{"Some keys are not used by the HfArgumentParser: ['cp_mode', 'cp_size'] (LlamaFactory "
                           "0.9.5 reads the mesh topology inside dist_config)"}
            << "hint: LlamaFactory 2026-08-13";
        // The MindSpeed-named plugin of #10676's first commits is registered nowhere else: BasePlugin._resolve
        // (utils/plugin.py line 102 at f28afaf).
        QTest::addRow("mindspeed under the newest")
            << "pr10676-c6437cb" << "train_full_qwen3_moe_mindspeed_ep_fsdp.yaml" << "2026-08-13"
            << QStringList{"Plugin 'mindspeed_fsdp2' is not registered under DistributedPlugin. (LlamaFactory "
                           "2026-08-13 registers fsdp2, fsdpturbo, deepspeed)"}
            << "";
    }
    void upstream_examples_across_versions() {
        QFETCH(QString, version);
        QFETCH(QString, file);
        QFETCH(QString, run_as);
        QFETCH(QStringList, errors);
        QFETCH(QString, hint);
        const auto r = run({upstream(version, file), "--nnodes", "1", "--nproc-per-node", "16", "--hardware", "h200",
                            "--llamafactory-version", run_as});
        QCOMPARE(r.exit_code, 2);
        for (const auto& error : errors) QVERIFY2(r.out.contains("\nerror: " + error + "\n"), qPrintable(r.out));
        if (!hint.isEmpty()) QVERIFY2(r.out.contains("\n" + hint), qPrintable(r.out));
    }

    // What each version checks itself: v0.9.5 has no world_size % cp_size check (accelerator/interface.py line 81
    // there: dp_size = world_size // cp_size), the newer ones raise their own text.
    void world_not_divisible_by_cp() {
        auto r = run({yaml("cp3.yaml", "model: MODEL\ndist_config:\n  name: fsdp2\n  cp_size: 3\n"), "--nnodes", "2",
                      "--nproc-per-node", "8", "--llamafactory-version", "v0.9.5"});
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.out.contains("\nerror: world_size (16) is not divisible by dist_config.cp_size (3): LlamaFactory "
                                "0.9.5 does not check it and sets dp_size = 5, so init_device_mesh fails on a (5, 3) "
                                "mesh of 16 ranks\n"),
                 qPrintable(r.out));
        r = run({yaml("cp3.yaml", "model: MODEL\ndist_config:\n  name: fsdp2\n  cp_size: 3\n"), "--nnodes", "2",
                 "--nproc-per-node", "8", "--llamafactory-version", "b8b6398"});
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.out.contains("\nerror: world_size (16) must be divisible by cp_size (3).\n"), qPrintable(r.out));
    }

    // DeepSpeed refuses context parallelism: base_trainer.py line 102 at f28afaf; hub.py line 111 at b8b6398.
    void deepspeed_refuses_cp() {
        auto r = run({yaml("ds.yaml",
                           "model: MODEL\ncp_size: 2\ndist_config:\n  name: deepspeed\n  config_file: "
                           "ds.json\n"),
                      "--nnodes", "1", "--nproc-per-node", "8"});
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.out.contains("\nerror: Context parallelism currently requires `dist_config.name: fsdp2`.\n"),
                 qPrintable(r.out));
        r = run({yaml("ds.yaml",
                      "model: MODEL\ndist_config:\n  name: deepspeed\n  cp_size: 2\n  config_file: "
                      "ds.json\n"),
                 "--nnodes", "1", "--nproc-per-node", "8", "--llamafactory-version", "pr10676-b8b6398"});
        QCOMPARE(r.exit_code, 2);
        QVERIFY2(r.out.contains("\nerror: CP currently requires `dist_config.name: fsdp2`.\n"), qPrintable(r.out));
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
        QTest::addRow("unknown version")
            << QStringList{QStringLiteral(LLAMAFACTORY_EXAMPLES_DIR) + "/2026-08-13/train_full_fsdp2.yaml",
                           "--nnodes",
                           "1",
                           "--nproc-per-node",
                           "8",
                           "--llamafactory-version",
                           "0.9.9"}
            << "unknown --llamafactory-version '0.9.9'; known: 2026-08-13, 2026-07-24, pr10676-b8b6398, "
               "pr10676-c6437cb, 0.9.5";
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
