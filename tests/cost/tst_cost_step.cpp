// Step time on cases worked by hand in this file: FLOPs per token, compute time, the overlap rules, the global
// batch's gradient accumulation, and the ranking by step time (docs/cost-model.md, "Compute", "Overlap").
#include <QTest>

#include <cmath>

#include "cost_test_support.h"
#include "meshscope/cost/advice.h"
#include "meshscope/cost/compute.h"
#include "meshscope/cost/layout_cost.h"
#include "meshscope/cost/presets.h"

using namespace meshscope;
using namespace meshscope::cost;

Q_DECLARE_METATYPE(meshscope::cost::Recompute)

namespace {
DimCost dim_with(const char* name, std::vector<std::pair<double, std::int64_t>> collectives) {
    DimCost d;
    d.dim = name;
    d.size = 8;
    for (const auto& [seconds, calls] : collectives) {
        CollectiveCost c;
        c.seconds = seconds;
        c.calls = calls;
        d.collectives.push_back(c);
        d.seconds += seconds;
    }
    return d;
}
}  // namespace

class CostStepTest : public QObject {
    Q_OBJECT
private slots:
    // tiny_moe, seq 4 (parameters worked in tst_cost_formulas: attention 192, router 32, expert 144, dense FFN 288,
    // output layer 10 x 8 = 80), forward FLOPs per token, 2 per weight:
    //   projections 2 layers x 2 x 192 = 768; causal core 2 layers x s (q 8 + out 8) = 2 x 4 x 16 = 128;
    //   router 2 x 32 = 64; experts top-2: 2 x 2 x 144 = 576; dense FFN 2 x 288 = 576; output 2 x 80 = 160;
    //   total 2272; the layers alone (what full recomputation repeats) 2272 - 160 = 2112.
    void forward_flops_of_the_tiny_model() {
        const auto m = costtest::tiny_moe();
        const auto f = forward_flops_per_token(m, count_parameters(m), 4);
        QCOMPARE(f.attention, 768.0);
        QCOMPARE(f.core, 128.0);
        QCOMPARE(f.router, 64.0);
        QCOMPARE(f.experts, 576.0);
        QCOMPARE(f.dense_ffn, 576.0);
        QCOMPARE(f.output_layer, 160.0);
        QCOMPARE(f.mtp, 0.0);
        QCOMPARE(f.total(), 2272.0);
        QCOMPARE(f.layers, 2112.0);
        // The causal term grows with the sequence: seq 8 doubles it (256), nothing else moves.
        QCOMPARE(forward_flops_per_token(m, count_parameters(m), 8).total(), 2272.0 + 128.0);
    }

    // Qwen3.5-35B-A3B at seq 4096, forward FLOPs per token counted by hand from its config.json (parameters as
    // tst_cost_models' qwen3_5_parameters counts them), 2 FLOPs per weight:
    //   projections: 30 Gated DeltaNet layers x 2 x 33,718,464 + 10 full-attention layers x 2 x 27,263,488
    //     = 2,023,107,840 + 545,269,760 = 2,568,377,600;
    //   core, full attention (causal): 10 x s (q 16 x 256 + out 16 x 256) = 10 x 4096 x 8192 = 335,544,320;
    //   core, gated delta rule per layer: 32 value heads x (C (5 dk + 3 dv) + 6 dk dv), C 64, dk = dv = 128
    //     = 32 x (64 x 1024 + 98,304) = 5,242,880; 30 layers: 157,286,400;
    //   router 40 x 2 x 524,288 = 41,943,040; experts 40 x 2 x (8 x 3,145,728 + 3,147,776) = 2,265,088,000;
    //   output layer 2 x 248320 x 2048 = 1,017,118,720. Total 6,385,358,080.
    void forward_flops_of_qwen3_5() {
        const auto m = find_model_preset("qwen3.5-35b-a3b").value();
        const auto f = forward_flops_per_token(m, count_parameters(m), 4096);
        QCOMPARE(f.attention, 2023107840.0 + 545269760.0);
        QCOMPARE(linear_core_flops_per_token(m), 5242880.0);
        QCOMPARE(f.core, 335544320.0 + 157286400.0);
        QCOMPARE(f.router, 41943040.0);
        QCOMPARE(f.experts, 2265088000.0);
        QCOMPARE(f.dense_ffn, 0.0);
        QCOMPARE(f.output_layer, 1017118720.0);
        QCOMPARE(f.total(), 6385358080.0);
    }

