// meshscope advise (and meshscope plan --model) through QProcess, like a user: the meshscope.advice/1 contract,
// the text ranking, and for bad input exit status 2 with the exact message and a hint line on stderr.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include "cli_process.h"

namespace {
CliResult run(const QStringList& args) {
    return run_meshscope(args);
}

QJsonObject json_of(const CliResult& r) {
    QJsonParseError error;
    const auto doc = QJsonDocument::fromJson(r.out.toUtf8(), &error);
    if (error.error != QJsonParseError::NoError) qWarning() << error.errorString();
    return doc.object();
}

const QStringList qwen64{"advise", "--model", "qwen3-30b-a3b", "--world", "64", "--hardware", "h200"};
}  // namespace

class AdviseCliTest : public QObject {
    Q_OBJECT
private slots:
    // A framework's recompute name is accepted and printed as the mode it maps to. NeMo AutoModel ran Qwen3-30B-A3B
    // on 8 H100 80GB at FSDP 8, EP 8, micro-batch 4, global batch 512 with activation_checkpointing: true
    // (docs/cost-model-calibration.md, M1): that layout is ranked, not excluded for memory.
    void framework_recompute_names() {
        const auto r = run(QStringList{"advise", "--model", "qwen3-30b-a3b", "--world", "8", "--hardware", "h100",
                                       "--global-batch", "512", "--micro-batch", "4", "--recompute", "automodel-full",
                                       "--format", "json"});
        QCOMPARE(r.exit_code, 0);
        const auto doc = json_of(r);
        QCOMPARE(doc["training"].toObject()["recompute"].toString(), QStringLiteral("full"));
        bool ranked = false;
        for (const auto& entry : doc["ranked"].toArray()) {
            const auto layout = entry.toObject();
            if (layout["dp"].toInt() == 8 && layout["cp"].toInt() == 1 && layout["ep"].toInt() == 8) {
                ranked = true;
                QVERIFY(layout["fits"].toBool());
            }
        }
        QVERIFY(ranked);
        for (const auto& entry : doc["excluded"].toArray())
            QVERIFY(!(entry.toObject()["dp"].toInt() == 8 && entry.toObject()["ep"].toInt() == 8));

        const auto titan = json_of(
            run(qwen64 + QStringList{"--micro-batch", "1", "--recompute", "torchtitan-selective", "--format", "json"}));
        QCOMPARE(titan["training"].toObject()["recompute"].toString(), QStringLiteral("torchtitan-selective"));
        QCOMPARE(titan["training"].toObject()["loss_chunks"].toInt(), 1);
        const auto chunked = json_of(run(qwen64 + QStringList{"--loss-chunks", "8", "--format", "json"}));
        QCOMPARE(chunked["training"].toObject()["loss_chunks"].toInt(), 8);
    }

