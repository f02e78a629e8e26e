// The step-time model against published measured MoE training runs (docs/cost-model-calibration.md, "Measured error"):
// each row's predicted tokens/s per GPU, its error against the published figure held to the documented value, the
// median error, and the ordering of layouts a source compares. One calibration for every GPU type (the H100 preset's,
// fitted on the fitted rows only), the same for every row: nothing here is tuned per row.
#include <QFile>
#include <QRegularExpression>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <string>

#include "meshscope/cost/advice.h"
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

// Which set a row belongs to: the calibration scalar is fitted on one source's rows (NeMo AutoModel, H100) and never
// sees the others (docs/cost-model-calibration.md, "Measured error").
enum class Set { fitted, held_out };

struct Row {
    const char* name;
    Set set;
    const char* framework;
    const char* gpu;    // a hardware preset
    const char* model;  // a preset, "deepseek-v3-no-mtp", "kimi-k2", "qwen3-32b" or "llama3.1-8b"
    std::int64_t world, cp, ep, seq, micro, global;
    std::int64_t shape_micro;  // sequences a forward pass held as the source ran it (TrainingSpec::shape_micro_batch)
    Recompute recompute;
    bool overlap_a2a;
    std::int64_t loss_chunks;
    double measured;  // tokens/s per GPU, as published, from the published step time, or from published TFLOP/s
    double error;     // predicted / measured - 1, as docs/cost-model-calibration.md lists it
    // GPUs per NVLink domain as the source's job was placed, where that is not the preset's; 0: the preset's.
    std::int64_t nvlink_domain;
};

// Megatron-LM's recipe index publishes model TFLOP/s per GPU; tokens/s is that over the FLOPs per token the same
// NVIDIA frameworks count for the model, from their own pairs of TFLOP/s and tokens/s: NeMo AutoModel's Qwen3 MoE 30B
// (277 TFLOP/s at 12,040 tokens/s) and Megatron-MoE-ModelZoo's Qwen3-235B-A22B (276 TFLOP/s at 2048 x 4096 / 256 /
// 17.6 s).
constexpr double qwen3_30b_flops_per_token = 277e12 / 12040.0;
constexpr double qwen3_235b_flops_per_token = 276e12 / (2048.0 * 4096 / 256 / 17.6);

