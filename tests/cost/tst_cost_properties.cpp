// Properties the cost model must keep over many layouts, models and node sizes (no expected value is computed
// by the code under test: each check compares the model with itself or with core's placement).
#include <QTest>

#include <algorithm>
#include <cmath>

#include "cost_test_support.h"
#include "meshscope/cost/advice.h"
#include "meshscope/cost/advice_json.h"
#include "meshscope/cost/compute.h"
#include "meshscope/cost/presets.h"
#include "meshscope/mesh/parallel_state.h"
#include "meshscope/mesh/plan_json.h"

using namespace meshscope;
using namespace meshscope::cost;

namespace {
CostInputs preset_inputs(const char* model, Recompute recompute, const char* hardware = "h200") {
    return CostInputs::make(find_model_preset(model).value(), TrainingSpec::make(4096, 1, 2, recompute).value(),
                            make_cluster(hardware, "ndr").value());
}

const char* const models[] = {"qwen3-30b-a3b", "qwen3-235b-a22b", "deepseek-v3", "mixtral-8x7b"};
}  // namespace

class CostPropertiesTest : public QObject {
    Q_OBJECT
private slots:
    // ep 1: no expert mesh, no all-to-all bytes, no all-to-all buffer for experts.
    void ep_one_has_no_all_to_all() {
        for (const char* model : models)
            for (std::int64_t world : {8, 64, 256}) {
                const auto advice = advise(preset_inputs(model, Recompute::full, "b200"), world).value();
                for (const auto& layout : advice.ranked) {
                    if (layout.topology.ep != 1) continue;
                    for (const auto& dim : layout.dims) {
                        QVERIFY(dim.dim != "ep");
                        for (const auto& c : dim.collectives)
                            if (c.collective == Collective::all_to_all) QCOMPARE(dim.dim, std::string("cp"));
                    }
                    if (layout.topology.cp == 1) QCOMPARE(layout.memory.all_to_all, 0.0);
                }
            }
    }

    // A dim whose groups all stay inside a node never pays the inter-node link; and the arithmetic that decides
    // it agrees with core's placement analysis of every group.
    void groups_inside_a_node_stay_on_nvlink_data() {
        QTest::addColumn<int>("world");
        QTest::addColumn<int>("gpus_per_node");
        QTest::addRow("16 on 8") << 16 << 8;
        QTest::addRow("48 on 8") << 48 << 8;
        QTest::addRow("24 on 6") << 24 << 6;
        QTest::addRow("36 on 4") << 36 << 4;
        QTest::addRow("30 on 7 (partial node)") << 30 << 7;
        QTest::addRow("64 on 3") << 64 << 3;
    }
    void groups_inside_a_node_stay_on_nvlink() {
        QFETCH(int, world);
        QFETCH(int, gpus_per_node);
        auto in = costtest::tiny_inputs();
        in.cluster.gpus_per_node = gpus_per_node;
        const auto placement = Placement::make(world, gpus_per_node).value();
        for (std::int64_t cp : valid_cp_sizes(world))
            for (std::int64_t ep : valid_ep_sizes(world / cp)) {
                const auto topology = Topology::make(world / cp, cp, ep).value();
                const auto plan = Plan::make(topology, gpus_per_node).value();
                const auto fast = mesh_dims(topology, placement);
                const auto exact = mesh_dims(plan);
                QCOMPARE(fast.size(), exact.size());
                for (std::size_t i = 0; i < fast.size(); ++i) {
                    QCOMPARE(fast[i].dim, exact[i].dim);
                    QCOMPARE(fast[i].nodes > 1, fast[i].crosses_node);
                    QCOMPARE(exact[i].nodes > 1, exact[i].crosses_node);
                    QVERIFY(fast[i].nodes <= exact[i].nodes);  // the first group's nodes, the plan's most
                    QVERIFY2(fast[i].crosses_node == exact[i].crosses_node,
                             qPrintable(QString("%1 of (%2, %3, %4)")
                                            .arg(QString::fromStdString(fast[i].dim))
                                            .arg(topology.dp)
                                            .arg(cp)
                                            .arg(ep)));
                }
                const auto cost = cost_plan(in, plan);
                double inside = 0;
                for (std::size_t i = 0; i < cost.dims.size(); ++i) {
                    const auto& d = cost.dims[i];
                    if (exact[i].crosses_node) continue;
                    QCOMPARE(d.link, LinkKind::intra_node);
                    inside += d.seconds;
                    // Its time is what the NVLink numbers give, never the network's.
                    for (const auto& c : d.collectives)
                        QCOMPARE(c.seconds,
                                 collective_seconds(c.collective, d.size, 1, c.wire_bytes, c.calls, in.cluster));
                }
                QVERIFY(std::abs(inside - cost.intra_node_seconds) <= 1e-12 * std::max(1.0, inside));
            }
    }