    void json_contract() {
        const auto r = run(qwen64 + QStringList{"--format", "json"});
        QCOMPARE(r.exit_code, 0);
        QVERIFY(r.err.isEmpty());
        const auto doc = json_of(r);
        QCOMPARE(doc["schema"].toString(), QStringLiteral("meshscope.advice/1"));
        QCOMPARE(doc["world"].toInt(), 64);
        QCOMPARE(doc["model"].toObject()["name"].toString(), QStringLiteral("qwen3-30b-a3b"));
        QCOMPARE(doc["cluster"].toObject()["hardware"].toString(), QStringLiteral("h200"));
        QCOMPARE(doc["cluster"].toObject()["gpus_per_node"].toInt(), 8);
        QCOMPARE(doc["training"].toObject()["recompute"].toString(), QStringLiteral("selective"));
        // 64 = 2^6: cp = 2^c for c in 0..6, and 7 - c values of ep for each: 28 layouts.
        QCOMPARE(doc["layouts_considered"].toInt(), 28);
        const auto ranked = doc["ranked"].toArray();
        const auto excluded = doc["excluded"].toArray();
        QCOMPARE(doc["layouts_that_fit"].toInt() + excluded.size(), 28);
        QCOMPARE(ranked.size(), std::min(10, doc["layouts_that_fit"].toInt()));
        double previous = 0;
        for (int i = 0; i < ranked.size(); ++i) {
            const auto layout = ranked[i].toObject();
            QCOMPARE(layout["rank"].toInt(), i + 1);
            QCOMPARE(layout["dp"].toInt() * layout["cp"].toInt(), 64);
            QVERIFY(layout["fits"].toBool());
            const auto memory = layout["memory"].toObject();
            const double parts = memory["params_bytes"].toDouble() + memory["grads_bytes"].toDouble() +
                                 memory["optimizer_bytes"].toDouble() + memory["activations_bytes"].toDouble() +
                                 memory["all_to_all_bytes"].toDouble() + memory["fsdp_buffers_bytes"].toDouble();
            QVERIFY(std::abs(parts - memory["total_bytes"].toDouble()) <= 6);  // each part rounded to a byte
            QVERIFY(memory["total_bytes"].toDouble() <= memory["usable_bytes"].toDouble());
            const auto comm = layout["communication"].toObject();
            const double seconds = comm["seconds"].toDouble();
            // Ranked by step time: compute plus the communication not hidden behind it.
            const auto step = layout["step"].toObject();
            QVERIFY(step["seconds"].toDouble() >= previous);
            previous = step["seconds"].toDouble();
            QVERIFY(std::abs(step["seconds"].toDouble() - step["compute_seconds"].toDouble() -
                             step["exposed_communication_seconds"].toDouble()) <= 1e-12);
            // The default global batch: what cp 1 runs, 64 sequences of 4096 tokens, on every layout, in
            // micro-batches the advisor chose (no --micro-batch given).
            QCOMPARE(step["tokens"].toDouble(), 64.0 * 4096.0);
            QVERIFY(!layout["knobs"].toString().isEmpty());
            QCOMPARE(step["grad_accum"].toInt() * layout["dp"].toInt() * layout["micro_batch"].toInt(), 64);
            double by_dim = 0;
            for (const auto& d : comm["dims"].toArray()) {
                const auto dim = d.toObject();
                QVERIFY(dim["link"].toString() == "intra_node" || dim["link"].toString() == "inter_node");
                by_dim += dim["seconds"].toDouble();
                for (const auto& c : dim["collectives"].toArray())
                    QVERIFY(!c.toObject()["collective"].toString().isEmpty());
                if (dim["dim"].toString() == "ep") QVERIFY(layout["ep"].toInt() > 1);
            }
            QVERIFY(std::abs(by_dim - seconds) <= 1e-12 + 1e-9 * seconds);
        }
        for (const auto& e : excluded) QVERIFY(!e.toObject()["reason"].toString().isEmpty());
    }

    // The text table is sorted by the step time it prints, lists --show rows, says why the first wins, and names
    // each exclusion.
    void text_ranking_sorted_as_printed() {
        const auto r = run(qwen64 + QStringList{"--show", "5"});
        QCOMPARE(r.exit_code, 0);
        const QString text = r.out;
        QVERIFY(text.contains("model: qwen3-30b-a3b (30.53B parameters, 3.35B active)"));
        QVERIFY(text.contains("world 64, global batch 64 sequences (262144 tokens) a step: 28 layouts"));
        static const QRegularExpression row(R"(^\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+([0-9.]+)\s)",
                                            QRegularExpression::MultilineOption);
        auto it = row.globalMatch(text);
        double previous = -1;
        int rows = 0;
        while (it.hasNext()) {
            const auto m = it.next();
            QCOMPARE(m.captured(1).toInt(), ++rows);
            const double step = m.captured(7).toDouble();
            QVERIFY2(step >= previous, qPrintable(m.captured(0)));
            previous = step;
        }
        QCOMPARE(rows, 5);
        QVERIFY(text.contains("\nwhy: dp "));
        QVERIFY(text.contains("\nbest: dp "));
        QVERIFY(text.contains("memory per GPU: "));
        QVERIFY(text.contains("\nexcluded:\n"));
    }