// docs/cost-model-calibration.md, "Measured error", in the same order; sources there. TP and PP of the source fold into
// dp. `micro` is sequences per rank per micro-batch and `global` sequences per step: a source whose parameters cross
// the network once per step (Megatron's distributed optimizer; FSDP under pipeline parallelism, which keeps a
// stage's parameters gathered across its micro-batches) is mapped to one micro-batch holding the rank's share of
// the step, so that FSDP's traffic is counted once per step as it ran, and `shape_micro` keeps the source's
// micro-batch for the kernels' shapes.
const Row rows[] = {
    {"AutoModel Qwen3 MoE 30B, 8 H100, FSDP 8, EP 8", Set::fitted, "NeMo AutoModel", "h100", "qwen3-30b-a3b", 8, 1, 8,
     4096, 4, 512, 4, Recompute::selective, false, 1, 12040, 0.0815, 0},
    {"AutoModel DeepSeek V3, 256 H100, PP 4, EP 64", Set::fitted, "NeMo AutoModel", "h100", "deepseek-v3-no-mtp", 256,
     1, 64, 4096, 2, 512, 1, Recompute::selective, false, 1, 1002, -0.1939, 0},
    {"AutoModel DeepSeek V3, 1024 H100, PP 4, EP 64", Set::fitted, "NeMo AutoModel", "h100", "deepseek-v3-no-mtp", 1024,
     1, 64, 4096, 8, 8192, 1, Recompute::selective, false, 1, 865, -0.0582, 0},
    {"AutoModel Kimi K2, 256 H100, PP 8, EP 32", Set::fitted, "NeMo AutoModel", "h100", "kimi-k2", 256, 1, 32, 4096, 2,
     512, 1, Recompute::selective, false, 1, 924, -0.1874, 0},
    {"ModelZoo Qwen3-235B, 256 H100, TP 2, PP 8, EP 32", Set::held_out, "Megatron-LM", "h100", "qwen3-235b-a22b", 256,
     1, 32, 4096, 8, 2048, 1, Recompute::selective, false, 1, 2048.0 * 4096 / 256 / 19.7, -0.3214, 0},
    {"ModelZoo Qwen3-235B, 256 H100, TP 2, PP 8, EP 32, a2a overlap", Set::held_out, "Megatron-LM", "h100",
     "qwen3-235b-a22b", 256, 1, 32, 4096, 8, 2048, 1, Recompute::selective, true, 1, 2048.0 * 4096 / 256 / 17.6,
     -0.0392, 0},
    {"ModelZoo Qwen3-235B, 256 H100, TP 2, EP 8, FSDP, full recompute", Set::held_out, "Megatron-LM", "h100",
     "qwen3-235b-a22b", 256, 1, 8, 4096, 4, 2048, 4, Recompute::full, false, 1, 2048.0 * 4096 / 256 / 17.6, -0.1250, 0},
    {"ModelZoo Qwen3-235B, 256 H100, TP 2, PP 32, EP 8, A2A", Set::held_out, "Megatron-LM", "h100", "qwen3-235b-a22b",
     256, 1, 8, 4096, 8, 2048, 1, Recompute::selective, false, 1, 2048.0 * 4096 / 256 / 24.2, 0.6007, 0},
    {"Megatron-LM recipe Qwen3-30B-A3B, 32 H100, EP 8", Set::held_out, "Megatron-LM", "h100", "qwen3-30b-a3b", 32, 1, 8,
     4096, 8, 256, 1, Recompute::selective, false, 1, 234.1e12 / qwen3_30b_flops_per_token, -0.1942, 0},
    {"Megatron-LM recipe Qwen3-235B-A22B, 256 H100, TP 2, PP 8, EP 32", Set::held_out, "Megatron-LM", "h100",
     "qwen3-235b-a22b", 256, 1, 32, 4096, 8, 2048, 1, Recompute::selective, true, 1,
     214.3e12 / qwen3_235b_flops_per_token, 0.2374, 0},
    {"torchtitan Qwen3-30B-A3B, 8 B200, FSDP 8, LBS 8, seq 8192, op SAC", Set::held_out, "torchtitan", "b200",
     "qwen3-30b-a3b", 8, 1, 1, 8192, 8, 64, 8, Recompute::per_op, false, 8, 19520, 0.0922, 0},
    {"torchtitan Qwen3-32B, 8 H100 96GB, FSDP 8, LBS 2, full AC", Set::held_out, "torchtitan", "h100", "qwen3-32b", 8,
     1, 1, 4096, 2, 16, 2, Recompute::full, false, 1, 1874, -0.2971, 0},
    {"torchtitan Llama 3.1 8B, 8 H100 96GB, FSDP 8, LBS 2, op SAC", Set::held_out, "torchtitan", "h100", "llama3.1-8b",
     8, 1, 1, 8192, 2, 16, 2, Recompute::per_op, false, 1, 5762, 0.1012, 0},
    {"torchtitan Llama 3.1 8B, 8 H100 96GB, FSDP 8, LBS 2, op SAC, compile", Set::held_out, "torchtitan", "h100",
     "llama3.1-8b", 8, 1, 1, 8192, 2, 16, 2, Recompute::per_op, false, 1, 6667, -0.0483, 0},
    {"torchtitan Llama 3.1 8B, 128 H100 96GB, FSDP 128, LBS 2, op SAC", Set::held_out, "torchtitan", "h100",
     "llama3.1-8b", 128, 1, 1, 8192, 2, 256, 2, Recompute::per_op, false, 1, 5605, 0.1206, 0},
    {"torchtitan Llama 3.1 8B, 128 H100 96GB, FSDP 128, LBS 2, op SAC, compile", Set::held_out, "torchtitan", "h100",
     "llama3.1-8b", 128, 1, 1, 8192, 2, 256, 2, Recompute::per_op, false, 1, 6514, -0.0357, 0},
    // GB200 NVL72. Megatron-LM's recipe runs 16 GPUs, inside one rack's NVLink domain. Megatron-Bridge's runs 256
    // GPUs on 64 hosts of 4, which its launcher places in Slurm segments of 16 hosts (scripts/performance/utils/
    // executors.py: the largest divisor of the host count up to 18): 64 GPUs per NVLink domain.
    {"Megatron-LM recipe Qwen3-30B-A3B, 16 GB200, EP 16", Set::held_out, "Megatron-LM", "gb200", "qwen3-30b-a3b", 16, 1,
     16, 4096, 32, 512, 4, Recompute::none, false, 1, 528e12 / qwen3_30b_flops_per_token, 0.3774, 0},
    {"Megatron-Bridge DeepSeek V3, 256 GB200, PP 4, VP 4, EP 64", Set::held_out, "Megatron-Bridge", "gb200",
     "deepseek-v3-no-mtp", 256, 1, 64, 4096, 16, 4096, 1, Recompute::selective, false, 1, 3139, 0.0363, 64},
    {"Megatron-Bridge Qwen3-235B-A22B, 256 GB200, PP 8, VP 3, EP 32", Set::held_out, "Megatron-Bridge", "gb200",
     "qwen3-235b-a22b", 256, 1, 32, 4096, 32, 8192, 1, Recompute::none, false, 1, 4916, 0.0836, 64},
};

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