    // An MTP module repeating the last (MoE) layer: eh_proj 2 x 2h x h = 256, the layer's projections 384, core 64,
    // router 64, experts 576, and the output layer again 160: 1504 more.
    void forward_flops_of_an_mtp_module() {
        auto m = costtest::tiny_moe();
        m.mtp_layers = 1;
        const auto f = forward_flops_per_token(m, count_parameters(m), 4);
        QCOMPARE(f.mtp, 1504.0);
        QCOMPARE(f.total(), 2272.0 + 1504.0);
        QCOMPARE(f.layers, 2112.0 + 384.0 + 64.0 + 64.0 + 576.0);
    }

    // Published model FLOPs per token (model TFLOP/s per GPU over tokens/s per GPU of the same run) against ours,
    // 3 x forward: NeMo AutoModel's Qwen3 MoE 30B, 277e12 / 12,040 = 23.01 GFLOP; its DeepSeek V3 (no MTP),
    // 250e12 / 1,002 = 249.5 GFLOP; Megatron-MoE-ModelZoo's Qwen3-235B-A22B, 276e12 / (2048 x 4096 / 256 / 17.6 s)
    // = 148.2 GFLOP; Megatron-Bridge's GB200 BF16 runs (25.11 container), DeepSeek V3 (w/o MTP) 782e12 / 3,139 =
    // 249.1 GFLOP and Qwen3-235B-A22B 728e12 / 4,916 = 148.1 GFLOP. The frameworks count the same terms; agreement
    // within 1%.
    void model_flops_match_published_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<bool>("mtp");
        QTest::addColumn<double>("published");
        QTest::addRow("qwen3-30b-a3b") << "qwen3-30b-a3b" << false << 277e12 / 12040.0;
        QTest::addRow("deepseek-v3 without MTP") << "deepseek-v3" << false << 250e12 / 1002.0;
        QTest::addRow("qwen3-235b-a22b") << "qwen3-235b-a22b" << false << 276e12 / (2048.0 * 4096 / 256 / 17.6);
        QTest::addRow("deepseek-v3 without MTP, Megatron-Bridge") << "deepseek-v3" << false << 782e12 / 3139.0;
        QTest::addRow("qwen3-235b-a22b, Megatron-Bridge") << "qwen3-235b-a22b" << false << 728e12 / 4916.0;
    }
    void model_flops_match_published() {
        QFETCH(QString, model);
        QFETCH(bool, mtp);
        QFETCH(double, published);
        auto m = find_model_preset(model.toStdString()).value();
        if (!mtp) m.mtp_layers = 0;
        const double ours = 3.0 * forward_flops_per_token(m, count_parameters(m), 4096).total();
        QVERIFY2(std::abs(ours / published - 1.0) < 0.01,
                 qPrintable(QString("ours %1 GFLOP, published %2").arg(ours / 1e9).arg(published / 1e9)));
    }

    // Compute time: tokens per GPU x hardware FLOPs per token / (peak x efficiency). With a peak of 1e-6 TFLOPS
    // (1e6 FLOP/s) at efficiency 0.5: seq 4, micro-batch 1, 3 micro-batches, cp 1 -> 12 tokens; model FLOPs
    // 3 x 2272 = 6816 per token: 12 x 6816 / 5e5 = 0.163584 s. Full recomputation adds 2112 per token:
    // 12 x 8928 / 5e5 = 0.214272 s. cp 2 halves the tokens per GPU: 0.081792 s.
    void compute_time_data() {
        QTest::addColumn<Recompute>("recompute");
        QTest::addColumn<int>("cp");
        QTest::addColumn<double>("seconds");
        QTest::addColumn<double>("hardware_flops");
        QTest::addRow("selective") << Recompute::selective << 1 << 0.163584 << 6816.0;
        QTest::addRow("full recompute") << Recompute::full << 1 << 0.214272 << 8928.0;
        QTest::addRow("cp 2") << Recompute::none << 2 << 0.081792 << 6816.0;
    }
    void compute_time() {
        QFETCH(Recompute, recompute);
        QFETCH(int, cp);
        QFETCH(double, seconds);
        QFETCH(double, hardware_flops);
        auto in = costtest::tiny_inputs(recompute, 4, 3);
        in.cluster.peak_tflops = 1e-6;
        in.cluster.efficiency = 0.5;
        const auto c = compute_cost(in, Topology::make(2, cp, 1).value(), 3);
        QCOMPARE(c.model_flops_per_token, 6816.0);
        QCOMPARE(c.hardware_flops_per_token, hardware_flops);
        COMPARE_BYTES(c.tokens_per_gpu, 12.0 / cp);
        COMPARE_BYTES(c.seconds, seconds);
    }

    // Compute by shape on the hand-worked model: every GEMM of hidden 8 is far below the GEMM curve's first point
    // (640 x 2048 x 512 multiply-accumulates), so each runs at its share, 180.67 / 989; the attention core at sequence
    // 4 is below the attention curve's first point (512), 430.32 / 989. The core is s (q + o) = 4 x (8 + 8) = 64
    // FLOPs per token and layer, 2 layers: 128 forward, 384 with backward, 512 with full recomputation's second
    // forward. 12 tokens at a peak of 1e-6 TFLOPS and calibration 0.5: selective
    // 12 x ((6816 - 384) / s_gemm + 384 / s_core) / 5e5; full 12 x ((8928 - 512) / s_gemm + 512 / s_core) / 5e5.
    void compute_time_by_shape_data() {
        QTest::addColumn<Recompute>("recompute");
        QTest::addColumn<double>("gemm_flops");
        QTest::addColumn<double>("core_flops");
        QTest::addRow("selective") << Recompute::selective << 6816.0 - 384.0 << 384.0;
        QTest::addRow("full recompute") << Recompute::full << 8928.0 - 512.0 << 512.0;
    }
    void compute_time_by_shape() {
        QFETCH(Recompute, recompute);
        QFETCH(double, gemm_flops);
        QFETCH(double, core_flops);
        auto in = costtest::tiny_inputs(recompute, 4, 3);
        in.cluster.peak_tflops = 1e-6;
        in.cluster.calibration = 0.5;
        const auto c = compute_cost(in, Topology::make(2, 1, 1).value(), 3);
        QVERIFY(c.by_shape);
        const double s_gemm = 180.67 / 989.0, s_core = 430.32 / 989.0;
        COMPARE_BYTES(c.seconds, 12.0 * (gemm_flops / s_gemm + core_flops / s_core) / 5e5);
        COMPARE_BYTES(c.efficiency, c.tokens_per_gpu * c.hardware_flops_per_token / (c.seconds * 1e6));
        // Each rank's micro-batch holds 4 tokens; 4 x top-2 x ep 1 / 4 experts = 2 rows per expert.
        COMPARE_BYTES(c.shape.tokens, 4.0);
        COMPARE_BYTES(c.shape.expert_tokens, 2.0);
    }

    // The overlap rules on hand-made dims: dp all-gather 10 ms over 5 calls, reduce-scatter 6 ms over 3; ep 4 ms;
    // cp 2 ms.
    //   compute 100 ms: dp exposes one gather (2 ms) and one reduce-scatter (2 ms), hides 12 ms behind compute;
    //     ep and cp exposed whole: 4 + 4 + 2 = 10 ms.
    //   compute 100 ms, overlap_a2a: ep hides too (16 ms behind 100): 4 + 0 + 2 = 6 ms.
    //   compute 10 ms, overlap_a2a: 16 ms behind 10 ms of compute leaves 6 ms, shared by time: dp 12/16 x 6 = 4.5,
    //     ep 4/16 x 6 = 1.5; dp 4 + 4.5 = 8.5, ep 1.5, cp 2: 12 ms.
    void overlap_rules_data() {
        QTest::addColumn<double>("compute");
        QTest::addColumn<bool>("overlap_a2a");
        QTest::addColumn<double>("dp");
        QTest::addColumn<double>("ep");
        QTest::addColumn<double>("cp");
        QTest::addRow("all hidden") << 0.100 << false << 0.004 << 0.004 << 0.002;
        QTest::addRow("a2a overlapped") << 0.100 << true << 0.004 << 0.0 << 0.002;
        QTest::addRow("compute too short") << 0.010 << true << 0.0085 << 0.0015 << 0.002;
    }
    void overlap_rules() {
        QFETCH(double, compute);
        QFETCH(bool, overlap_a2a);
        QFETCH(double, dp);
        QFETCH(double, ep);
        QFETCH(double, cp);
        std::vector<DimCost> dims{dim_with("dp", {{0.010, 5}, {0.006, 3}}), dim_with("ep", {{0.004, 10}}),
                                  dim_with("cp", {{0.002, 4}, {0.0, 0}}), dim_with("edp", {})};
        const double total = apply_overlap(dims, compute, overlap_a2a);
        COMPARE_BYTES(dims[0].exposed_seconds, dp);
        COMPARE_BYTES(dims[1].exposed_seconds, ep);
        COMPARE_BYTES(dims[2].exposed_seconds, cp);
        QCOMPARE(dims[3].exposed_seconds, 0.0);
        COMPARE_BYTES(total, dp + ep + cp);
    }

    // A global batch divides into micro-batches per layout, or the layout is excluded with the reason.
    void grad_accum_for_a_global_batch_data() {
        QTest::addColumn<int>("global");
        QTest::addColumn<int>("micro");
        QTest::addColumn<int>("dp");
        QTest::addColumn<int>("expected");
        QTest::addColumn<QString>("error");
        QTest::addRow("64 over 8 x 2") << 64 << 2 << 8 << 4 << "";
        QTest::addRow("64 over 64 x 1") << 64 << 1 << 64 << 1 << "";
        QTest::addRow("not a multiple") << 100 << 1 << 8 << 0
                                        << "global batch of 100 sequences is not a multiple of dp x micro-batch "
                                           "(8 x 1 = 8)";
        QTest::addRow("too small") << 4 << 1 << 8 << 0
                                   << "global batch of 4 sequences is smaller than dp x micro-batch (8 x 1 = 8)";
        QTest::addRow("no global batch: grad_accum as given") << 0 << 1 << 8 << 3 << "";
    }
    void grad_accum_for_a_global_batch() {
        QFETCH(int, global);
        QFETCH(int, micro);
        QFETCH(int, dp);
        QFETCH(int, expected);
        QFETCH(QString, error);
        auto t = TrainingSpec::make(4096, micro, 3, Recompute::selective).value();
        t.global_batch = global;
        const auto m = grad_accum_for(t, dp);
        if (error.isEmpty()) {
            QVERIFY(m.has_value());
            QCOMPARE(*m, std::int64_t{expected});
        } else {
            QVERIFY(!m.has_value());
            QCOMPARE(QString::fromStdString(m.error().message()), error);
        }
    }

    // A layout's step: compute plus the dims' exposed time; tokens per second per GPU and MFU from it.
    void step_adds_up() {
        auto in = costtest::tiny_inputs(Recompute::none, 4, 2);
        in.cluster.peak_tflops = 1e-6;
        in.cluster.efficiency = 0.5;
        const auto topology = Topology::make(4, 2, 2).value();
        const auto placement = Placement::make(8, 4).value();
        const auto cost = cost_layout(in, topology, mesh_dims(topology, placement));
        const auto& s = cost.step;
        QCOMPARE(s.grad_accum, std::int64_t{2});
        // 2 micro-batches of 4 tokens split over cp 2: 4 tokens per GPU, 32 over the 8 GPUs.
        QCOMPARE(s.compute.tokens_per_gpu, 4.0);
        QCOMPARE(s.tokens, 32.0);
        COMPARE_BYTES(s.compute.seconds, 4.0 * 6816.0 / 5e5);
        double exposed = 0;
        for (const auto& d : cost.dims) exposed += d.exposed_seconds;
        COMPARE_BYTES(s.exposed_seconds, exposed);
        COMPARE_BYTES(s.seconds, s.compute.seconds + exposed);
        COMPARE_BYTES(s.tokens_per_second_per_gpu, 4.0 / s.seconds);
        COMPARE_BYTES(s.mfu, s.tokens_per_second_per_gpu * 6816.0 / 1e6);
        QVERIFY(s.mfu < 0.5);  // never above the efficiency: communication only adds time
    }

    // The question the advisor answers: Qwen3-30B-A3B on 64 H200 at one global batch (64 sequences, what cp 1 runs
    // with one micro-batch). Every layout computes the same tokens, so cp > 1 only adds Ulysses' all-to-alls and
    // micro-batches (FSDP re-gathers per micro-batch): the layout that ranked first by communication alone (dp 8,
    // cp 8, ep 8, 8 micro-batches) ranks behind every cp 1 layout with ep >= 8. With so little compute a step (4,096
    // tokens per GPU) FSDP's traffic cannot hide, and ep 64 (experts held whole, none gathered) edges out ep 8
    // (all-to-all inside a node): the sentence says both.
    void qwen3_30b_on_64_h200() {
        const auto in = CostInputs::make(find_model_preset("qwen3-30b-a3b").value(),
                                         TrainingSpec::make(4096, 1, 1, Recompute::selective).value(),
                                         make_cluster("h200", "ndr").value());
        const auto advice = advise(in, 64).value();
        QCOMPARE(advice.global_batch, std::int64_t{64});
        QCOMPARE(advice.ranked.front().topology.cp, std::int64_t{1});
        const auto rank_of = [&](std::int64_t cp, std::int64_t ep) {
            for (std::size_t i = 0; i < advice.ranked.size(); ++i)
                if (advice.ranked[i].topology.cp == cp && advice.ranked[i].topology.ep == ep) return i;
            return advice.ranked.size();
        };
        for (std::int64_t ep : {8, 16, 32, 64}) QVERIFY(rank_of(1, ep) < rank_of(8, 8));
        QCOMPARE(advice.ranked[0].topology.ep, std::int64_t{64});
        QCOMPARE(advice.ranked[1].topology.ep, std::int64_t{8});
        const auto why = QString::fromStdString(advice.why);
        QVERIFY2(why.startsWith("dp 64, cp 1, ep 64 is 2% faster than dp 64, cp 1, ep 8 ("), qPrintable(why));
        QVERIFY2(why.contains("ep 64 holds its experts whole (efsdp 1)"), qPrintable(why));
        QVERIFY2(why.contains("though its ep all-to-all crosses 8 nodes"), qPrintable(why));
        // 2% is less than the 8% by which the model split two layouts measured equal: the sentence says so.
        QVERIFY2(why.endsWith(". Under 10% apart, closer than the model can order two layouts: measure both."),
                 qPrintable(why));
        for (const auto& layout : advice.ranked) QCOMPARE(layout.step.tokens, 64.0 * 4096.0);
    }

    // why_faster names the dims the winner saves on, with the reason.
    void why_names_the_reason() {
        LayoutCost winner, runner;
        winner.topology = Topology::make(64, 1, 8).value();
        runner.topology = Topology::make(8, 8, 8).value();
        winner.step.seconds = 1.0;
        runner.step.seconds = 1.5;
        DimCost ep_w = dim_with("ep", {{0.1, 1}}), ep_r = dim_with("ep", {{0.3, 1}});
        ep_w.exposed_seconds = 0.1;
        ep_r.exposed_seconds = 0.3;
        ep_r.link = LinkKind::inter_node;
        ep_r.nodes = 8;
        DimCost cp_r = dim_with("cp", {{0.15, 1}});
        cp_r.exposed_seconds = 0.15;
        DimCost cp_w = dim_with("cp", {});
        cp_w.size = 1;
        winner.dims = {ep_w, cp_w};
        runner.dims = {ep_r, cp_r};
        QCOMPARE(QString::fromStdString(why_faster(winner, runner)),
                 QStringLiteral("dp 64, cp 1, ep 8 is 50% faster than dp 8, cp 8, ep 8 (1.00 s against 1.50 s a step): "
                                "ep 8 keeps the all-to-all inside a node where ep 8 crosses 8 nodes (100.0 ms exposed "
                                "against 300.0 ms); cp 1 needs no sequence all-to-all (0.0 ms exposed against "
                                "150.0 ms)."));
        // 1.05 s against 1.00 s: the same reasons, and a margin the model cannot vouch for.
        runner.step.seconds = 1.05;
        QCOMPARE(QString::fromStdString(why_faster(winner, runner)),
                 QStringLiteral("dp 64, cp 1, ep 8 is 5% faster than dp 8, cp 8, ep 8 (1.00 s against 1.05 s a step): "
                                "ep 8 keeps the all-to-all inside a node where ep 8 crosses 8 nodes (100.0 ms exposed "
                                "against 300.0 ms); cp 1 needs no sequence all-to-all (0.0 ms exposed against "
                                "150.0 ms). Under 10% apart, closer than the model can order two layouts: measure "
                                "both."));
        runner.step.seconds = 1.0;
        QCOMPARE(QString::fromStdString(why_faster(winner, runner)),
                 QStringLiteral("dp 64, cp 1, ep 8 and dp 8, cp 8, ep 8 take the same step time (1.00 s); it needs "
                                "less memory per GPU."));
    }
};

QTEST_APPLESS_MAIN(CostStepTest)
#include "tst_cost_step.moc"