    // Doubling dp at fixed cp and ep never raises memory per GPU.
    void memory_never_rises_with_dp() {
        for (const char* model : models)
            for (auto recompute : {Recompute::none, Recompute::selective, Recompute::full}) {
                const auto in = preset_inputs(model, recompute);
                for (std::int64_t cp : {1, 2, 4})
                    for (std::int64_t ep : {1, 2, 8, 32})
                        for (std::int64_t dp = ep; dp <= 4096; dp *= 2) {
                            const double here = memory_per_gpu(in, Topology::make(dp, cp, ep).value()).total();
                            const double doubled = memory_per_gpu(in, Topology::make(2 * dp, cp, ep).value()).total();
                            QVERIFY2(doubled <= here, qPrintable(QString("%1 dp %2 cp %3 ep %4: %5 -> %6")
                                                                     .arg(model)
                                                                     .arg(dp)
                                                                     .arg(cp)
                                                                     .arg(ep)
                                                                     .arg(here)
                                                                     .arg(doubled)));
                        }
            }
    }

    // The ranking holds every layout once: ranked ones fit and are in order, excluded ones say why.
    void ranking_is_sorted_and_complete() {
        for (const char* model : models) {
            const auto advice = advise(preset_inputs(model, Recompute::selective), 128).value();
            // 128 = 2^7: cp in 2^0..2^7, ep in the divisors of dp: sum over c of (8 - c) = 36 layouts.
            QCOMPARE(advice.considered(), std::size_t{36});
            for (std::size_t i = 1; i < advice.ranked.size(); ++i)
                QVERIFY(advice.ranked[i - 1].step.seconds <= advice.ranked[i].step.seconds);
            for (const auto& layout : advice.ranked) QVERIFY(layout.memory.fits());
            for (const auto& e : advice.excluded) QVERIFY(!e.reason.empty());
        }
    }

    // At a fixed global batch, a GPU's compute time never rises when dp doubles with the world (its share of the
    // batch halves). At the same world with cp halved (its share stays) each rank's GEMMs get twice the rows: with one
    // flat efficiency the time stays; by shape it can rise only as far as the published kernel curve falls from a
    // smaller GEMM to a larger one (its points are measurements of different kernels and GPUs, not monotone).
    void compute_never_rises_when_dp_doubles() {
        double dip = 1.0;
        for (const auto* curve : {&gemm_curve(), &attention_curve()})
            for (std::size_t i = 0; i < curve->size(); ++i)
                for (std::size_t j = i + 1; j < curve->size(); ++j)
                    dip = std::max(dip, (*curve)[i].share / (*curve)[j].share);
        for (const char* model : models)
            for (Recompute recompute : {Recompute::selective, Recompute::full}) {
                auto in = preset_inputs(model, recompute);
                in.training.global_batch = 4096;
                for (std::int64_t cp : {1, 2, 4})
                    for (std::int64_t dp = 1; dp * 2 * cp <= 4096; dp *= 2) {
                        const auto one = Topology::make(dp, cp, 1).value();
                        const auto two = Topology::make(dp * 2, cp, 1).value();
                        const double a = compute_cost(in, one, grad_accum_for(in.training, dp).value()).seconds;
                        const double b = compute_cost(in, two, grad_accum_for(in.training, dp * 2).value()).seconds;
                        QVERIFY2(
                            b <= a,
                            qPrintable(QString("%1: dp %2 -> %3 at cp %4").arg(model).arg(dp).arg(dp * 2).arg(cp)));
                        if (cp > 1) {
                            const auto halved = Topology::make(dp * 2, cp / 2, 1).value();
                            const double c =
                                compute_cost(in, halved, grad_accum_for(in.training, dp * 2).value()).seconds;
                            QVERIFY(c <= a * dip * (1 + 1e-12));
                            auto flat = in;
                            flat.cluster.calibration = 0;
                            const auto k = grad_accum_for(in.training, dp).value();
                            const auto k2 = grad_accum_for(in.training, dp * 2).value();
                            QVERIFY(compute_cost(flat, halved, k2).seconds <=
                                    compute_cost(flat, one, k).seconds * (1 + 1e-12));
                        }
                    }
            }
    }