// Llama 3.1 8B (meta-llama/Llama-3.1-8B config.json, torchtitan's llama3 "8B"): 32 layers of hidden 4096, 32 query
// heads and 8 KV heads of 128, FFN 14,336, vocabulary 128,256, untied, no q/k norms.
ModelSpec llama3_8b() {
    ModelSpec m;
    m.name = "llama3.1-8b";
    m.layers = 32;
    m.hidden = 4096;
    m.vocab = 128256;
    m.standard = {32, 8, 128, false};
    m.dense_ffn = 14336;
    for (std::int64_t i = 0; i < m.layers; ++i) m.dense_layers.push_back(i);
    return m;
}

ModelSpec model_of(const char* name) {
    const std::string model(name);
    if (model == "kimi-k2") return model_from_hf_config(kimi_k2_config, "kimi-k2").value();
    if (model == "deepseek-v3-no-mtp") {
        auto m = find_model_preset("deepseek-v3").value();
        // AutoModel's recipe trains without MTP (its FLOPs per token say so: tst_cost_step); Megatron-Bridge's row
        // says "w/o MTP".
        m.mtp_layers = 0;
        return m;
    }
    if (model == "qwen3-32b") return dense_qwen3("qwen3-32b", 64, 64, 25600);
    if (model == "qwen3-14b") return dense_qwen3("qwen3-14b", 40, 40, 17408);
    if (model == "llama3.1-8b") return llama3_8b();
    return find_model_preset(model).value();
}

// calibration > 0: that scalar over the kernel curves; < 0: one flat efficiency of -calibration (the model before
// compute by shape); 0: the preset's own.
CostInputs inputs_of(const Row& row, double calibration) {
    const auto topology = Topology::make(row.world / row.cp, row.cp, row.ep).value();
    auto training =
        TrainingSpec::make(row.seq, row.micro, row.global / (topology.dp * row.micro), row.recompute).value();
    training.overlap_a2a = row.overlap_a2a;
    training.loss_chunks = row.loss_chunks;
    training.shape_micro_batch = row.shape_micro;
    auto cluster = make_cluster(row.gpu, "ndr").value();
    if (row.nvlink_domain > 0) cluster.gpus_per_node = row.nvlink_domain;
    if (calibration > 0) cluster.calibration = calibration;
    if (calibration < 0) {
        cluster.calibration = 0;
        cluster.efficiency = -calibration;
    }
    return CostInputs::make(model_of(row.model), training, cluster);
}

// calibration 0: the preset's own.
LayoutCost predict(const Row& row, double calibration = 0) {
    const auto topology = Topology::make(row.world / row.cp, row.cp, row.ep).value();
    const auto in = inputs_of(row, calibration);
    const auto placement = Placement::make(row.world, in.cluster.gpus_per_node).value();
    return cost_layout(in, topology, mesh_dims(topology, placement));
}

double error_of(const Row& row, double calibration = 0) {
    return predict(row, calibration).step.tokens_per_second_per_gpu / row.measured - 1.0;
}

double median_abs_error(Set set, double calibration = 0) {
    std::vector<double> errors;
    for (const auto& row : rows)
        if (row.set == set) errors.push_back(std::abs(error_of(row, calibration)));
    std::sort(errors.begin(), errors.end());
    const std::size_t n = errors.size();
    return n == 0 ? 0.0 : n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2.0;
}

// Published runs whose layout FSDPTurbo expresses as it ran (FSDP and ep, no tensor or pipeline parallelism), with
// what their sources say of memory: whether the run fit, and the peak per GPU where they report one. Sources in
// docs/cost-model-calibration.md, "Memory against published runs".
struct MemoryRow {
    const char* name;
    const char* gpu;     // a hardware preset
    const char* model;   // as Row's
    double gib_per_gpu;  // the GPU's memory as the source's own percentage gives it, else the datasheet's
    std::int64_t world, cp, ep, seq, micro;
    Recompute recompute;
    std::int64_t loss_chunks;
    LossLogits loss;      // how the source's loss held the logits: torchtitan's compiled loss fused, its eager one fp32
    bool ran;             // the source ran it; false: the source reports it out of memory
    double measured_gib;  // the reported peak (torchtitan: max reserved by the caching allocator); 0: none
    double error;         // predicted / measured - 1, as the docs list it
};

