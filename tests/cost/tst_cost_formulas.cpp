// Every formula of the cost model on cases worked by hand in this file (docs/cost-model.md has the formulas).
#include <QTest>

#include <cmath>

#include "cost_test_support.h"
#include "meshscope/cost/advice.h"
#include "meshscope/cost/compute.h"
#include "meshscope/cost/layout_cost.h"
#include "meshscope/cost/memory.h"
#include "meshscope/cost/presets.h"
#include "meshscope/mesh/dim_collectives.h"

using namespace meshscope;
using namespace meshscope::cost;

Q_DECLARE_METATYPE(meshscope::cost::Recompute)
Q_DECLARE_METATYPE(meshscope::Collective)

class CostFormulasTest : public QObject {
    Q_OBJECT
private slots:
    // tiny_moe by hand: attention 8*(8 + 2*4) + 8*8 = 192, norms 16, router 8*4 = 32, expert 3*8*6 = 144,
    // dense FFN 3*8*12 = 288; MoE layer 192+16+32+4*144 = 816, dense layer 192+16+288 = 496, embedding
    // 2*10*8 = 160, final norm 8.
    void parameters_of_the_tiny_model() {
        const auto p = count_parameters(costtest::tiny_moe());
        QCOMPARE(p.attention, 192);
        QCOMPARE(p.layer_norms, 16);
        QCOMPARE(p.router, 32);
        QCOMPARE(p.expert, 144);
        QCOMPARE(p.dense_ffn, 288);
        QCOMPARE(p.moe_layers, 1);
        QCOMPARE(p.dense_layers, 1);
        QCOMPARE(p.total(), 816 + 496 + 160 + 8);
        QCOMPARE(p.active(), (192 + 16 + 32 + 2 * 144) + 496 + 160 + 8);
        QCOMPARE(p.routed_expert_params(), 576);
        QCOMPARE(p.non_expert_params(), 1480 - 576);
        QCOMPARE(p.mtp(), 0);
        // FSDP2 units: 2 layers, the untied input embedding (80), the root (output layer 80 + final norm 8).
        QCOMPARE(p.embedding_unit(), 80);
        QCOMPARE(p.root_unit(), 88);
        QCOMPARE(p.fsdp_units(), 4);
        ModelSpec tied = costtest::tiny_moe();
        tied.tied_embeddings = true;
        QCOMPARE(count_parameters(tied).embedding_unit(), 0);
        QCOMPARE(count_parameters(tied).fsdp_units(), 3);
    }

    void attention_parameters_data() {
        QTest::addColumn<int>("kind");  // 0 standard, 1 latent
        QTest::addColumn<QList<int>>("dims");
        QTest::addColumn<int>("hidden");
        QTest::addColumn<qint64>("expected");
        // GQA: h*(q + 2kv) + q*h with q = heads*head_dim, kv = kv_heads*head_dim.
        QTest::addRow("gqa 2/1x4") << 0 << QList<int>{2, 1, 4, 0} << 8 << qint64{192};
        // Qwen3's q_norm and k_norm add 2*head_dim.
        QTest::addRow("gqa with qk norm") << 0 << QList<int>{2, 1, 4, 1} << 8 << qint64{192 + 8};
        // Qwen3-30B-A3B: 2048*(4096 + 2*512) + 4096*2048 + 2*128.
        QTest::addRow("qwen3-30b-a3b") << 0 << QList<int>{32, 4, 128, 1} << 2048 << qint64{18874368 + 256};
        // MLA, heads 2, q_lora 4, kv_lora 3, nope 2, rope 1, v 2, hidden 16:
        // q = 16*4 + 4 + 4*2*3 = 92; kv = 16*(3+1) + 3 + 3*2*(2+2) = 91; o = 2*2*16 = 64.
        QTest::addRow("mla") << 1 << QList<int>{2, 4, 3, 2, 1, 2} << 16 << qint64{92 + 91 + 64};
        // Without q LoRA: q = 16*2*3 = 96.
        QTest::addRow("mla without q lora") << 1 << QList<int>{2, 0, 3, 2, 1, 2} << 16 << qint64{96 + 91 + 64};
    }
    void attention_parameters() {
        QFETCH(int, kind);
        QFETCH(QList<int>, dims);
        QFETCH(int, hidden);
        QFETCH(qint64, expected);
        ModelSpec m = costtest::tiny_moe();
        m.hidden = hidden;
        if (kind == 0) {
            m.standard = {dims[0], dims[1], dims[2], dims[3] != 0};
        } else {
            m.attention = AttentionKind::latent;
            m.latent = {dims[0], dims[1], dims[2], dims[3], dims[4], dims[5]};
        }
        QCOMPARE(count_parameters(m).attention, expected);
    }