    // The knobs left free are chosen per layout: for each layout the advisor ranks, its micro-batch and recompute
    // are the fastest of every combination that fits, found here by asking the advisor with each combination
    // fixed on the command line (the path without a search), 5 micro-batches x 3 recomputes.
    void knobs_chosen_are_the_fastest_that_fit() {
        const QStringList base{"advise",         "--model", "qwen3-30b-a3b", "--world", "16",     "--hardware", "h100",
                               "--global-batch", "64",      "--format",      "json",    "--show", "1000"};
        const auto chosen = json_of(run(base));
        const auto chosen_layouts = chosen["ranked"].toArray();
        QVERIFY(!chosen_layouts.isEmpty());
        QMap<QString, double> fastest;  // "dp,cp,ep" -> the fastest fixed combination's step seconds
        QMap<QString, QString> fastest_knobs;
        for (const QString micro_batch : {"1", "2", "4", "8", "16"}) {
            for (const QString recompute : {"none", "selective", "full"}) {
                const auto fixed =
                    json_of(run(base + QStringList{"--micro-batch", micro_batch, "--recompute", recompute}));
                for (const auto& l : fixed["ranked"].toArray()) {
                    const auto layout = l.toObject();
                    QVERIFY(!layout.contains("knobs"));  // nothing was left free
                    const QString key = QStringLiteral("%1,%2,%3")
                                            .arg(layout["dp"].toInt())
                                            .arg(layout["cp"].toInt())
                                            .arg(layout["ep"].toInt());
                    const double step = layout["step"].toObject()["seconds"].toDouble();
                    if (!fastest.contains(key) || step < fastest[key]) {
                        fastest[key] = step;
                        fastest_knobs[key] = micro_batch + " " + recompute;
                    }
                }
            }
        }
        QCOMPARE(chosen_layouts.size(), fastest.size());  // a layout is ranked when any combination fits
        for (const auto& l : chosen_layouts) {
            const auto layout = l.toObject();
            const QString key = QStringLiteral("%1,%2,%3")
                                    .arg(layout["dp"].toInt())
                                    .arg(layout["cp"].toInt())
                                    .arg(layout["ep"].toInt());
            QVERIFY2(fastest.contains(key), qPrintable(key));
            QCOMPARE(layout["step"].toObject()["seconds"].toDouble(), fastest[key]);
            const QString knobs = QString::number(layout["micro_batch"].toInt()) + " " + layout["recompute"].toString();
            QVERIFY2(knobs == fastest_knobs[key] || layout["step"].toObject()["seconds"].toDouble() == fastest[key],
                     qPrintable(key + ": " + knobs + " against " + fastest_knobs[key]));
        }
    }