const MemoryRow memory_runs[] = {
    // NVIDIA-NeMo/Automodel docs/performance-summary.mdx and examples/llm_benchmark/qwen/qwen3_moe_30b_te_deepep.yaml
    // (activation_checkpointing: true wraps each block in checkpoint_wrapper): ran, no peak published.
    {"AutoModel Qwen3 MoE 30B, 8 H100, FSDP 8, EP 8, LBS 4, full AC", "h100", "qwen3-30b-a3b", 80, 8, 1, 8, 4096, 4,
     Recompute::full, 1, LossLogits::fused, true, 0, 0},
    // pytorch/torchtitan pull 1690: "local batch size=2, FSDP=8, full AC" with torch.compile, "memory: 81.85GiB
    // (86.17%)" (so 94.99 GiB GPUs, H100 96GB); seq 4096 from its qwen3_32b.toml.
    {"torchtitan Qwen3 32B, 8 H100 96GB, FSDP 8, LBS 2, full AC", "h100", "qwen3-32b", 81.85 / 0.8617, 8, 1, 1, 4096, 2,
     Recompute::full, 1, LossLogits::fused, true, 81.85, -0.062},
    // pytorch/torchtitan pull 2461 (config: local_batch_size 4, seq_len 4096, FSDP over all 8): "I tested sac on 8
    // 96GB H100s and it OOMed, but full ac worked."
    {"torchtitan Qwen3 14B, 8 H100 96GB, FSDP 8, LBS 4, full AC", "h100", "qwen3-14b", 81.85 / 0.8617, 8, 1, 1, 4096, 4,
     Recompute::full, 1, LossLogits::fp32_eager, true, 0, 0},
    {"torchtitan Qwen3 14B, 8 H100 96GB, FSDP 8, LBS 4, selective (op) AC", "h100", "qwen3-14b", 81.85 / 0.8617, 8, 1,
     1, 4096, 4, Recompute::per_op, 1, LossLogits::fp32_eager, false, 0, 0},
    // mlc-ai/pith-train issue 79: torchtitan, 8 B200, FSDP 8, EP 1, MBS 8, seq 8192, selective AC, eight loss chunks,
    // "141.79 GiB peak memory per GPU".
    {"torchtitan Qwen3-30B-A3B, 8 B200, FSDP 8, LBS 8, seq 8192, op SAC, 8 loss chunks", "b200", "qwen3-30b-a3b", 180,
     8, 1, 1, 8192, 8, Recompute::per_op, 8, LossLogits::fused, true, 141.79, -0.0205},
    // pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md, Tables 1 and 3 (H100 96GB, local batch 2,
    // selective AC, seq 8192 from llama3_8b.toml at 9dec370): FSDP 82.4 GiB, with torch.compile 77.0 GiB on 8 GPUs;
    // 67.0 and 62.0 GiB on 128. The GPU's memory taken as pull 1690's H100 96GB (94.99 GiB).
    {"torchtitan Llama 3.1 8B, 8 H100 96GB, FSDP 8, LBS 2, op SAC, peak", "h100", "llama3.1-8b", 81.85 / 0.8617, 8, 1,
     1, 8192, 2, Recompute::per_op, 1, LossLogits::fp32_eager, true, 82.4, -0.1048},
    {"torchtitan Llama 3.1 8B, 8 H100 96GB, FSDP 8, LBS 2, op SAC, compile, peak", "h100", "llama3.1-8b",
     81.85 / 0.8617, 8, 1, 1, 8192, 2, Recompute::per_op, 1, LossLogits::fp32_eager, true, 77.0, -0.0420},
    {"torchtitan Llama 3.1 8B, 128 H100 96GB, FSDP 128, LBS 2, op SAC, peak", "h100", "llama3.1-8b", 81.85 / 0.8617,
     128, 1, 1, 8192, 2, Recompute::per_op, 1, LossLogits::fp32_eager, true, 67.0, -0.1083},
    {"torchtitan Llama 3.1 8B, 128 H100 96GB, FSDP 128, LBS 2, op SAC, compile, peak", "h100", "llama3.1-8b",
     81.85 / 0.8617, 128, 1, 1, 8192, 2, Recompute::per_op, 1, LossLogits::fp32_eager, true, 62.0, -0.0364},
};

MemoryBreakdown predict_memory(const MemoryRow& row) {
    ModelSpec model = model_of(row.model);
    auto cluster = make_cluster(row.gpu, "ndr").value();
    cluster.gib_per_gpu = row.gib_per_gpu;
    auto training = TrainingSpec::make(row.seq, row.micro, 1, row.recompute).value();
    training.loss_chunks = row.loss_chunks;
    training.loss = row.loss;
    const auto topology = Topology::make(row.world / row.cp, row.cp, row.ep).value();
    return memory_per_gpu(CostInputs::make(std::move(model), training, cluster), topology);
}