    // A layout's step time never falls when the network gets slower (ndr -> hdr) or a node holds fewer GPUs
    // (8 -> 4 -> 2 -> 1), for every layout of several worlds and models, with and without a2a overlap.
    void step_never_falls_on_a_worse_cluster() {
        for (const char* model : models)
            for (bool overlap : {false, true})
                for (std::int64_t world : {16, 64, 256}) {
                    auto fast = preset_inputs(model, Recompute::selective);
                    fast.training.overlap_a2a = overlap;
                    fast.training.global_batch = 2 * world;
                    auto slow_net = fast;
                    slow_net.cluster = make_cluster("h200", "hdr").value();
                    for (std::int64_t cp : valid_cp_sizes(world))
                        for (std::int64_t ep : valid_ep_sizes(world / cp)) {
                            const auto t = Topology::make(world / cp, cp, ep).value();
                            auto layout_in = fast;
                            layout_in.training.grad_accum = grad_accum_for(fast.training, t.dp).value();
                            auto step_on = [&](CostInputs in, std::int64_t gpus_per_node) {
                                in.training.grad_accum = layout_in.training.grad_accum;
                                in.cluster.gpus_per_node = gpus_per_node;
                                const auto placement = Placement::make(world, gpus_per_node).value();
                                return cost_layout(in, t, mesh_dims(t, placement)).step.seconds;
                            };
                            const auto where = QString("%1 world %2 (%3, %4, %5) overlap %6")
                                                   .arg(model)
                                                   .arg(world)
                                                   .arg(t.dp)
                                                   .arg(cp)
                                                   .arg(ep)
                                                   .arg(overlap);
                            double previous = step_on(fast, 8);
                            QVERIFY2(step_on(slow_net, 8) >= previous, qPrintable(where + " hdr"));
                            for (std::int64_t g : {4, 2, 1}) {
                                const double now = step_on(fast, g);
                                QVERIFY2(now >= previous * (1 - 1e-12),
                                         qPrintable(where + QString(" %1 per node").arg(g)));
                                previous = now;
                            }
                        }
                }
    }

    // Exclusions carry LlamaFactory's and core's exact texts.
    void exclusion_reasons() {
        const auto advice = advise(preset_inputs("mixtral-8x7b", Recompute::full, "b200"), 64).value();
        auto reason_of = [&](std::int64_t dp, std::int64_t cp, std::int64_t ep) -> std::string {
            for (const auto& e : advice.excluded)
                if (e.topology.dp == dp && e.topology.cp == cp && e.topology.ep == ep) return e.reason;
            return {};
        };
        QCOMPARE(reason_of(64, 1, 16), std::string("num_experts must be divisible by ep_size, got 8 % 16 != 0."));
        // Mixtral has 8 kv heads: cp 16 neither divides 8 nor is divided by... 16 % 8 == 0 passes; cp 64 > 32 heads.
        QCOMPARE(reason_of(1, 64, 1), std::string("num_attention_heads must be divisible by cp_size"));
        // Mixtral on one GPU: 46.7B parameters at 16 bytes do not fit 180 GiB.
        const auto one = advise(preset_inputs("mixtral-8x7b", Recompute::full, "b200"), 1).value();
        QCOMPARE(one.ranked.size(), std::size_t{0});
        QCOMPARE(one.excluded.size(), std::size_t{1});
        QVERIFY(one.excluded[0].reason.rfind("needs ", 0) == 0);
        QVERIFY(one.excluded[0].reason.find(" GiB usable (180 GiB less the 10% reserve)") != std::string::npos);
    }

    // The largest world ranks its 41 * 42 / 2 = 861 layouts without listing a group (bounded time and memory).
    void largest_world() {
        auto in = costtest::tiny_inputs();
        in.model.routed_experts = 1 << 20;
        for (std::int64_t g : {8, 6}) {
            in.cluster.gpus_per_node = g;
            const auto advice = advise(in, max_world_size).value();
            QCOMPARE(advice.considered(), std::size_t{861});
        }
    }

    // A plan document with the "cost" member `meshscope plan --model` adds reads back as the same plan.
    void plan_with_cost_reads_back() {
        const auto in = preset_inputs("qwen3-30b-a3b", Recompute::selective);
        const auto plan = Plan::make(Topology::make(16, 2, 4).value(), 8).value();
        auto document = to_json(plan);
        document["cost"] = nlohmann::json::parse(layout_cost_json(cost_plan(in, plan)).dump());
        const auto read = plan_from_json(document);
        QVERIFY(read.has_value());
        QCOMPARE(read->topology(), plan.topology());
    }

    void advise_errors() {
        const auto in = costtest::tiny_inputs();
        QCOMPARE(QString::fromStdString(advise(in, 0).error().message()),
                 QString("world_size must be positive, got 0."));
        QCOMPARE(QString::fromStdString(advise(in, max_world_size + 1).error().message()),
                 QString("world_size (1099511627777) exceeds the supported maximum of 1099511627776."));
    }
};

QTEST_APPLESS_MAIN(CostPropertiesTest)
#include "tst_cost_properties.moc"