    // An MTP module repeats the last layer and adds eh_proj (2h x h) and three norms: with tiny_moe's MoE last
    // layer, 816 + 2*64 + 3*8 = 968; its experts count as routed experts.
    void mtp_modules() {
        ModelSpec m = costtest::tiny_moe();
        m.mtp_layers = 1;
        const auto p = count_parameters(m);
        QCOMPARE(p.mtp(), 968);
        QCOMPARE(p.total(), 1480);
        QCOMPARE(p.trained(), 1480 + 968);
        QCOMPARE(p.routed_expert_params(), 2 * 576);
    }

    // Hand-worked memory of tiny_moe on dp 2, cp 1, ep 2, seq 4, one micro-batch.
    //   params 1480/2*2 = 1480, grads 1480, optimizer 1480/2*12 = 8880.
    //   Per token, no recompute: MoE layer values 16 (norm in/out) + 24 (q 8, k 4, v 4, out 8) + 16 (norm in/out)
    //   + 2*(8 + 3*6) + 2*8 (top-2 copies and their outputs) = 124 -> 248 bytes, + fp32 4*2 (lse) + 4*4 (router)
    //   = 272; dense layer 16 + 24 + 16 + 3*12 = 92 -> 184 + 8 = 192; head 8 + 4*(8+10) = 80. 4 tokens: 2176.
    //   Selective: drops 2 norm outputs and the SwiGLU products: MoE 96 values -> 216 bytes, dense 64 -> 136:
    //   4*(216 + 136 + 80) = 1728. Full: 2 layer inputs of 8 values (32 bytes) and, as backward recomputes one layer
    //   after the head's backward is done, the larger of the largest layer (272) and the head (80): 4*304 = 1216.
    //   Megatron's selective (core attention) keeps what none keeps under flash attention: 2176.
    //   torchtitan's per-op (ep 2): the MoE layer keeps its input 8, the fused qkv output 16 (the first matmul; o_proj
    //   is the second), the attention output 8 and both all-to-alls' outputs 2*2*8 = 32: 64 values -> 128 bytes, +
    //   lse 8 + top-2 scores and indices 2*12 = 160; the dense layer its input 8, matmuls [qkv 16, o 8, w1 12, w3 12,
    //   w2 8] -> the 1st, 3rd and 5th: 16 + 12 + 8, the attention output 8: 52 values -> 104 bytes + lse 8 = 112;
    //   and one layer recomputed (272, more than the head's 80): 4*(160 + 112 + 272) = 2176.
    //   All-to-all: 2 * 4 tokens * top-2 * 8 * 2 bytes = 256.
    //   FSDP units: the MoE layer (240 non-expert + 576/2 experts = 528) beats the dense one (496) and the input
    //   embedding (80); two layers in flight 2*528*2, one layer's bf16 and fp32 gradient 528*(2+4), the root
    //   (output layer 80 + final norm 8) 88*2: 2112 + 3168 + 176 = 5456.
    void memory_by_part_data() {
        QTest::addColumn<Recompute>("recompute");
        QTest::addColumn<double>("activations");
        QTest::addRow("none") << Recompute::none << 2176.0;
        QTest::addRow("selective") << Recompute::selective << 1728.0;
        QTest::addRow("full") << Recompute::full << 1216.0;
        QTest::addRow("megatron-selective") << Recompute::core_attention << 2176.0;
        QTest::addRow("torchtitan-selective") << Recompute::per_op << 2176.0;
    }
    void memory_by_part() {
        QFETCH(Recompute, recompute);
        QFETCH(double, activations);
        const auto in = costtest::tiny_inputs(recompute);
        const auto m = memory_per_gpu(in, Topology::make(2, 1, 2).value());
        COMPARE_BYTES(m.params, 1480);
        COMPARE_BYTES(m.grads, 1480);
        COMPARE_BYTES(m.optimizer, 8880);
        COMPARE_BYTES(m.activations, activations);
        COMPARE_BYTES(m.all_to_all, 256);
        COMPARE_BYTES(m.fsdp_buffers, 5456);
        COMPARE_BYTES(m.total(), 1480 + 1480 + 8880 + activations + 256 + 5456);
        COMPARE_BYTES(m.usable, 0.9 * 1024 * 1024 * 1024);
        QVERIFY(m.fits());
        COMPARE_BYTES(m.headroom(), m.usable - m.total());
    }

