// The step-time model against published measured MoE training runs (docs/cost-model-calibration.md, "Measured error"):
// each row's predicted tokens/s per GPU, its error against the published figure held to the documented value, the
// median error, and the ordering of layouts a source compares. One efficiency per GPU type (the H100 preset's),
// the same for every row: nothing here is tuned per row.
#include <QFile>
#include <QRegularExpression>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <optional>

#include "meshscope/cost/hf_config.h"
#include "meshscope/cost/layout_cost.h"
#include "meshscope/cost/memory.h"
#include "meshscope/cost/presets.h"

using namespace meshscope;
using namespace meshscope::cost;

namespace {
// Kimi K2's config.json (moonshotai/Kimi-K2-Instruct): DeepSeek-V3's architecture with 384 experts, 64 heads, one
// dense layer and no MTP module.
constexpr const char* kimi_k2_config = R"({
  "architectures": ["DeepseekV3ForCausalLM"], "hidden_size": 7168, "intermediate_size": 18432,
  "moe_intermediate_size": 2048, "num_hidden_layers": 61, "num_attention_heads": 64, "num_key_value_heads": 64,
  "n_routed_experts": 384, "n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 1,
  "moe_layer_freq": 1, "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
  "v_head_dim": 128, "vocab_size": 163840, "num_nextn_predict_layers": 0, "tie_word_embeddings": false})";

struct Row {
    const char* name;
    const char* model;  // a preset, "deepseek-v3-no-mtp" or "kimi-k2"
    std::int64_t world, cp, ep, seq, micro, global;
    Recompute recompute;
    bool overlap_a2a;
    double measured;  // tokens/s per GPU, as published or from the published step time
    double error;     // predicted / measured - 1, as docs/cost-model-calibration.md lists it
};

// docs/cost-model-calibration.md, "Measured error", in the same order; sources there. TP and PP of the source fold into
// dp. `micro` is sequences per rank per micro-batch and `global` sequences per step: a source whose parameters cross
// the network once per step (Megatron's distributed optimizer; FSDP under pipeline parallelism, which keeps a
// stage's parameters gathered across its micro-batches) is mapped to one micro-batch holding the rank's share of
// the step, so that FSDP's traffic is counted once per step as it ran.
const Row rows[] = {
    {"AutoModel Qwen3 MoE 30B, 8 H100, FSDP 8, EP 8", "qwen3-30b-a3b", 8, 1, 8, 4096, 4, 512, Recompute::selective,
     false, 12040, 0.288},
    {"AutoModel DeepSeek V3, 256 H100, PP 4, EP 64", "deepseek-v3-no-mtp", 256, 1, 64, 4096, 2, 512,
     Recompute::selective, false, 1002, -0.094},
    {"AutoModel DeepSeek V3, 1024 H100, PP 4, EP 64", "deepseek-v3-no-mtp", 1024, 1, 64, 4096, 8, 8192,
     Recompute::selective, false, 865, 0.06},
    {"AutoModel Kimi K2, 256 H100, PP 8, EP 32", "kimi-k2", 256, 1, 32, 4096, 2, 512, Recompute::selective, false, 924,
     -0.187},
    {"ModelZoo Qwen3-235B, 256 H100, TP 2, PP 8, EP 32", "qwen3-235b-a22b", 256, 1, 32, 4096, 8, 2048,
     Recompute::selective, false, 2048.0 * 4096 / 256 / 19.7, -0.261},
    {"ModelZoo Qwen3-235B, 256 H100, TP 2, PP 8, EP 32, a2a overlap", "qwen3-235b-a22b", 256, 1, 32, 4096, 8, 2048,
     Recompute::selective, true, 2048.0 * 4096 / 256 / 17.6, -0.039},
    {"ModelZoo Qwen3-235B, 256 H100, TP 2, EP 8, FSDP, full recompute", "qwen3-235b-a22b", 256, 1, 8, 4096, 4, 2048,
     Recompute::full, false, 2048.0 * 4096 / 256 / 17.6, 0.041},
    {"ModelZoo Qwen3-235B, 256 H100, TP 2, PP 32, EP 8, A2A", "qwen3-235b-a22b", 256, 1, 8, 4096, 8, 2048,
     Recompute::selective, false, 2048.0 * 4096 / 256 / 24.2, 0.928},
};

ModelSpec model_of(const Row& row) {
    if (std::string(row.model) == "kimi-k2") return model_from_hf_config(kimi_k2_config, "kimi-k2").value();
    if (std::string(row.model) == "deepseek-v3-no-mtp") {
        auto m = find_model_preset("deepseek-v3").value();
        m.mtp_layers = 0;  // the AutoModel recipe trains without MTP (its FLOPs per token say so: tst_cost_step)
        return m;
    }
    return find_model_preset(row.model).value();
}