    // The sentence compares the chosen knobs with the ones given: micro-batch 16 with no recompute fits no layout
    // of Qwen3-30B-A3B on 16 80 GB GPUs (16 x 4096 tokens of activations a rank), yet every layout is ranked with
    // knobs the advisor chose; the table gains the MB and recompute columns and the best layout's sentence.
    void knobs_sentence_against_the_given_knobs() {
        const QStringList args{"advise",         "--model", "qwen3-30b-a3b", "--world", "16", "--hardware", "h100",
                               "--global-batch", "64",      "--format",      "json"};
        const auto fixed = json_of(run(args + QStringList{"--micro-batch", "16", "--recompute", "none"}));
        QCOMPARE(fixed["layouts_that_fit"].toInt(), 0);  // the given knobs fit no layout
        const auto doc = json_of(run(args));
        const auto ranked = doc["ranked"].toArray();
        QVERIFY(!ranked.isEmpty());
        for (const auto& l : ranked) {
            const QString knobs = l.toObject()["knobs"].toString();
            QVERIFY2(knobs.startsWith(QStringLiteral("micro-batch ")), qPrintable(knobs));
        }
        // Given micro-batch 1 and selective recompute (the defaults), the sentence names them.
        const auto text =
            run({"advise", "--model", "qwen3-30b-a3b", "--world", "16", "--hardware", "h100", "--global-batch", "64"});
        QCOMPARE(text.exit_code, 0);
        QVERIFY(text.out.contains("  headroom GiB   MB  recompute\n"));
        static const QRegularExpression sentence(
            R"(\nknobs: micro-batch \d+, (no|selective|full) recompute: (the knobs given are the fastest that fit|\d+% faster than micro-batch 1, selective recompute \([0-9.]+ (s|ms) against [0-9.]+ (s|ms) a step\)|as fast as micro-batch 1, selective recompute .*)\n)");
        QVERIFY2(sentence.match(text.out).hasMatch(), qPrintable(text.out));
        // Every knob given: no search, no columns, no sentence.
        const auto given = run({"advise", "--model", "qwen3-30b-a3b", "--world", "16", "--hardware", "h100",
                                "--global-batch", "64", "--micro-batch", "1", "--recompute", "selective"});
        QVERIFY(!given.out.contains("MB  recompute"));
        QVERIFY(!given.out.contains("\nknobs: "));
    }

    // A global batch in sequences or in tokens asks the same question. Qwen3-30B-A3B on 64 GPUs, 96 sequences of
    // 4096 tokens, micro-batch 2: dp 64 needs at least 64 x 2 = 128 sequences and dp 32 a multiple of 64, so both
    // are excluded with the reason; every ranked layout runs 96 / (dp x 2) micro-batches of the same 96 x 4096
    // tokens.
    void global_batch_in_sequences_or_tokens() {
        const auto sequences = run(
            qwen64 + QStringList{"--global-batch", "96", "--micro-batch", "2", "--format", "json", "--show", "1000"});
        const auto tokens = run(qwen64 + QStringList{"--global-batch-tokens", QString::number(96 * 4096),
                                                     "--micro-batch", "2", "--format", "json", "--show", "1000"});
        QCOMPARE(sequences.exit_code, 0);
        QCOMPARE(tokens.exit_code, 0);
        const auto doc = json_of(sequences);
        QCOMPARE(json_of(tokens), doc);
        QCOMPARE(doc["global_batch"].toInt(), 96);
        QCOMPARE(doc["training"].toObject()["global_batch"].toInt(), 96);
        const auto ranked = doc["ranked"].toArray();
        QVERIFY(!ranked.isEmpty());
        for (const auto& l : ranked) {
            const auto layout = l.toObject();
            const auto step = layout["step"].toObject();
            QCOMPARE(step["grad_accum"].toInt() * layout["dp"].toInt() * 2, 96);
            QCOMPARE(step["tokens"].toDouble(), 96.0 * 4096.0);
            QVERIFY(layout["dp"].toInt() <= 16);
        }
        int too_small = 0, not_a_multiple = 0;
        for (const auto& e : doc["excluded"].toArray()) {
            const auto layout = e.toObject();
            const QString reason = layout["reason"].toString();
            if (layout["dp"].toInt() == 64) {
                QCOMPARE(reason, QStringLiteral("global batch of 96 sequences is smaller than dp x micro-batch "
                                                "(64 x 2 = 128)"));
                ++too_small;
            } else if (layout["dp"].toInt() == 32) {
                QCOMPARE(reason, QStringLiteral("global batch of 96 sequences is not a multiple of dp x micro-batch "
                                                "(32 x 2 = 64)"));
                ++not_a_multiple;
            }
        }
        QCOMPARE(too_small, 7);       // ep 1, 2, 4, ..., 64
        QCOMPARE(not_a_multiple, 6);  // ep 1, 2, 4, ..., 32
        // The text says the same, each excluded layout with its reason.
        const auto text = run(qwen64 + QStringList{"--global-batch", "96", "--micro-batch", "2"});
        QCOMPARE(text.exit_code, 0);
        QVERIFY(text.out.contains("world 64, global batch 96 sequences (393216 tokens) a step: 28 layouts"));
        QVERIFY(
            text.out.contains("\n  dp 64, cp 1, ep 8: global batch of 96 sequences is smaller than dp x "
                              "micro-batch (64 x 2 = 128)\n"));
        QVERIFY(
            text.out.contains("\n  dp 32, cp 2, ep 8: global batch of 96 sequences is not a multiple of dp x "
                              "micro-batch (32 x 2 = 64)\n"));
    }