    // Per token, what each mode keeps in one layer of tiny_moe, apart from the per-op mode's all-to-all outputs that
    // ep 1 does not have: the MoE layer 160 - 2*2*8*2 = 96 bytes at ep 1 (no all-to-all), the dense layer 112.
    void per_op_without_expert_parallelism() {
        const auto t = costtest::tiny_inputs(Recompute::per_op).training;
        COMPARE_BYTES(layer_activation_bytes_per_token(costtest::tiny_moe(), t, true, false, 1), 96);
        COMPARE_BYTES(layer_activation_bytes_per_token(costtest::tiny_moe(), t, true, false, 2), 160);
        COMPARE_BYTES(layer_activation_bytes_per_token(costtest::tiny_moe(), t, false, false, 2), 112);
    }

    // Qwen3-30B-A3B (h 2048, q 4096, k and v 512, 32 heads, 128 experts of 768, top-8), one MoE layer, per token:
    //   none: norms 4*2048, q k v o 4096+512+512+4096, q and k before their norm 4096+512, experts 8*(2048+3*768)
    //   + 8*2048: 73216 values -> 146432 bytes, + lse 32*4 + router 128*4 = 147072;
    //   selective drops both norm outputs and the 8 SwiGLU products: 73216 - 4096 - 6144 = 62976 -> 126592;
    //   Megatron's core-attention selective keeps what none keeps: 147072;
    //   torchtitan's per-op at ep 1: input 2048, fused qkv 5120, attention output 4096: 11264 -> 22528, + lse 128
    //   + top-8 scores and indices 96 = 22752; full: the input, 4096.
    void qwen3_layer_by_mode_data() {
        QTest::addColumn<Recompute>("recompute");
        QTest::addColumn<double>("bytes");
        QTest::addRow("none") << Recompute::none << 147072.0;
        QTest::addRow("selective") << Recompute::selective << 126592.0;
        QTest::addRow("megatron-selective") << Recompute::core_attention << 147072.0;
        QTest::addRow("torchtitan-selective") << Recompute::per_op << 22752.0;
        QTest::addRow("full") << Recompute::full << 4096.0;
    }
    void qwen3_layer_by_mode() {
        QFETCH(Recompute, recompute);
        QFETCH(double, bytes);
        const auto training = TrainingSpec::make(4096, 1, 1, recompute).value();
        COMPARE_BYTES(
            layer_activation_bytes_per_token(find_model_preset("qwen3-30b-a3b").value(), training, true, false, 1),
            bytes);
    }

    // The loss in 2 chunks: the head holds token ids 8, half of 4*(8 + 10) = 36, and the detached hidden states with
    // their gradient 2*8 values = 32: 76 bytes a token instead of 80; without recompute 4*(272 + 192 + 76) = 2160.
    void loss_in_chunks() {
        auto in = costtest::tiny_inputs(Recompute::none);
        in.training.loss_chunks = 2;
        COMPARE_BYTES(memory_per_gpu(in, Topology::make(2, 1, 2).value()).activations, 2160);
    }