LayoutCost predict(const Row& row) {
    const auto topology = Topology::make(row.world / row.cp, row.cp, row.ep).value();
    auto training =
        TrainingSpec::make(row.seq, row.micro, row.global / (topology.dp * row.micro), row.recompute).value();
    training.overlap_a2a = row.overlap_a2a;
    const auto in = CostInputs::make(model_of(row), training, make_cluster("h100", "ndr").value());
    const auto placement = Placement::make(row.world, 8).value();
    return cost_layout(in, topology, mesh_dims(topology, placement));
}

double error_of(const Row& row) {
    return predict(row).step.tokens_per_second_per_gpu / row.measured - 1.0;
}

// A dense Qwen3 (Qwen3ForCausalLM) as torchtitan builds it (torchtitan/models/qwen3/__init__.py, _14b and _32b, at
// pytorch/torchtitan@b5bcd76c): untied embeddings, q/k norms, SwiGLU FFN in every layer.
ModelSpec dense_qwen3(const char* name, std::int64_t layers, std::int64_t heads, std::int64_t ffn) {
    ModelSpec m;
    m.name = name;
    m.layers = layers;
    m.hidden = 5120;
    m.vocab = 151936;
    m.standard = {heads, 8, 128, true};
    m.dense_ffn = ffn;
    for (std::int64_t i = 0; i < layers; ++i) m.dense_layers.push_back(i);
    return m;
}

// Published runs whose layout FSDPTurbo expresses as it ran (FSDP and ep, no tensor or pipeline parallelism), with
// what their sources say of memory: whether the run fit, and the peak per GPU where they report one. Sources in
// docs/cost-model-calibration.md, "Memory against published runs".
struct MemoryRow {
    const char* name;
    const char* model;   // a preset, or "qwen3-14b" / "qwen3-32b" (dense_qwen3)
    double gib_per_gpu;  // the GPU's memory as the source's own percentage gives it, else the datasheet's
    std::int64_t world, cp, ep, seq, micro;
    Recompute recompute;
    bool ran;             // the source ran it; false: the source reports it out of memory
    double measured_gib;  // the reported peak (torchtitan: max reserved by the caching allocator); 0: none
    double error;         // predicted / measured - 1, as the docs list it
};

const MemoryRow memory_runs[] = {
    // NVIDIA-NeMo/Automodel docs/performance-summary.mdx and examples/llm_benchmark/qwen/qwen3_moe_30b_te_deepep.yaml
    // (activation_checkpointing: true wraps each block in checkpoint_wrapper): ran, no peak published.
    {"AutoModel Qwen3 MoE 30B, 8 H100, FSDP 8, EP 8, LBS 4, full AC", "qwen3-30b-a3b", 80, 8, 1, 8, 4096, 4,
     Recompute::full, true, 0, 0},
    // pytorch/torchtitan pull 1690: "local batch size=2, FSDP=8, full AC" with torch.compile, "memory: 81.85GiB
    // (86.17%)" (so 94.99 GiB GPUs, H100 96GB); seq 4096 from its qwen3_32b.toml.
    {"torchtitan Qwen3 32B, 8 H100 96GB, FSDP 8, LBS 2, full AC", "qwen3-32b", 81.85 / 0.8617, 8, 1, 1, 4096, 2,
     Recompute::full, true, 81.85, -0.062},
    // pytorch/torchtitan pull 2461 (config: local_batch_size 4, seq_len 4096, FSDP over all 8): "I tested sac on 8
    // 96GB H100s and it OOMed, but full ac worked."
    {"torchtitan Qwen3 14B, 8 H100 96GB, FSDP 8, LBS 4, full AC", "qwen3-14b", 81.85 / 0.8617, 8, 1, 1, 4096, 4,
     Recompute::full, true, 0, 0},
    {"torchtitan Qwen3 14B, 8 H100 96GB, FSDP 8, LBS 4, selective (op) AC", "qwen3-14b", 81.85 / 0.8617, 8, 1, 1, 4096,
     4, Recompute::per_op, false, 0, 0},
};

MemoryBreakdown predict_memory(const MemoryRow& row) {
    ModelSpec model = std::string(row.model) == "qwen3-32b"   ? dense_qwen3("qwen3-32b", 64, 64, 25600)
                      : std::string(row.model) == "qwen3-14b" ? dense_qwen3("qwen3-14b", 40, 40, 17408)
                                                              : find_model_preset(row.model).value();
    auto cluster = make_cluster("h100", "ndr").value();
    cluster.gib_per_gpu = row.gib_per_gpu;
    const auto training = TrainingSpec::make(row.seq, row.micro, 1, row.recompute).value();
    const auto topology = Topology::make(row.world / row.cp, row.cp, row.ep).value();
    return memory_per_gpu(CostInputs::make(std::move(model), training, cluster), topology);
}