    // A global batch no layout divides: 7 sequences on 64 GPUs (dp 1 would need cp 64, more than the 32 heads).
    // Nothing is ranked, the text says so, and every layout is listed with its reason.
    void no_layout_runs_the_global_batch() {
        const auto r = run(qwen64 + QStringList{"--global-batch", "7"});
        QCOMPARE(r.exit_code, 0);
        QVERIFY(
            r.out.contains("a step: 28 layouts, 0 fit, 28 excluded\n\nno layout fits: each one's reason is under "
                           "excluded\n\nexcluded:\n"));
        QVERIFY(
            r.out.contains("\n  dp 4, cp 16, ep 4: global batch of 7 sequences is not a multiple of dp x "
                           "micro-batch (4 x 1 = 4)\n"));
        QVERIFY(r.out.contains("\n  dp 1, cp 64, ep 1: num_attention_heads must be divisible by cp_size\n"));
        QVERIFY(!r.out.contains("\nwhy: "));
    }

    // By default each GEMM runs at its shape's share of the peak times the GPU's calibration
    // (docs/cost-model-compute.md);
    // --efficiency E prices every FLOP at one flat share instead: doubling it halves every layout's compute time and
    // changes nothing else of the compute; --overlap-a2a runs the ep all-to-all behind compute, so no layout's ep
    // exposes more or steps longer, and a layout whose compute has room left hides part of it (at this batch FSDP's and
    // the all-to-all's traffic exceed compute on every layout, so some stays exposed: docs/cost-model.md, "Overlap").
    void efficiency_and_overlap_options() {
        const QStringList batch{"--global-batch", "512", "--micro-batch", "2", "--format", "json", "--show", "1000"};
        const auto shape = json_of(run(qwen64 + batch));
        const auto base = json_of(run(qwen64 + batch + QStringList{"--efficiency", "0.45"}));
        const auto fast = json_of(run(qwen64 + batch + QStringList{"--efficiency", "0.9"}));
        const auto overlap = json_of(run(qwen64 + batch + QStringList{"--overlap-a2a"}));
        QCOMPARE(shape["cluster"].toObject()["calibration"].toDouble(), 0.6);
        QCOMPARE(base["cluster"].toObject()["calibration"].toDouble(), 0.0);
        QCOMPARE(base["cluster"].toObject()["efficiency"].toDouble(), 0.45);
        QCOMPARE(fast["cluster"].toObject()["efficiency"].toDouble(), 0.9);
        QCOMPARE(overlap["training"].toObject()["overlap_a2a"].toBool(), true);
        const auto by_layout = [](const QJsonObject& doc) {
            QMap<QString, QJsonObject> out;
            for (const auto& l : doc["ranked"].toArray()) {
                const auto o = l.toObject();
                out[QString("%1/%2/%3").arg(o["dp"].toInt()).arg(o["cp"].toInt()).arg(o["ep"].toInt())] = o;
            }
            return out;
        };
        const auto b = by_layout(base), f = by_layout(fast), o = by_layout(overlap), sh = by_layout(shape);
        QVERIFY(!b.isEmpty());
        QCOMPARE(f.keys(), b.keys());
        QCOMPARE(o.keys(), sh.keys());
        const auto exposed_ep = [](const QJsonObject& layout) {
            for (const auto& d : layout["communication"].toObject()["dims"].toArray())
                if (d.toObject()["dim"].toString() == "ep") return d.toObject()["exposed_seconds"].toDouble();
            return 0.0;
        };
        bool some_ep_hides = false;
        // Each expert's GEMMs get micro-batch x 4096 tokens x top-8 x ep / 128 experts rows; the flat run's compute
        // reaches exactly its efficiency, the shape run's a share below one.
        for (const auto& key : sh.keys()) {
            const auto layout = sh[key];
            const double rows = 2.0 * 4096 / layout["cp"].toInt() * 8 * layout["ep"].toInt() / 128;
            QCOMPARE(layout["step"].toObject()["expert_rows"].toDouble(), rows);
            const double share = layout["step"].toObject()["compute_share"].toDouble();
            QVERIFY(share > 0.05 && share < 1.0);
        }
        for (const auto& key : b.keys()) {
            const auto bs = b[key]["step"].toObject(), fs = f[key]["step"].toObject();
            QVERIFY(std::abs(bs["compute_share"].toDouble() - 0.45) < 1e-12);
            QVERIFY(std::abs(fs["compute_seconds"].toDouble() * 2.0 - bs["compute_seconds"].toDouble()) <=
                    1e-12 * bs["compute_seconds"].toDouble());
            QCOMPARE(fs["model_flops_per_token"].toDouble(), bs["model_flops_per_token"].toDouble());
        }
        for (const auto& key : sh.keys()) {
            const auto ss = sh[key]["step"].toObject(), os = o[key]["step"].toObject();
            QVERIFY(os["seconds"].toDouble() <= ss["seconds"].toDouble() * (1 + 1e-12));
            QVERIFY(exposed_ep(o[key]) <= exposed_ep(sh[key]) * (1 + 1e-12));
            if (exposed_ep(o[key]) < exposed_ep(sh[key]) * 0.99) some_ep_hides = true;
        }
        QVERIFY(some_ep_hides);
    }

