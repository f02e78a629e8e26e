// Presets against the published parameter totals, config.json files against the presets, and the exact
// messages for configs and hardware the cost model cannot read.
#include <QTest>

#include <algorithm>
#include <cmath>

#include "meshscope/cost/cluster.h"
#include "meshscope/cost/hf_config.h"
#include "meshscope/cost/memory.h"
#include "meshscope/cost/mesh_dims.h"
#include "meshscope/cost/parameters.h"
#include "meshscope/cost/presets.h"

using namespace meshscope;
using namespace meshscope::cost;

namespace {
QString fixture(const QString& name) {
    return QStringLiteral(COST_CONFIG_DIR "/") + name;
}
}  // namespace

class CostModelsTest : public QObject {
    Q_OBJECT
private slots:
    // Published: Qwen3 model cards (30.5B / 3.3B, 235B / 22B), DeepSeek-V3 report (671B / 37B, MTP not
    // included), Mixtral of Experts paper (46.7B / 12.9B). Totals within 1%, active within 3%.
    void preset_totals_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<double>("total");
        QTest::addColumn<double>("active");
        QTest::addRow("qwen3-30b-a3b") << "qwen3-30b-a3b" << 30.5e9 << 3.3e9;
        QTest::addRow("qwen3-235b-a22b") << "Qwen3-235B-A22B" << 235e9 << 22e9;
        QTest::addRow("deepseek-v3") << "DeepSeek-V3" << 671e9 << 37e9;
        QTest::addRow("mixtral-8x7b") << "MIXTRAL-8x7B" << 46.7e9 << 12.9e9;
    }
    void preset_totals() {
        QFETCH(QString, name);
        QFETCH(double, total);
        QFETCH(double, active);
        const auto model = find_model_preset(name.toStdString());
        QVERIFY(model.has_value());
        const auto p = count_parameters(*model);
        const double total_error = std::abs(static_cast<double>(p.total()) - total) / total;
        const double active_error = std::abs(static_cast<double>(p.active()) - active) / active;
        QVERIFY2(total_error <= 0.01, qPrintable(QString("total %1 is %2% off").arg(p.total()).arg(100 * total_error)));
        QVERIFY2(active_error <= 0.03,
                 qPrintable(QString("active %1 is %2% off").arg(p.active()).arg(100 * active_error)));
    }

    // DeepSeek-V3's MTP module, by hand: one MoE layer (attention 187,107,328 + norms 14,336 + router 1,835,008
    // + shared 44,040,192 + 256 experts of 44,040,192) plus eh_proj 2*7168^2 and 3 norms of 7168.
    void deepseek_mtp_module() {
        const auto p = count_parameters(find_model_preset("deepseek-v3").value());
        QCOMPARE(p.attention, 187107328);
        QCOMPARE(p.shared, 44040192);
        QCOMPARE(p.expert, 44040192);
        QCOMPARE(p.mtp(), std::int64_t{187107328} + 14336 + 1835008 + 44040192 + 256 * std::int64_t{44040192} +
                              2 * 7168 * 7168 + 3 * 7168);
    }

    // Qwen3.5-35B-A3B's text model, counted by hand from its config.json (h 2048, V 248320 untied, 40 layers: 30
    // Gated DeltaNet, 10 full attention; 256 experts of 512, top 8, one shared expert of 512 with its gate), tensor by
    // tensor as transformers' modeling_qwen3_5_moe.py builds them:
    //   Gated DeltaNet: key_dim 16 x 128 = 2048, value_dim 32 x 128 = 4096, conv_dim 2 x 2048 + 4096 = 8192;
    //     in_proj_qkv 2048 x 8192 = 16,777,216; in_proj_z 2048 x 4096 = 8,388,608; in_proj_b and in_proj_a 2 x 2048 x
    //     32 = 131,072; conv1d 8192 x 4 = 32,768; dt_bias and A_log 2 x 32 = 64; norm 128; out_proj 4096 x 2048 =
    //     8,388,608: 33,718,464.
    //   Full attention: q_proj 2048 x (16 x 256 x 2) = 16,777,216 (query and output gate); k_proj and v_proj 2 x 2048 x
    //     (2 x 256) = 2,097,152; o_proj 4096 x 2048 = 8,388,608; q_norm and k_norm 2 x 256 = 512: 27,263,488.
    //   MoE: router 2048 x 256 = 524,288; one expert 3 x 2048 x 512 = 3,145,728; shared expert 3,145,728 and its gate
    //     2048 = 3,147,776; norms 2 x 2048 = 4,096.
    //   Embedding and lm_head 2 x 248320 x 2048 = 1,017,118,720; final norm 2048.
    // Total 30 x 33,718,464 + 10 x 27,263,488 + 40 x (4,096 + 524,288 + 3,147,776 + 256 x 3,145,728) + 1,017,118,720 +
    // 2048 = 34,660,610,688. Active (8 experts): 3,454,988,928.
    // Published (model card): "35B in total and 3B activated". Our total leaves out the vision tower (27 blocks of
    // 1152, about 0.4B) and the MTP module, so it is held within 2% below 35B; "3B" is a whole number of billions, so
    // the active count is held to round to it (2.5B to 3.5B).
    void qwen3_5_parameters() {
        const auto p = count_parameters(find_model_preset("Qwen3.5-35B-A3B").value());
        QCOMPARE(p.linear_attention, std::int64_t{33718464});
        QCOMPARE(p.attention, std::int64_t{27263488});
        QCOMPARE(p.linear_layers, std::int64_t{30});
        QCOMPARE(p.moe_layers, std::int64_t{40});
        QCOMPARE(p.shared, std::int64_t{3147776});
        QCOMPARE(p.total(), std::int64_t{34660610688});
        QCOMPARE(p.active(), std::int64_t{3454988928});
        const double total_error = (35e9 - static_cast<double>(p.total())) / 35e9;
        QVERIFY(total_error >= 0 && total_error <= 0.02);
        QVERIFY(p.active() >= 2'500'000'000 && p.active() < 3'500'000'000);
        QCOMPARE(p.mtp(), std::int64_t{0});
    }

    // Activation bytes one token keeps in a Qwen3.5-35B-A3B layer without recomputation, by hand (bf16 values x 2,
    // fp32 values x 4), h 2048, top 8 experts of 512, one shared expert of 512:
    //   Gated DeltaNet layer: norm input and output 2 x 2048; in_proj_qkv's output and the conv1d's 2 x 8192; z 4096;
    //     b and a 2 x 32; the delta rule's output 4096; the gated norm's output 4096: 32,832 values; g and beta in fp32
    //     2 x 32 x 4 = 256 bytes.
    //   Full-attention layer: norm input and output 4096; q 4096, k 512, v 512, attention output 4096; q and k before
    //     their norms 4096 + 512; the output gate 4096 and the gated output 4096: 26,112 values; flash attention's
    //     log-sum-exp 16 heads x 4 = 64 bytes.
    //   MoE half of either: norm input and output 4096; 8 copies of (input 2048, gate and up 2 x 512, their product
    //     512) and 8 expert outputs of 2048: 45,056; the shared expert's gate, up and product 3 x 512 = 1,536; router
    //     logits 256 x 4 = 1,024 bytes.
    // Linear: (32,832 + 4,096 + 45,056 + 1,536) x 2 + 256 + 1,024 = 168,320. Full: (26,112 + 50,688) x 2 + 64 + 1,024
    // = 154,688.
    void qwen3_5_layer_activations() {
        const auto m = find_model_preset("qwen3.5-35b-a3b").value();
        const auto t = TrainingSpec::make(4096, 1, 1, Recompute::none).value();
        QCOMPARE(layer_activation_bytes_per_token(m, t, true, true), 168320.0);
        QCOMPARE(layer_activation_bytes_per_token(m, t, true, false), 154688.0);
    }

    // Qwen3.5's config.json: the text model under text_config, or flat (Qwen3_5MoeTextConfig alone); without
    // layer_types every full_attention_interval-th layer is full attention.
    void qwen3_5_layer_types() {
        auto read = model_from_hf_config(
            R"({"model_type": "qwen3_5_moe_text", "num_hidden_layers": 6, "full_attention_interval": 3})", "c.json");
        QVERIFY(read.has_value());
        QCOMPARE(read->linear_layers, (std::vector<std::int64_t>{0, 1, 3, 4}));
        QCOMPARE(read->hidden, std::int64_t{2048});
        read = model_from_hf_config(
            R"({"architectures": ["Qwen3_5MoeForConditionalGeneration"], "text_config": {"num_hidden_layers": 2,
                "layer_types": ["full_attention", "linear_attention"]}})",
            "c.json");
        QVERIFY(read.has_value());
        QCOMPARE(read->linear_layers, (std::vector<std::int64_t>{1}));
        read = model_from_hf_config(
            R"({"model_type": "qwen3_5_moe", "text_config": {"num_hidden_layers": 3, "layer_types": ["full_attention"]}})",
            "c.json");
        QVERIFY(!read.has_value());
        QCOMPARE(QString::fromStdString(read.error().message()),
                 QString("c.json: layer_types has 1 entries for 3 layers"));
        read = model_from_hf_config(
            R"({"model_type": "qwen3_5_moe", "text_config": {"num_hidden_layers": 1, "layer_types": ["sliding"]}})",
            "c.json");
        QVERIFY(!read.has_value());
        QCOMPARE(QString::fromStdString(read.error().message()),
                 QString("c.json: layer_types[0] must be linear_attention or full_attention, got 'sliding'"));
    }

    // The public config.json of each preset reads into the same ModelSpec.
    void config_equals_preset_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("preset");
        for (const char* name : {"qwen3-30b-a3b", "qwen3-235b-a22b", "deepseek-v3", "mixtral-8x7b", "qwen3.5-35b-a3b"})
            QTest::addRow("%s", name) << fixture(QString(name) + ".json") << QString(name);
    }
    void config_equals_preset() {
        QFETCH(QString, file);
        QFETCH(QString, preset);
        auto read = load_hf_config(file.toStdString());
        QVERIFY2(read.has_value(), read.has_value() ? "" : read.error().what());
        ModelSpec model = *read;
        QCOMPARE(QString::fromStdString(model.name), file);
        model.name = preset.toStdString();
        QVERIFY(model == find_model_preset(preset.toStdString()).value());
        QCOMPARE(count_parameters(model).total(), count_parameters(*find_model_preset(preset.toStdString())).total());
    }

    void config_errors_data() {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("message");
        const QByteArray qwen =
            R"({"architectures": ["Qwen3MoeForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2, "vocab_size": 10,
                "num_attention_heads": 4, "num_key_value_heads": 2, "num_experts": 4, "num_experts_per_tok": 2,
                "moe_intermediate_size": 8, "intermediate_size": 32})";
        QTest::addRow("not json") << QByteArray("{\"a\": ") << "c.json is not valid JSON (byte 7).";
        QTest::addRow("not an object") << QByteArray("[1]") << "c.json is not a JSON object.";
        // JSON's one depth bound (json_limits.h): 65 levels are refused, however deep the rest goes.
        QTest::addRow("nested 65 deep") << "{\"a\": " + QByteArray(64, '[') + QByteArray(64, ']') + "}"
                                        << "c.json: invalid JSON: nested deeper than 64 levels";
        QTest::addRow("nested 100000 deep") << QByteArray(100000, '[') + QByteArray(100000, ']')
                                            << "c.json: invalid JSON: nested deeper than 64 levels";
        QTest::addRow("no architecture") << QByteArray("{}")
                                         << "c.json names no architecture: expected \"architectures\": [...] or "
                                            "\"model_type\".";
        QTest::addRow("unknown architecture")
            << QByteArray(R"({"architectures": ["LlamaForCausalLM"]})")
            << "c.json: unknown architecture 'LlamaForCausalLM'; known: Qwen3MoeForCausalLM, DeepseekV3ForCausalLM, "
               "MixtralForCausalLM, Qwen3_5MoeForConditionalGeneration, Qwen3_5MoeForCausalLM";
        QTest::addRow("missing field") << QByteArray(qwen).replace(R"("num_experts": 4, )", "")
                                       << "c.json: missing field 'num_experts' (Qwen3MoeForCausalLM)";
        QTest::addRow("null field") << QByteArray(qwen).replace(R"("num_experts": 4)", R"("num_experts": null)")
                                    << "c.json: missing field 'num_experts' (Qwen3MoeForCausalLM)";
        QTest::addRow("text for a number")
            << QByteArray(qwen).replace(R"("num_experts": 4)", R"("num_experts": "many")")
            << "c.json: field 'num_experts' must be a positive integer, got \"many\"";
        QTest::addRow("zero") << QByteArray(qwen).replace(R"("hidden_size": 64)", R"("hidden_size": 0)")
                              << "c.json: field 'hidden_size' must be a positive integer, got 0";
        QTest::addRow("bad flag") << QByteArray(qwen).replace(R"("vocab_size": 10)",
                                                              R"("vocab_size": 10, "tie_word_embeddings": 1)")
                                  << "c.json: field 'tie_word_embeddings' must be true or false, got 1";
        QTest::addRow("bad layer list") << QByteArray(qwen).replace(R"("vocab_size": 10)",
                                                                    R"("vocab_size": 10, "mlp_only_layers": "0")")
                                        << "c.json: field 'mlp_only_layers' must be a list of layer indices, got \"0\"";
        QTest::addRow("deepseek missing kv lora")
            << QByteArray(R"({"model_type": "deepseek_v3", "hidden_size": 64, "num_hidden_layers": 2, "vocab_size": 10,
                             "num_attention_heads": 4})")
            << "c.json: missing field 'kv_lora_rank' (DeepseekV3ForCausalLM)";
        QTest::addRow("mixtral missing experts")
            << QByteArray(R"({"architectures": ["MixtralForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2,
                             "vocab_size": 10, "num_attention_heads": 4, "num_key_value_heads": 2})")
            << "c.json: missing field 'num_local_experts' (MixtralForCausalLM)";
    }
    void config_errors() {
        QFETCH(QByteArray, json);
        QFETCH(QString, message);
        const auto read = model_from_hf_config(json.toStdString(), "c.json");
        QVERIFY(!read.has_value());
        QCOMPARE(QString::fromStdString(read.error().message()), message);
    }

    void unreadable_config() {
        const auto read = load_hf_config("/nonexistent/config.json");
        QVERIFY(!read.has_value());
        QCOMPARE(QString::fromStdString(read.error().message()),
                 QString("cannot read model config '/nonexistent/config.json': No such file or directory"));
    }

    // Which layers carry experts, by each family's rule.
    void dense_layers_by_rule() {
        const QByteArray qwen =
            R"({"architectures": ["Qwen3MoeForCausalLM"], "hidden_size": 64, "num_hidden_layers": 6, "vocab_size": 10,
                "num_attention_heads": 4, "num_key_value_heads": 2, "num_experts": 4, "num_experts_per_tok": 2,
                "moe_intermediate_size": 8, "intermediate_size": 32, "decoder_sparse_step": 2, "mlp_only_layers": [3]})";
        // (i+1) % 2 != 0 -> dense: 0, 2, 4; listed: 3.
        QVERIFY(model_from_hf_config(qwen.toStdString(), "q")->dense_layers == (std::vector<std::int64_t>{0, 2, 3, 4}));
        const QByteArray deepseek =
            R"({"model_type": "deepseek_v3", "hidden_size": 64, "num_hidden_layers": 6, "vocab_size": 10,
                "num_attention_heads": 4, "q_lora_rank": null, "kv_lora_rank": 8, "qk_nope_head_dim": 4,
                "qk_rope_head_dim": 2, "v_head_dim": 4, "n_routed_experts": 4, "num_experts_per_tok": 2,
                "moe_intermediate_size": 8, "intermediate_size": 32, "first_k_dense_replace": 1, "moe_layer_freq": 2})";
        // i < 1 or i % 2 != 0 -> dense: 0, 1, 3, 5.
        const auto ds = model_from_hf_config(deepseek.toStdString(), "d");
        QVERIFY(ds->dense_layers == (std::vector<std::int64_t>{0, 1, 3, 5}));
        QCOMPARE(ds->latent.q_lora_rank, 0);
    }

    void hardware_presets_data() {
        QTest::addColumn<QString>("hardware");
        QTest::addColumn<QString>("network");
        QTest::addColumn<double>("gib");
        QTest::addColumn<double>("nvlink");
        QTest::addColumn<double>("nic");
        QTest::addColumn<double>("peak");
        QTest::addColumn<qint64>("gpus");
        QTest::addRow("h100 ndr") << "h100"
                                  << "ndr" << 80.0 << 450.0 << 50.0 << 989.0 << qint64{8};
        QTest::addRow("H200 NDR") << "H200"
                                  << "NDR" << 141.0 << 450.0 << 50.0 << 989.0 << qint64{8};
        QTest::addRow("b200 hdr") << "b200"
                                  << "hdr" << 180.0 << 900.0 << 25.0 << 2250.0 << qint64{8};
        QTest::addRow("a100 hdr") << "a100"
                                  << "hdr" << 80.0 << 300.0 << 25.0 << 312.0 << qint64{8};
        // GB200 NVL72: 13.4 TB of HBM3e over 72 GPUs, NVLink 5 (1.8 TB/s bidirectional), 2,500 TFLOPS dense bf16
        // (5,000 with sparsity), one 400 Gb/s ConnectX-7 per GPU, and the rack's 72 GPUs one NVLink domain.
        QTest::addRow("GB200 ndr") << "GB200"
                                   << "ndr" << 186.0 << 900.0 << 50.0 << 2500.0 << qint64{72};
    }
    void hardware_presets() {
        QFETCH(QString, hardware);
        QFETCH(QString, network);
        QFETCH(double, gib);
        QFETCH(double, nvlink);
        QFETCH(double, nic);
        QFETCH(double, peak);
        QFETCH(qint64, gpus);
        const auto c = make_cluster(hardware.toStdString(), network.toStdString()).value();
        QCOMPARE(c.hardware, hardware.toLower().toStdString());
        QCOMPARE(c.gib_per_gpu, gib);
        QCOMPARE(c.intra.bus_gbps, nvlink);
        QCOMPARE(c.inter.bus_gbps, nic);
        QCOMPARE(c.peak_tflops, peak);
        QCOMPARE(c.gpus_per_node, gpus);
        QCOMPARE(c.reserve, 0.10);
        QCOMPARE(c.usable_bytes(), gib * 0.9 * 1024 * 1024 * 1024);
        // No GPU type but H100 has a fitted row: every other takes H100's calibration.
        QCOMPARE(c.calibration, make_cluster("h100", "ndr").value().calibration);
    }

    // A node as the launcher counts it (torchrun's --nproc-per-node) is the NVLink domain on a board of 8; on
    // GB200 NVL72 it is a host of 4 inside the rack's 72-GPU domain, which stays the cluster's node.
    void nvlink_domain_data() {
        QTest::addColumn<QString>("hardware");
        QTest::addColumn<qint64>("given");
        QTest::addColumn<qint64>("domain");
        QTest::addRow("h100, preset's") << "h100" << qint64{0} << qint64{8};
        QTest::addRow("h100, 4 per node") << "h100" << qint64{4} << qint64{4};
        QTest::addRow("b200, 16 per node") << "b200" << qint64{16} << qint64{16};
        QTest::addRow("gb200, preset's") << "gb200" << qint64{0} << qint64{72};
        QTest::addRow("gb200, a host of 4") << "gb200" << qint64{4} << qint64{72};
        QTest::addRow("gb200, 8 per node") << "gb200" << qint64{8} << qint64{72};
    }
    void nvlink_domain() {
        QFETCH(QString, hardware);
        QFETCH(qint64, given);
        QFETCH(qint64, domain);
        QCOMPARE(make_cluster(hardware.toStdString(), "ndr", given).value().gpus_per_node, domain);
    }

    // Expert groups inside GB200's 72-GPU domain take NVLink; the same groups on 8-GPU boards leave the node.
    // World 144, ep 72: the two ep groups are ranks 0-71 and 72-143, one rack each. World 128, ep 64: the second
    // group (ranks 64-127) spans two racks of 72.
    void expert_groups_inside_the_nvlink_domain_data() {
        QTest::addColumn<QString>("hardware");
        QTest::addColumn<qint64>("world");
        QTest::addColumn<qint64>("ep");
        QTest::addColumn<bool>("crosses");
        QTest::addRow("gb200, ep 72 of 144") << "gb200" << qint64{144} << qint64{72} << false;
        QTest::addRow("gb200, ep 8 of 72") << "gb200" << qint64{72} << qint64{8} << false;
        QTest::addRow("gb200, ep 64 of 128") << "gb200" << qint64{128} << qint64{64} << true;
        QTest::addRow("b200, ep 72 of 144") << "b200" << qint64{144} << qint64{72} << true;
        QTest::addRow("b200, ep 8 of 72") << "b200" << qint64{72} << qint64{8} << false;
    }
    void expert_groups_inside_the_nvlink_domain() {
        QFETCH(QString, hardware);
        QFETCH(qint64, world);
        QFETCH(qint64, ep);
        QFETCH(bool, crosses);
        const auto cluster = make_cluster(hardware.toStdString(), "ndr").value();
        const auto topology = Topology::make(world, 1, ep).value();
        const auto dims = mesh_dims(topology, Placement::make(world, cluster.gpus_per_node).value());
        const auto ep_dim = std::find_if(dims.begin(), dims.end(), [](const MeshDim& d) { return d.dim == "ep"; });
        QVERIFY(ep_dim != dims.end());
        QCOMPARE(ep_dim->size, ep);
        QCOMPARE(ep_dim->crosses_node, crosses);
    }

    void cluster_errors_data() {
        QTest::addColumn<QString>("hardware");
        QTest::addColumn<QString>("network");
        QTest::addColumn<QString>("message");
        QTest::addRow("hardware") << "x100"
                                  << "ndr"
                                  << "unknown hardware 'x100'; known: a100, h100, h200, b200, gb200";
        QTest::addRow("network") << "h100"
                                 << "edr"
                                 << "unknown network 'edr'; known: ndr, hdr";
    }
    void cluster_errors() {
        QFETCH(QString, hardware);
        QFETCH(QString, network);
        QFETCH(QString, message);
        const auto c = make_cluster(hardware.toStdString(), network.toStdString());
        QVERIFY(!c.has_value());
        QCOMPARE(QString::fromStdString(c.error().message()), message);
    }

    void unknown_model() {
        const auto m = find_model_preset("llama-3-70b");
        QVERIFY(!m.has_value());
        QCOMPARE(
            QString::fromStdString(m.error().message()),
            QString("unknown model 'llama-3-70b'; known: qwen3-30b-a3b, qwen3-235b-a22b, deepseek-v3, mixtral-8x7b, "
                    "qwen3.5-35b-a3b"));
    }
};

QTEST_APPLESS_MAIN(CostModelsTest)
#include "tst_cost_models.moc"
