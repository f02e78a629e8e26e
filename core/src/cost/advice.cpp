#include "meshscope/cost/advice.h"

#include <algorithm>
#include <cstdio>

namespace meshscope::cost {

namespace {
std::string gib(double bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", bytes / (1024.0 * 1024.0 * 1024.0));
    return text;
}

std::vector<std::int64_t> divisors(std::int64_t n) {
    std::vector<std::int64_t> low, high;
    for (std::int64_t d = 1; d * d <= n; ++d)
        if (n % d == 0) {
            low.push_back(d);
            if (d != n / d) high.push_back(n / d);
        }
    low.insert(low.end(), high.rbegin(), high.rend());
    return low;
}
}  // namespace

std::optional<std::string> layout_problem(const ModelSpec& model, const Topology& topology) {
    if (topology.ep > 1) {
        if (auto per_rank = experts_per_rank(model.routed_experts, topology.ep); !per_rank)
            return per_rank.error().message();
    }
    if (topology.cp > 1) {
        // LlamaFactory's Ulysses plugin asserts these (sequence_parallel.py).
        if (model.query_heads() % topology.cp != 0) return "num_attention_heads must be divisible by cp_size";
        const std::int64_t kv = model.key_value_heads();
        if (kv % topology.cp != 0 && topology.cp % kv != 0) return "num_key_value_heads must be divisible by cp_size";
    }
    return std::nullopt;
}

std::string does_not_fit(const MemoryBreakdown& memory, const ClusterSpec& cluster) {
    char reserve[16];
    std::snprintf(reserve, sizeof reserve, "%g%%", cluster.reserve * 100.0);
    char total[16];
    std::snprintf(total, sizeof total, "%g", cluster.gib_per_gpu);
    return "needs " + gib(memory.total()) + " GiB per GPU; " + gib(memory.usable) + " GiB usable (" + total +
           " GiB less the " + reserve + " reserve)";
}

Expected<Advice> advise(const CostInputs& in, std::int64_t world) {
    if (world > max_world_size)
        return ValueError("world_size (" + std::to_string(world) + ") exceeds the supported maximum of " +
                          std::to_string(max_world_size) + ".");
    const auto placement = Placement::make(world, in.cluster.gpus_per_node);
    if (!placement) return placement.error();
    Advice advice;
    advice.world = world;
    for (std::int64_t cp : divisors(world)) {
        const std::int64_t dp = world / cp;
        for (std::int64_t ep : divisors(dp)) {
            const Topology topology = Topology::make(dp, cp, ep).value();
            if (auto problem = layout_problem(in.model, topology)) {
                advice.excluded.push_back({topology, *problem});
                continue;
            }
            const MemoryBreakdown memory = memory_per_gpu(in, topology);
            if (!memory.fits()) {
                advice.excluded.push_back({topology, does_not_fit(memory, in.cluster)});
                continue;
            }
            advice.ranked.push_back(cost_layout(in, topology, mesh_dims(topology, *placement)));
        }
    }
    std::sort(advice.ranked.begin(), advice.ranked.end(), [](const LayoutCost& a, const LayoutCost& b) {
        if (a.seconds != b.seconds) return a.seconds < b.seconds;
        if (a.memory.total() != b.memory.total()) return a.memory.total() < b.memory.total();
        if (a.topology.cp != b.topology.cp) return a.topology.cp < b.topology.cp;
        return a.topology.ep < b.topology.ep;
    });
    return advice;
}

}  // namespace meshscope::cost
