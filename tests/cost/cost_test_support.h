// Shared by the cost-model tests: a small MoE model whose every count is worked by hand in the tests, and a
// cluster with round numbers.
#pragma once

#include <QTest>

#include "meshscope/cost/inputs.h"

namespace costtest {

// Two layers (layer 0 dense), hidden 8, 2 query heads and 1 kv head of 4, 4 experts of FFN 6, top-2,
// dense FFN 12, vocabulary 10, untied.
inline meshscope::cost::ModelSpec tiny_moe() {
    meshscope::cost::ModelSpec m;
    m.name = "tiny";
    m.layers = 2;
    m.hidden = 8;
    m.vocab = 10;
    m.standard = {2, 1, 4, false};
    m.routed_experts = 4;
    m.top_k = 2;
    m.expert_ffn = 6;
    m.dense_ffn = 12;
    m.dense_layers = {0};
    return m;
}

// 100 GB/s and 2 us per step inside a node, 10 GB/s and 20 us between nodes, 10 us per launch; 1 GiB per GPU.
inline meshscope::cost::ClusterSpec round_cluster(std::int64_t gpus_per_node = 4) {
    meshscope::cost::ClusterSpec c;
    c.hardware = "test";
    c.network = "test";
    c.gpus_per_node = gpus_per_node;
    c.gib_per_gpu = 1;
    c.intra = {100, 2};
    c.inter = {10, 20};
    c.base_latency_us = 10;
    return c;
}

inline meshscope::cost::CostInputs tiny_inputs(meshscope::cost::Recompute recompute = meshscope::cost::Recompute::none,
                                               std::int64_t seq = 4, std::int64_t grad_accum = 1) {
    return meshscope::cost::CostInputs::make(
        tiny_moe(), meshscope::cost::TrainingSpec::make(seq, 1, grad_accum, recompute).value(), round_cluster());
}

}  // namespace costtest

// Doubles that a formula computed: equal to a hand-worked value within 1e-9 relative.
#define COMPARE_BYTES(actual, expected)                                                                 \
    do {                                                                                                \
        const double a_ = (actual), e_ = (expected);                                                    \
        if (std::abs(a_ - e_) > 1e-9 * std::max(1.0, std::abs(e_)))                                     \
            QFAIL(qPrintable(QStringLiteral("got %1, want %2").arg(a_, 0, 'f', 6).arg(e_, 0, 'f', 6))); \
    } while (false)