constexpr double gib = 1024.0 * 1024.0 * 1024.0;
}  // namespace

class CostCalibrationTest : public QObject {
    Q_OBJECT
private slots:
    void rows_hold_their_error_data() {
        QTest::addColumn<int>("index");
        for (int i = 0; i < static_cast<int>(std::size(rows)); ++i) QTest::addRow("%s", rows[i].name) << i;
    }
    void rows_hold_their_error() {
        QFETCH(int, index);
        const Row& row = rows[index];
        const auto cost = predict(row);
        const double error = cost.step.tokens_per_second_per_gpu / row.measured - 1.0;
        qInfo(
            "%s: predicted %.0f tokens/s per GPU (compute %.2f s, exposed %.2f s, MFU %.1f%%), measured %.0f, "
            "error %+.1f%%",
            row.name, cost.step.tokens_per_second_per_gpu, cost.step.compute.seconds, cost.step.exposed_seconds,
            cost.step.mfu * 100.0, row.measured, error * 100.0);
        // The documented error, to half a percentage point.
        QVERIFY2(std::abs(error - row.error) <= 0.005,
                 qPrintable(QString("error %1%, documented %2%").arg(error * 100.0).arg(row.error * 100.0)));
    }

    void memory_rows_data() {
        QTest::addColumn<int>("index");
        for (int i = 0; i < static_cast<int>(std::size(memory_runs)); ++i)
            QTest::addRow("%s", memory_runs[i].name) << i;
    }
    // Every run its source ran fits, every run it reports out of memory does not, and every reported peak is predicted
    // within 15%, each row's error held to the documented value to half a percentage point.
    void memory_rows() {
        QFETCH(int, index);
        const MemoryRow& row = memory_runs[index];
        const auto memory = predict_memory(row);
        qInfo(
            "%s: predicted %.1f GiB (static %.1f, activations %.1f, all-to-all %.1f, FSDP %.1f), usable %.1f, "
            "measured %.2f",
            row.name, memory.total() / gib, (memory.params + memory.grads + memory.optimizer) / gib,
            memory.activations / gib, memory.all_to_all / gib, memory.fsdp_buffers / gib, memory.usable / gib,
            row.measured_gib);
        QCOMPARE(memory.fits(), row.ran);
        if (row.measured_gib > 0) {
            const double error = memory.total() / gib / row.measured_gib - 1.0;
            QVERIFY2(std::abs(error) <= 0.15, qPrintable(QString("error %1%").arg(error * 100.0)));
            QVERIFY2(std::abs(error - row.error) <= 0.005,
                     qPrintable(QString("error %1%, documented %2%").arg(error * 100.0).arg(row.error * 100.0)));
        }
    }