constexpr double gib = 1024.0 * 1024.0 * 1024.0;

// docs/cost-model-calibration.md, "Measured error".
constexpr double documented_fitted_median = 0.134;
constexpr double documented_held_out_median = 0.121;
constexpr double documented_flat_efficiency = 0.35;
constexpr double documented_flat_fitted_median = 0.132;
constexpr double documented_flat_held_out_median = 0.164;
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
    // Every run its source ran fits (the advisor excludes none of them as out of memory), every run it reports out of
    // memory does not, and every reported peak's error is held to the documented value to half a percentage point.
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
            QVERIFY2(std::abs(error - row.error) <= 0.005,
                     qPrintable(QString("error %1%, documented %2%").arg(error * 100.0).arg(row.error * 100.0)));
        }
    }

    // torchtitan's eager loss holds 12 bytes per vocabulary entry and token at its peak where a fused one holds 4
    // (scripts/loss-logits-bytes.py measured 12.00 V and 4.00 V): on the Llama 3.1 8B row at 16,384 tokens a rank,
    // 8 x 128,256 x 16,384 = 16,810,770,432 bytes more, and an eighth of it with the loss in 8 chunks.
    void eager_loss_holds_three_fp32_logits() {
        MemoryRow row = memory_runs[5];
        QCOMPARE(std::string(row.model), std::string("llama3.1-8b"));
        QCOMPARE(row.loss, LossLogits::fp32_eager);
        const double eager = predict_memory(row).total();
        row.loss = LossLogits::fused;
        const double fused = predict_memory(row).total();
        QCOMPARE(eager - fused, 16810770432.0);
        // In chunks the loss's share can fall under one recomputed layer's full set, which the peak takes instead
        // under per-op recomputation; without recomputation the two add up.
        row.recompute = Recompute::none;
        row.loss_chunks = 8;
        const double fused_chunked = predict_memory(row).total();
        row.loss = LossLogits::fp32_eager;
        QCOMPARE(predict_memory(row).total() - fused_chunked, 16810770432.0 / 8);
        QCOMPARE(logits_bytes_per_entry(LossLogits::fused), 4.0);
        QCOMPARE(logits_bytes_per_entry(LossLogits::fp32_eager), 12.0);
    }

    // The advisor asked at each memory row's world, knobs fixed as the source ran them (one micro-batch a step):
    // every run its source ran is ranked, never excluded as out of memory; the one reported out of memory is excluded
    // with the advisor's "needs ... GiB per GPU" reason.
    void advisor_excludes_no_run_that_ran_data() { memory_rows_data(); }
    void advisor_excludes_no_run_that_ran() {
        QFETCH(int, index);
        const MemoryRow& row = memory_runs[index];
        auto cluster = make_cluster(row.gpu, "ndr").value();
        cluster.gib_per_gpu = row.gib_per_gpu;
        auto training = TrainingSpec::make(row.seq, row.micro, 1, row.recompute).value();
        training.loss_chunks = row.loss_chunks;
        training.loss = row.loss;
        training.global_batch = row.world / row.cp * row.micro;
        const auto advice = advise(CostInputs::make(model_of(row.model), training, cluster), row.world).value();
        const auto same = [&](const Topology& t) {
            return t.dp == row.world / row.cp && t.cp == row.cp && t.ep == row.ep;
        };
        const bool ranked = std::any_of(advice.ranked.begin(), advice.ranked.end(),
                                        [&](const LayoutCost& l) { return same(l.topology); });
        const auto excluded = std::find_if(advice.excluded.begin(), advice.excluded.end(),
                                           [&](const ExcludedLayout& e) { return same(e.topology); });
        QCOMPARE(ranked, row.ran);
        if (!row.ran) {
            QVERIFY(excluded != advice.excluded.end());
            QVERIFY2(excluded->reason.rfind("needs ", 0) == 0, excluded->reason.c_str());
        }
    }

    // docs/cost-model-calibration.md's memory table is the one this test holds: each row's layout, micro-batch,
    // recompute, whether it ran, the measured and predicted GiB and the error as printed there.
    void docs_memory_table_matches() {
        QFile file(QStringLiteral(COST_CONFIG_DIR "/../../../docs/cost-model-calibration.md"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString docs = QString::fromUtf8(file.readAll());
        static const QRegularExpression line(
            R"(^\| M(\d+) \|[^|]*\|[^|]*\| \((\d+), (\d+), (\d+)\), micro (\d+), seq (\d+), `([a-z-]+)`(?:, (\d+) loss chunks)?(?:, (fp32 eager) loss)? \| )"
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
            QCOMPARE(m.captured(8).isEmpty() ? 1LL : m.captured(8).toLongLong(),
                     static_cast<long long>(row.loss_chunks));
            QCOMPARE(m.captured(9).isEmpty(), row.loss == LossLogits::fused);
            QCOMPARE(m.captured(10) == "ran", row.ran);
            const auto memory = predict_memory(row);
            if (row.measured_gib > 0) {
                QCOMPARE(m.captured(11).toDouble(), row.measured_gib);
                QCOMPARE(m.captured(14),
                         QString::asprintf("%+.1f%%", (memory.total() / gib / row.measured_gib - 1.0) * 100.0));
            } else {
                QCOMPARE(m.captured(11), QString("-"));
                QCOMPARE(m.captured(14), QString("-"));
            }
            QCOMPARE(m.captured(12), QString::asprintf("%.1f", memory.total() / gib));
            QCOMPARE(m.captured(13), QString::asprintf("%.1f", memory.usable / gib));
        }
        QCOMPARE(seen, std::size(memory_runs));
    }

    // The calibration scalar is the one, to the nearest 0.05, that minimizes the fitted rows' median absolute error;
    // the held-out rows play no part in it.
    void calibration_is_fitted_on_the_fitted_rows() {
        const double preset = make_cluster("h100", "ndr").value().calibration;
        double best = 0, best_median = 1e9;
        for (int i = 6; i <= 30; ++i) {
            const double c = 0.05 * i;
            const double median = median_abs_error(Set::fitted, c);
            qInfo("calibration %.2f: fitted median %.1f%%", c, median * 100.0);
            if (median < best_median - 1e-12) best_median = median, best = c;
        }
        QCOMPARE(preset, best);
        // B200, GB200 and H200 have no fitted row: they take H100's scalar (their rows are held out).
        QCOMPARE(make_cluster("b200", "ndr").value().calibration, preset);
        QCOMPARE(make_cluster("gb200", "ndr").value().calibration, preset);
        QCOMPARE(make_cluster("h200", "ndr").value().calibration, preset);
    }

    // The same split priced with one flat efficiency for every FLOP (the model before compute by shape), fitted on
    // the same rows the same way: the medians docs/cost-model-calibration.md compares, each to half a point.
    void flat_efficiency_on_the_same_split() {
        double best = 0, best_median = 1e9;
        for (int i = 4; i <= 20; ++i) {
            const double e = 0.05 * i;
            const double median = median_abs_error(Set::fitted, -e);
            if (median < best_median - 1e-12) best_median = median, best = e;
        }
        const double held_out = median_abs_error(Set::held_out, -best);
        qInfo("flat efficiency %.2f: fitted median %.1f%%, held-out median %.1f%%", best, best_median * 100.0,
              held_out * 100.0);
        QVERIFY(std::abs(best - documented_flat_efficiency) < 1e-9);
        QVERIFY2(std::abs(best_median - documented_flat_fitted_median) <= 0.005,
                 qPrintable(QString::number(best_median * 100.0)));
        QVERIFY2(std::abs(held_out - documented_flat_held_out_median) <= 0.005,
                 qPrintable(QString::number(held_out * 100.0)));
    }

    // The medians docs/cost-model-calibration.md states, each held to half a percentage point, and what the held-out
    // set spans (rows, frameworks, GPU types, Qwen3-MoE rows among them).
    void medians_and_held_out_span() {
        const double fitted = median_abs_error(Set::fitted);
        const double held_out = median_abs_error(Set::held_out);
        qInfo("fitted median %.1f%%, held-out median %.1f%%", fitted * 100.0, held_out * 100.0);
        QVERIFY2(std::abs(fitted - documented_fitted_median) <= 0.005, qPrintable(QString::number(fitted * 100.0)));
        QVERIFY2(std::abs(held_out - documented_held_out_median) <= 0.005,
                 qPrintable(QString::number(held_out * 100.0)));
        std::set<std::string> frameworks, gpus, fitted_frameworks;
        int held = 0, qwen3_moe = 0;
        for (const auto& row : rows) {
            if (row.set == Set::fitted) {
                fitted_frameworks.insert(row.framework);
                continue;
            }
            ++held;
            frameworks.insert(row.framework);
            gpus.insert(row.gpu);
            if (std::string(row.model).rfind("qwen3-", 0) == 0 &&
                std::string(row.model).find("-a") != std::string::npos)
                ++qwen3_moe;
        }
        // The aim: at least 12 held-out rows, from at least three frameworks, on at least two GPU types.
        QVERIFY(held >= 12);
        QVERIFY(frameworks.size() >= 3);
        QVERIFY(gpus.size() >= 2);
        QCOMPARE(held, 15);
        QCOMPARE(frameworks, (std::set<std::string>{"Megatron-Bridge", "Megatron-LM", "torchtitan"}));
        QCOMPARE(gpus, (std::set<std::string>{"b200", "gb200", "h100"}));
        QCOMPARE(qwen3_moe, 9);
        // Split by source: no framework has rows in both sets.
        for (const auto& f : fitted_frameworks) QVERIFY(!frameworks.count(f));
    }

    // The kernel curves' points are the cited figures (docs/cost-model-compute.md, "The curves"), written here from the
    // sources: x and the TFLOPS each measured, over the 989 TFLOPS dense bf16 peak of H100 and H200.
    void kernel_curve_points_data() {
        QTest::addColumn<bool>("gemm");
        QTest::addColumn<double>("x");
        QTest::addColumn<double>("tflops");
        // VeOmni pull 460: 32768 tokens x top-10 / 512 experts = 640 rows, hidden 2048, FFN 512.
        QTest::addRow("VeOmni 512 experts, 640 rows") << true << 640.0 * 2048 * 512 << 180.67;
        // grouped_gemm pull 37: 65536 tokens / 128 experts = 512 rows, K 2048, N 1536 = 2 x 768.
        QTest::addRow("grouped_gemm Qwen3-30B-A3B up_proj, 512 rows") << true << 512.0 * 2048 * 768 << 160.5;
        // VeOmni pull 460: 32768 tokens x top-8 / 128 experts = 2048 rows, hidden 2048, FFN 768.
        QTest::addRow("VeOmni Qwen3-30B-A3B shape, 2048 rows") << true << 2048.0 * 2048 * 768 << 242.12;
        // TileOPs pull 1567: GLM up N 4096 = 2 x 2048, K 6144, M total / 256 experts.
        QTest::addRow("TileOPs GLM up, 1024 rows") << true << 262144.0 / 256 * 6144 * 2048 << 603.0;
        QTest::addRow("TileOPs GLM up, 2048 rows") << true << 524288.0 / 256 * 6144 * 2048 << 624.0;
        QTest::addRow("TileOPs GLM up, 4096 rows") << true << 1048576.0 / 256 * 6144 * 2048 << 617.0;
        QTest::addRow("TileOPs GLM up, 8192 rows") << true << 2097152.0 / 256 * 6144 * 2048 << 597.0;
        // pytorch/benchmark pull 2391, flash_v3, head dim 128.
        QTest::addRow("FA3 seq 512") << false << 512.0 << 430.32;
        QTest::addRow("FA3 seq 1024") << false << 1024.0 << 517.099;
        QTest::addRow("FA3 seq 2048") << false << 2048.0 << 565.544;
        QTest::addRow("FA3 seq 4096") << false << 4096.0 << 590.233;
        QTest::addRow("FA3 seq 8192") << false << 8192.0 << 614.234;
        QTest::addRow("FA3 seq 16384") << false << 16384.0 << 620.73;
    }
    void kernel_curve_points() {
        QFETCH(bool, gemm);
        QFETCH(double, x);
        QFETCH(double, tflops);
        const auto& curve = gemm ? gemm_curve() : attention_curve();
        QVERIFY(std::any_of(curve.begin(), curve.end(), [&](const KernelPoint& p) { return p.x == x; }));
        QVERIFY(std::abs(curve_share(curve, x) - tflops / 989.0) < 1e-12);
    }

    // Between two points the curve is linear in log2(x), flat outside: half way (in log2) between the 512-row and
    // 2048-row Qwen3-30B-A3B points the share is their mean; below the first point the first share, above the last
    // the last.
    void kernel_curve_between_points() {
        const double lo = 512.0 * 2048 * 768, hi = 2048.0 * 2048 * 768;
        QVERIFY(std::abs(curve_share(gemm_curve(), std::sqrt(lo * hi)) - (160.5 + 242.12) / 2 / 989.0) < 1e-12);
        QVERIFY(std::abs(curve_share(gemm_curve(), 1.0) - 180.67 / 989.0) < 1e-12);
        QVERIFY(std::abs(curve_share(gemm_curve(), 1e15) - 597.0 / 989.0) < 1e-12);
        QVERIFY(std::abs(curve_share(attention_curve(), 128) - 430.32 / 989.0) < 1e-12);
        QVERIFY(std::abs(curve_share(attention_curve(), 131072) - 620.73 / 989.0) < 1e-12);
    }

    // The expert GEMMs' M: NeMo AutoModel's Qwen3-30B-A3B run (micro-batch 4 x 4096 tokens, ep 8) gives each expert
    // 16384 x 8 x 8 / 128 = 8192 rows a micro-batch; at ep 1 and micro-batch 1 it is 4096 x 8 / 128 = 256.
    void expert_tokens_per_micro_batch() {
        const auto compute = predict(rows[0]).step.compute;
        const auto& e = compute.shape;
        qInfo("shares: attention projections %.3f, router %.3f, experts %.3f, output %.3f, core %.3f; step %.3f",
              e.attention_projections, e.router, e.experts, e.output_layer, e.core, compute.efficiency);
        QCOMPARE(e.tokens, 16384.0);
        QCOMPARE(e.expert_tokens, 8192.0);
        auto in = inputs_of(rows[0], 0);
        in.training.micro_batch = 1;
        in.training.shape_micro_batch = 0;
        const auto one = shape_efficiency(in, Topology::make(8, 1, 1).value());
        QCOMPARE(one.expert_tokens, 256.0);
        QVERIFY(std::abs(one.experts - 180.67 / 989.0) < 1e-12);  // below the curve's first point
    }

    // The table in docs/cost-model-calibration.md is the one this test holds: each row's set, mapping (dp, cp, ep,
    // micro-batch, micro-batches per step, recompute, a2a overlap, loss chunks), measured and predicted tokens/s per
    // GPU and error as printed there, and the medians the text states.
    void docs_table_matches() {
        QFile file(QStringLiteral(COST_CONFIG_DIR "/../../../docs/cost-model-calibration.md"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString docs = QString::fromUtf8(file.readAll());
        static const QRegularExpression line(
            R"(^\| (\d+) \| (fitted|held-out) \|[^|]*\|[^|]*\|[^|]*\| \((\d+), (\d+), (\d+)\), (\d+) x (\d+)([^|]*)\| )"
            R"(([\d,]+) \| ([\d,]+) \| ([+-][\d.]+)% \|$)",
            QRegularExpression::MultilineOption);
        const auto number = [](const QString& text) { return QString(text).remove(',').toDouble(); };
        auto it = line.globalMatch(docs);
        std::size_t seen = 0;
        while (it.hasNext()) {
            const auto m = it.next();
            const std::size_t index = m.captured(1).toULongLong() - 1;
            QCOMPARE(index, seen++);
            QVERIFY(index < std::size(rows));
            const Row& row = rows[index];
            QCOMPARE(m.captured(2) == "fitted", row.set == Set::fitted);
            QCOMPARE(m.captured(3).toLongLong(), row.world / row.cp);
            QCOMPARE(m.captured(4).toLongLong(), row.cp);
            QCOMPARE(m.captured(5).toLongLong(), row.ep);
            QCOMPARE(m.captured(6).toLongLong(), row.micro);
            QCOMPARE(m.captured(7).toLongLong(), row.global / (row.world / row.cp * row.micro));
            QCOMPARE(m.captured(8).contains("full"), row.recompute == Recompute::full);
            QCOMPARE(m.captured(8).contains("torchtitan-selective"), row.recompute == Recompute::per_op);
            QCOMPARE(m.captured(8).contains("--overlap-a2a"), row.overlap_a2a);
            QCOMPARE(m.captured(8).contains(QString("kernels at micro-batch %1").arg(row.shape_micro)),
                     row.shape_micro != row.micro);
            QCOMPARE(m.captured(8).contains(QString("--loss-chunks %1").arg(row.loss_chunks)), row.loss_chunks > 1);
            QCOMPARE(m.captured(8).contains(QString("NVLink domain %1").arg(row.nvlink_domain)), row.nvlink_domain > 0);
            QCOMPARE(number(m.captured(9)), std::round(row.measured));
            const double predicted = predict(row).step.tokens_per_second_per_gpu;
            QCOMPARE(number(m.captured(10)), std::round(predicted));
            QCOMPARE(m.captured(11), QString::asprintf("%+.1f", (predicted / row.measured - 1.0) * 100.0));
        }
        QCOMPARE(seen, std::size(rows));
        const auto count = [](Set set) {
            return std::count_if(std::begin(rows), std::end(rows), [&](const Row& r) { return r.set == set; });
        };
        const QString fitted =
            QString::asprintf("**Fitted: median absolute error %.1f%%** over %d rows",
                              median_abs_error(Set::fitted) * 100.0, static_cast<int>(count(Set::fitted)));
        const QString held =
            QString::asprintf("**Held out: median absolute error %.1f%%** over %d rows",
                              median_abs_error(Set::held_out) * 100.0, static_cast<int>(count(Set::held_out)));
        QVERIFY2(docs.contains(fitted), qPrintable(fitted));
        QVERIFY2(docs.contains(held), qPrintable(held));
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