    void usage_errors_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QStringList m{"advise", "--model", "qwen3-30b-a3b"};
        QTest::addRow("no model") << QStringList{"advise", "--world", "8"} << "give --model or --model-config";
        QTest::addRow("no world") << m << "give --world";
        QTest::addRow("unknown model")
            << QStringList{"advise", "--model", "llama", "--world", "8"}
            << "unknown model 'llama'; known: qwen3-30b-a3b, qwen3-235b-a22b, deepseek-v3, mixtral-8x7b, "
               "qwen3.5-35b-a3b";
        QTest::addRow("both model and config")
            << QStringList{"advise", "--model", "qwen3-30b-a3b", "--model-config", "c.json", "--world", "8"}
            << "--model excludes --model-config";
        QTest::addRow("world not a number")
            << m + QStringList{"--world", "abc"} << "--world expects an integer, got 'abc'.";
        QTest::addRow("world zero") << m + QStringList{"--world", "0"} << "world_size must be positive, got 0.";
        QTest::addRow("world too large") << m + QStringList{"--world", "99999999999999999999"}
                                         << "--world is out of range, got '99999999999999999999'.";
        QTest::addRow("gpus per node") << m + QStringList{"--world", "8", "--gpus-per-node", "0"}
                                       << "gpus_per_node must be positive, got 0.";
        QTest::addRow("hardware") << m + QStringList{"--world", "8", "--hardware", "x100"}
                                  << "unknown hardware 'x100'; known: a100, h100, h200, b200, gb200";
        QTest::addRow("network") << m + QStringList{"--world", "8", "--network", "edr"}
                                 << "unknown network 'edr'; known: ndr, hdr";
        QTest::addRow("seq") << m + QStringList{"--world", "8", "--seq", "0"} << "seq must be positive, got 0.";
        QTest::addRow("grad accum") << m + QStringList{"--world", "8", "--grad-accum", "x"}
                                    << "grad_accum expects an integer, got 'x'.";
        QTest::addRow("show") << m + QStringList{"--world", "8", "--show", "-1"}
                              << "--show must not be negative, got -1.";
        QTest::addRow("recompute") << m + QStringList{"--world", "8", "--recompute", "some"}
                                   << "--recompute: some not in {none,selective,full,megatron-selective,"
                                      "torchtitan-selective,llamafactory,torchtitan-full,automodel-full,megatron-full,"
                                      "megatron-layernorm-moe-act}";
        QTest::addRow("loss chunks zero")
            << m + QStringList{"--world", "8", "--loss-chunks", "0"} << "loss_chunks must be positive, got 0.";
        QTest::addRow("global batch negative")
            << m + QStringList{"--world", "8", "--global-batch", "-5"} << "global_batch must be at least 0, got -5.";
        QTest::addRow("global batch not a number") << m + QStringList{"--world", "8", "--global-batch", "many"}
                                                   << "global_batch expects an integer, got 'many'.";
        QTest::addRow("global batch not whole") << m + QStringList{"--world", "8", "--global-batch", "1.5"}
                                                << "global_batch expects an integer, got '1.5'.";
        QTest::addRow("global batch tokens negative")
            << m + QStringList{"--world", "8", "--global-batch-tokens", "-4096"}
            << "--global-batch-tokens must be positive, got -4096.";
        QTest::addRow("global batch tokens not a number")
            << m + QStringList{"--world", "8", "--global-batch-tokens", "1e6"}
            << "--global-batch-tokens expects an integer, got '1e6'.";
        QTest::addRow("global batch tokens not a multiple of seq")
            << m + QStringList{"--world", "8", "--global-batch-tokens", "1000"}
            << "--global-batch-tokens 1000 is not a multiple of --seq 4096.";
        QTest::addRow("global batch and grad accum")
            << m + QStringList{"--world", "8", "--global-batch", "64", "--grad-accum", "2"}
            << "--grad-accum excludes --global-batch";
        QTest::addRow("both global batches")
            << m + QStringList{"--world", "8", "--global-batch", "64", "--global-batch-tokens", "262144"}
            << "--global-batch excludes --global-batch-tokens";
        QTest::addRow("efficiency above one") << m + QStringList{"--world", "8", "--efficiency", "1.5"}
                                              << "efficiency must be a number in (0, 1], got '1.5'.";
        QTest::addRow("efficiency not a number") << m + QStringList{"--world", "8", "--efficiency", "fast"}
                                                 << "efficiency must be a number in (0, 1], got 'fast'.";
        QTest::addRow("missing config") << QStringList{"advise", "--model-config", "/nonexistent.json", "--world", "8"}
                                        << "cannot read model config '/nonexistent.json': No such file or directory";
    }
    void usage_errors() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const auto r = run(args);
        QCOMPARE(r.exit_code, 2);
        QVERIFY(r.out.isEmpty());
        const auto lines = r.err.split('\n');
        QCOMPARE(lines.value(0), "meshscope advise: " + message);
        QVERIFY(lines.value(1).startsWith("hint: meshscope advise (--model NAME | --model-config FILE) --world N"));
    }

    void config_file_errors() {
        QTemporaryDir dir;
        const QString path = dir.filePath("config.json");
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 4096})");
        file.close();
        const auto r = run({"advise", "--model-config", path, "--world", "8"});
        QCOMPARE(r.exit_code, 2);
        QCOMPARE(r.err.split('\n').value(0),
                 "meshscope advise: " + path +
                     ": unknown architecture 'LlamaForCausalLM'; known: Qwen3MoeForCausalLM, DeepseekV3ForCausalLM, "
                     "MixtralForCausalLM, Qwen3_5MoeForConditionalGeneration, Qwen3_5MoeForCausalLM");
    }

    // A config.json of a preset advises exactly as the preset does (apart from the model's name).
    void config_file_matches_preset() {
        const auto preset = run({"advise", "--model", "mixtral-8x7b", "--world", "16", "--format", "json"});
        const auto file = run({"advise", "--model-config", QStringLiteral(COST_CONFIG_DIR "/mixtral-8x7b.json"),
                               "--world", "16", "--format", "json"});
        QCOMPARE(preset.exit_code, 0);
        QCOMPARE(file.exit_code, 0);
        auto a = json_of(preset), b = json_of(file);
        a.remove("model");
        b.remove("model");
        QCOMPARE(a, b);
    }

    void plan_prints_its_cost() {
        const auto text = run({"plan", "--world", "64", "--ep", "8", "--model", "qwen3-30b-a3b", "--hardware", "h200",
                               "--no-groups", "--no-ranks"});
        QCOMPARE(text.exit_code, 0);
        QVERIFY(text.out.contains("\ncost\nmodel: qwen3-30b-a3b"));
        QVERIFY(text.out.contains("memory per GPU: "));
        QVERIFY(text.out.contains("  expert.ep (size 8, inside a node): "));

        const auto json = run({"plan", "--world", "64", "--ep", "8", "--model", "qwen3-30b-a3b", "--hardware", "h200",
                               "--format", "json", "--no-ranks"});
        QCOMPARE(json.exit_code, 0);
        const auto doc = json_of(json);
        QCOMPARE(doc["schema"].toString(), QStringLiteral("meshscope.plan/1"));
        QCOMPARE(doc["meshes"].toArray().size(), 3);  // model, data, expert
        const auto cost = doc["cost"].toObject();
        QCOMPARE(cost["model"].toObject()["name"].toString(), QStringLiteral("qwen3-30b-a3b"));
        const auto layout = cost["layout"].toObject();
        QCOMPARE(layout["dp"].toInt(), 64);
        QCOMPARE(layout["ep"].toInt(), 8);
        QCOMPARE(layout["efsdp"].toInt(), 8);
        QVERIFY(layout["memory"].toObject()["total_bytes"].toDouble() > 0);
        // The same layout costs the same in advise (links from the plan's placement vs arithmetic).
        // The plan costs the knobs given (the defaults), so advise is asked with the same knobs fixed.
        const auto advice = json_of(run(qwen64 + QStringList{"--format", "json", "--show", "100", "--micro-batch", "1",
                                                             "--recompute", "selective"}));
        bool found = false;
        for (const auto& l : advice["ranked"].toArray()) {
            auto o = l.toObject();
            if (o["dp"].toInt() != 64 || o["ep"].toInt() != 8) continue;
            o.remove("rank");
            QCOMPARE(o, layout);
            found = true;
        }
        QVERIFY(found);
    }

    void plan_errors_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::addRow("model option without a model") << QStringList{"plan", "--world", "8", "--seq", "8192"}
                                                      << "meshscope plan: --seq needs --model or --model-config";
        QTest::addRow("experts not divisible")
            << QStringList{"plan", "--world", "48", "--ep", "3", "--model", "qwen3-30b-a3b"}
            << "meshscope plan: num_experts must be divisible by ep_size, got 128 % 3 != 0.";
        QTest::addRow("heads not divisible")
            << QStringList{"plan", "--world", "64", "--cp", "64", "--model", "qwen3-30b-a3b"}
            << "meshscope plan: num_attention_heads must be divisible by cp_size";
    }
    void plan_errors() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const auto r = run(args);
        QCOMPARE(r.exit_code, 2);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(r.err.split('\n').value(0), message);
        QVERIFY(r.err.split('\n').value(1).startsWith("hint: the plan's cost needs --model NAME"));
    }
};

QTEST_GUILESS_MAIN(AdviseCliTest)
#include "tst_advise_cli.moc"