    // Every name --recompute accepts, the mode it maps to, and the canonical name printed back.
    void recompute_names_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<Recompute>("mode");
        QTest::addColumn<QString>("canonical");
        QTest::addRow("none") << "none" << Recompute::none << "none";
        QTest::addRow("selective") << "selective" << Recompute::selective << "selective";
        QTest::addRow("full") << "full" << Recompute::full << "full";
        QTest::addRow("megatron-selective")
            << "megatron-selective" << Recompute::core_attention << "megatron-selective";
        QTest::addRow("torchtitan-selective") << "torchtitan-selective" << Recompute::per_op << "torchtitan-selective";
        QTest::addRow("llamafactory") << "llamafactory" << Recompute::full << "full";
        QTest::addRow("torchtitan-full") << "torchtitan-full" << Recompute::full << "full";
        QTest::addRow("automodel-full") << "automodel-full" << Recompute::full << "full";
        QTest::addRow("megatron-full") << "megatron-full" << Recompute::full << "full";
        QTest::addRow("megatron-layernorm-moe-act")
            << "megatron-layernorm-moe-act" << Recompute::selective << "selective";
    }
    void recompute_names() {
        QFETCH(QString, name);
        QFETCH(Recompute, mode);
        QFETCH(QString, canonical);
        const auto parsed = parse_recompute(name.toStdString());
        QVERIFY(parsed.has_value());
        QCOMPARE(*parsed, mode);
        QCOMPARE(QString::fromUtf8(to_string(mode).data(), static_cast<qsizetype>(to_string(mode).size())), canonical);
    }
    void recompute_names_text_lists_all() {
        QCOMPARE(QString::fromStdString(recompute_names_text()),
                 QString("none, selective, full, megatron-selective, torchtitan-selective, llamafactory, "
                         "torchtitan-full, automodel-full, megatron-full, megatron-layernorm-moe-act"));
        QVERIFY(!parse_recompute("Full").has_value());
        QVERIFY(!parse_recompute("sac").has_value());
        QCOMPARE(recompute_words(Recompute::per_op), std::string_view("torchtitan selective recompute"));
        QCOMPARE(knobs_text(4, Recompute::core_attention), std::string("micro-batch 4, Megatron selective recompute"));
    }

    // torchtitan's per-op mode runs again, per token of tiny_moe: half the attention projections (2 layers *
    // 2*192 / 2 = 384), the router (2*32 = 64), the routed experts whole (top-2 of 2*144: 576) and w3 of the dense FFN
    // (a third of 2*288 = 576: 192): 1216.
    void per_op_recompute_flops() {
        const auto in = costtest::tiny_inputs(Recompute::per_op);
        COMPARE_BYTES(forward_flops_per_token(in.model, in.params, 4).per_op_recompute, 1216);
        const auto compute = compute_cost(in, Topology::make(2, 1, 2).value(), 1);
        COMPARE_BYTES(compute.hardware_flops_per_token - compute.model_flops_per_token, 1216);
    }

    // cp 2 halves the tokens per rank (Ulysses) and its all-to-all buffers hold q, k and v:
    // 2 * 2 tokens * (8+4+4) * 2 bytes = 128; ep 1 has no expert all-to-all, and the MoE unit gathers all experts:
    // (240 + 576)*(2+2) + 816*(2+4) + 88*2 = 8336.
    void memory_under_cp() {
        const auto in = costtest::tiny_inputs(Recompute::none);
        const auto m = memory_per_gpu(in, Topology::make(1, 2, 1).value());
        COMPARE_BYTES(m.params, 2960);
        COMPARE_BYTES(m.activations, 2.0 * (272 + 192 + 80));
        COMPARE_BYTES(m.all_to_all, 128);
        COMPARE_BYTES(m.fsdp_buffers, 8336);
    }

    void bus_factors_data() {
        QTest::addColumn<Collective>("collective");
        QTest::addColumn<int>("n");
        QTest::addColumn<double>("factor");
        QTest::addRow("all-reduce 8") << Collective::all_reduce << 8 << 14.0 / 8.0;
        QTest::addRow("all-reduce 2") << Collective::all_reduce << 2 << 1.0;
        QTest::addRow("all-gather 8") << Collective::all_gather << 8 << 7.0 / 8.0;
        QTest::addRow("reduce-scatter 4") << Collective::reduce_scatter << 4 << 3.0 / 4.0;
        QTest::addRow("all-to-all 16") << Collective::all_to_all << 16 << 15.0 / 16.0;
        QTest::addRow("alone") << Collective::all_reduce << 1 << 0.0;
    }
    void bus_factors() {
        QFETCH(Collective, collective);
        QFETCH(int, n);
        QFETCH(double, factor);
        COMPARE_BYTES(bus_factor(collective, n), factor);
    }

    void dim_table() {
        QCOMPARE(collectives_of("ep").size(), std::size_t{1});
        QCOMPARE(collectives_of("ep")[0], Collective::all_to_all);
        QCOMPARE(collectives_of("dp").size(), std::size_t{2});
        QCOMPARE(collectives_of("efsdp")[1], Collective::reduce_scatter);
        QCOMPARE(collectives_of("cp")[0], Collective::all_to_all);
        QCOMPARE(collectives_of("cp")[1], Collective::all_reduce);
        QCOMPARE(collectives_of("expert_cp")[0], Collective::all_reduce);
        QVERIFY(collectives_of("edp").empty());
        QCOMPARE(to_string(Collective::reduce_scatter), std::string_view("reduce_scatter"));
    }

    // calls * (base + ring steps' hops) + wire / bandwidth, on round_cluster (inside a node 100 GB/s and 2 us per
    // step, between nodes 10 GB/s and 20 us, 10 us per launch). 3 all-reduces of 1 GB on wire in a group of 4:
    //   one node: 3*(10 + 6*2) us + 1e9 / 100e9 s = 66 us + 10 ms;
    //   two nodes: each of the 2 passes crosses the network once: 3*(10 + 4*2 + 2*20) us + 1e9 / 10e9 s.
    void collective_time() {
        const auto cluster = costtest::round_cluster();
        COMPARE_BYTES(collective_seconds(Collective::all_reduce, 4, 1, 1e9, 3, cluster), 66e-6 + 0.01);
        COMPARE_BYTES(collective_seconds(Collective::all_reduce, 4, 2, 1e9, 3, cluster), 174e-6 + 0.1);
        COMPARE_BYTES(collective_seconds(Collective::all_gather, 4, 1, 1e9, 3, cluster), 3 * 16e-6 + 0.01);
        // all-gather over 4 nodes of one rank each: every step crosses: 3*(10 + 3*20) us.
        COMPARE_BYTES(collective_seconds(Collective::all_gather, 4, 4, 1e9, 3, cluster), 210e-6 + 0.1);
        COMPARE_BYTES(collective_seconds(Collective::all_gather, 1, 1, 1e9, 3, cluster), 0);
    }

    // tiny_moe on dp 2, cp 1, ep 2 (efsdp 1), 4 tokens, one micro-batch, on one node of 4.
    //   dp all-gather: the outer FSDP holds the 904 non-expert parameters in 4 units (2 layers, the input
    //   embedding, the root), gathered in forward and backward but the root (80 + 8) once:
    //   (2*904 - 88)*2 = 3440 bytes, 2*4-1 = 7 calls; reduce-scatter 904*4 = 3616, 4 calls.
    //   ep all-to-all: 4 tokens * top-2 * 8 = 64 copies; forward dispatch and combine 64*(2+2), backward 2*64*2:
    //   512 bytes, 4 calls. Factor 1/2 on both dims.
    void traffic_by_dim() {
        const auto in = costtest::tiny_inputs(Recompute::none);
        const auto topology = Topology::make(2, 1, 2).value();
        const auto cost = cost_layout(in, topology, mesh_dims(topology, Placement::make(2, 4).value()));
        QCOMPARE(cost.dims.size(), std::size_t{6});
        const auto& dp = cost.dims[0];
        QCOMPARE(dp.dim, std::string("dp"));
        QCOMPARE(dp.link, LinkKind::intra_node);
        COMPARE_BYTES(dp.collectives[0].bytes, 3440);
        QCOMPARE(dp.collectives[0].calls, 7);
        COMPARE_BYTES(dp.collectives[0].wire_bytes, 1720);
        COMPARE_BYTES(dp.collectives[0].seconds, 7 * 12e-6 + 1720 / 100e9);
        COMPARE_BYTES(dp.collectives[1].bytes, 3616);
        QCOMPARE(dp.collectives[1].calls, 4);
        COMPARE_BYTES(dp.collectives[1].wire_bytes, 1808);
        const auto& ep = cost.dims[4];
        QCOMPARE(ep.dim, std::string("ep"));
        COMPARE_BYTES(ep.collectives[0].bytes, 512);
        QCOMPARE(ep.collectives[0].calls, 4);
        COMPARE_BYTES(ep.wire_bytes, 256);
        COMPARE_BYTES(ep.seconds, 4 * 12e-6 + 256 / 100e9);
        for (const auto& d : cost.dims) {
            if (d.size != 1) continue;
            QCOMPARE(d.seconds, 0.0);
            for (const auto& c : d.collectives) QCOMPARE(c.bytes, 0.0);
        }
        COMPARE_BYTES(cost.seconds, dp.seconds + ep.seconds);
        COMPARE_BYTES(cost.intra_node_seconds, cost.seconds);
        QCOMPARE(cost.inter_node_seconds, 0.0);
    }

    // Ulysses on dp 1, cp 2, ep 1: 2 tokens per rank; per layer q, k, v and output (8+4+4+8 = 24 values) in
    // forward and backward: 2 * 2 * 24 * 2 = 192 bytes, two layers 384, 8 calls each; the cp all-reduce sums the
    // dp mesh's gradient shard, here every parameter: 1480 * 2 bytes, one call per FSDP unit (4), factor 1.
    // With full recomputation the forward runs twice: 3 passes, 576 bytes, 12 calls per layer.
    void ulysses_traffic_data() {
        QTest::addColumn<Recompute>("recompute");
        QTest::addColumn<double>("all_to_all");
        QTest::addColumn<int>("calls");
        QTest::addRow("selective") << Recompute::selective << 384.0 << 16;
        QTest::addRow("full") << Recompute::full << 576.0 << 24;
    }
    void ulysses_traffic() {
        QFETCH(Recompute, recompute);
        QFETCH(double, all_to_all);
        QFETCH(int, calls);
        const auto in = costtest::tiny_inputs(recompute);
        const auto topology = Topology::make(1, 2, 1).value();
        const auto cost = cost_layout(in, topology, mesh_dims(topology, Placement::make(2, 4).value()));
        const auto& cp = cost.dims[1];
        QCOMPARE(cp.dim, std::string("cp"));
        COMPARE_BYTES(cp.collectives[0].bytes, all_to_all);
        QCOMPARE(cp.collectives[0].calls, calls);
        COMPARE_BYTES(cp.collectives[1].bytes, 2960);
        QCOMPARE(cp.collectives[1].calls, 4);
        COMPARE_BYTES(cp.collectives[1].wire_bytes, 2960);
        COMPARE_BYTES(cp.collectives[1].seconds, 4 * (10 + 2 * 2) * 1e-6 + 2960 / 100e9);
    }

    // Micro-batches multiply FSDP traffic (LlamaFactory reduce-scatters after every backward) but not the
    // once-per-step gradient all-reduces.
    void grad_accumulation() {
        const auto one = costtest::tiny_inputs(Recompute::none, 4, 1);
        const auto four = costtest::tiny_inputs(Recompute::none, 4, 4);
        const auto topology = Topology::make(2, 2, 2).value();
        COMPARE_BYTES(payload(four, topology, "dp", Collective::all_gather).bytes,
                      4 * payload(one, topology, "dp", Collective::all_gather).bytes);
        COMPARE_BYTES(payload(four, topology, "ep", Collective::all_to_all).bytes,
                      4 * payload(one, topology, "ep", Collective::all_to_all).bytes);
        COMPARE_BYTES(payload(four, topology, "expert_cp", Collective::all_reduce).bytes,
                      payload(one, topology, "expert_cp", Collective::all_reduce).bytes);
        // expert_cp: the expert gradient shard 576/2 * 2 bytes.
        COMPARE_BYTES(payload(one, topology, "expert_cp", Collective::all_reduce).bytes, 576);
        // efsdp (size 1 here) would carry the experts of one ep rank: 2 * 288 * 2 gathered, 288 * 4 reduced.
        COMPARE_BYTES(payload(one, topology, "efsdp", Collective::all_gather).bytes, 1152);
        COMPARE_BYTES(payload(one, topology, "efsdp", Collective::reduce_scatter).bytes, 1152);
    }

    // fp8 dispatch: 1 byte and a 4-byte scale per 128 values on the forward dispatch only.
    void fp8_dispatch() {
        auto in = costtest::tiny_inputs(Recompute::none);
        in.training.fp8_dispatch = true;
        const auto topology = Topology::make(2, 1, 2).value();
        COMPARE_BYTES(payload(in, topology, "ep", Collective::all_to_all).bytes, 64 * (1 + 4.0 / 128 + 2) + 2 * 64 * 2);
    }
};

QTEST_APPLESS_MAIN(CostFormulasTest)
#include "tst_cost_formulas.moc"