    // docs/cost-model-calibration.md's memory table is the one this test holds: each row's layout, micro-batch,
    // recompute, whether it ran, the measured and predicted GiB and the error as printed there.
    void docs_memory_table_matches() {
        QFile file(QStringLiteral(COST_CONFIG_DIR "/../../../docs/cost-model-calibration.md"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString docs = QString::fromUtf8(file.readAll());
        static const QRegularExpression line(
            R"(^\| M(\d+) \|[^|]*\|[^|]*\| \((\d+), (\d+), (\d+)\), micro (\d+), seq (\d+), `([a-z-]+)` \| )"
            R"((ran|out of memory) \| ([\d.]+|-) \| ([\d.]+) of ([\d.]+) \| ([+-][\d.]+%|-) \|$)",
            QRegularExpression::MultilineOption);
        auto it = line.globalMatch(docs);
        std::size_t seen = 0;
        while (it.hasNext()) {
            const auto m = it.next();
            const std::size_t index = m.captured(1).toULongLong() - 1;
            QCOMPARE(index, seen++);
            QVERIFY(index < std::size(memory_runs));
            const MemoryRow& row = memory_runs[index];
            QCOMPARE(m.captured(2).toLongLong(), row.world / row.cp);
            QCOMPARE(m.captured(3).toLongLong(), row.cp);
            QCOMPARE(m.captured(4).toLongLong(), row.ep);
            QCOMPARE(m.captured(5).toLongLong(), row.micro);
            QCOMPARE(m.captured(6).toLongLong(), row.seq);
            QCOMPARE(parse_recompute(m.captured(7).toStdString()), std::optional<Recompute>(row.recompute));
            QCOMPARE(m.captured(8) == "ran", row.ran);
            const auto memory = predict_memory(row);
            if (row.measured_gib > 0) {
                QCOMPARE(m.captured(9).toDouble(), row.measured_gib);
                QCOMPARE(m.captured(12),
                         QString::asprintf("%+.1f%%", (memory.total() / gib / row.measured_gib - 1.0) * 100.0));
            } else {
                QCOMPARE(m.captured(9), QString("-"));
                QCOMPARE(m.captured(12), QString("-"));
            }
            QCOMPARE(m.captured(10), QString::asprintf("%.1f", memory.total() / gib));
            QCOMPARE(m.captured(11), QString::asprintf("%.1f", memory.usable / gib));
        }
        QCOMPARE(seen, std::size(memory_runs));
    }

    // The aim: median absolute error at most 20% on throughput.
    void median_error() {
        std::vector<double> errors;
        for (const auto& row : rows) errors.push_back(std::abs(error_of(row)));
        std::sort(errors.begin(), errors.end());
        const std::size_t n = errors.size();
        const double median = n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2.0;
        qInfo("median absolute error %.1f%% over %zu rows", median * 100.0, n);
        QVERIFY(median <= 0.20);
    }

    // The table in docs/cost-model-calibration.md is the one this test holds: each row's mapping (dp, cp, ep,
    // micro-batch, micro-batches per step, recompute, a2a overlap), measured and predicted tokens/s per GPU and error
    // as printed there, and the median the text states.
    void docs_table_matches() {
        QFile file(QStringLiteral(COST_CONFIG_DIR "/../../../docs/cost-model-calibration.md"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString docs = QString::fromUtf8(file.readAll());
        static const QRegularExpression line(
            R"(^\| (\d+) \|[^|]*\|[^|]*\|[^|]*\| \((\d+), (\d+), (\d+)\), (\d+) x (\d+)([^|]*)\| ([\d,]+) \| ([\d,]+) \| )"
            R"(([+-][\d.]+)% \|$)",
            QRegularExpression::MultilineOption);
        const auto number = [](const QString& text) { return QString(text).remove(',').toDouble(); };
        auto it = line.globalMatch(docs);
        std::size_t seen = 0;
        std::vector<double> errors;
        while (it.hasNext()) {
            const auto m = it.next();
            const std::size_t index = m.captured(1).toULongLong() - 1;
            QCOMPARE(index, seen++);
            QVERIFY(index < std::size(rows));
            const Row& row = rows[index];
            QCOMPARE(m.captured(2).toLongLong(), row.world / row.cp);
            QCOMPARE(m.captured(3).toLongLong(), row.cp);
            QCOMPARE(m.captured(4).toLongLong(), row.ep);
            QCOMPARE(m.captured(5).toLongLong(), row.micro);
            QCOMPARE(m.captured(6).toLongLong(), row.global / (row.world / row.cp * row.micro));
            QCOMPARE(m.captured(7).contains("full"), row.recompute == Recompute::full);
            QCOMPARE(m.captured(7).contains("--overlap-a2a"), row.overlap_a2a);
            QCOMPARE(number(m.captured(8)), std::round(row.measured));
            const double predicted = predict(row).step.tokens_per_second_per_gpu;
            QCOMPARE(number(m.captured(9)), std::round(predicted));
            const double error = predicted / row.measured - 1.0;
            QCOMPARE(m.captured(10), QString::asprintf("%+.1f", error * 100.0));
            errors.push_back(std::abs(error));
        }
        QCOMPARE(seen, std::size(rows));
        std::sort(errors.begin(), errors.end());
        const std::size_t n = errors.size();
        const double median = n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2.0;
        const QString stated =
            QString::asprintf("**Median absolute error %.1f%%** over the %zu rows", median * 100.0, std::size(rows));
        QVERIFY2(docs.contains(stated), qPrintable(stated));
    }

    // Where a source compares layouts of one model (Megatron-MoE-ModelZoo, Qwen3-235B on 256 H100), the orders the
    // advisor gets right: a2a overlap beats none, and ep 8 inside a node beats ep 32 across nodes. The one it gets
    // wrong is held too, so that a change that fixes it shows here: the plain A2A dispatcher with PP 32 measured
    // slowest (24.2 s) and is predicted fastest, as the model has no notion of the dispatcher's own cost
    // (docs/cost-model-calibration.md, "Measured error").
    void orders_compared_layouts() {
        const auto tokens = [](int i) { return predict(rows[i]).step.tokens_per_second_per_gpu; };
        QVERIFY(tokens(5) > tokens(4));  // measured 17.6 s against 19.7 s
        QVERIFY(tokens(6) > tokens(4));  // measured 17.6 s against 19.7 s
        QVERIFY(tokens(7) > tokens(6));  // measured 24.2 s against 17.6 s: the wrong order
    }
};

QTEST_APPLESS_MAIN(CostCalibrationTest)
#include "tst_cost_calibration.moc"
