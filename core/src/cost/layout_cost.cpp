#include "meshscope/cost/layout_cost.h"

#include <algorithm>

namespace meshscope::cost {

std::string_view to_string(LinkKind link) noexcept {
    return link == LinkKind::inter_node ? "inter_node" : "intra_node";
}

double collective_seconds(Collective collective, std::int64_t group_size, std::int64_t nodes, double wire_bytes,
                          std::int64_t calls, const ClusterSpec& cluster) noexcept {
    if (group_size <= 1 || calls <= 0) return 0.0;
    // A ring all-reduce takes 2(n-1) steps, the others n-1 (nccl-tests doc/PERFORMANCE.md); of each pass's steps,
    // nodes - 1 cross the network.
    const std::int64_t passes = collective == Collective::all_reduce ? 2 : 1;
    const std::int64_t spanned = std::clamp<std::int64_t>(nodes, 1, group_size);
    const auto inter_steps = static_cast<double>(passes * (spanned - 1));
    const auto intra_steps = static_cast<double>(passes * (group_size - 1)) - inter_steps;
    const double per_call = cluster.base_latency_us + intra_steps * cluster.intra.hop_latency_us +
                            inter_steps * cluster.inter.hop_latency_us;
    const Link& bottleneck = spanned > 1 ? cluster.inter : cluster.intra;
    return static_cast<double>(calls) * per_call * 1e-6 + wire_bytes / (bottleneck.bus_gbps * 1e9);
}

LayoutCost cost_layout(const CostInputs& in, const Topology& topology, const std::vector<MeshDim>& dims) {
    LayoutCost out;
    out.topology = topology;
    out.memory = memory_per_gpu(in, topology);
    for (const auto& md : dims) {
        const std::int64_t nodes = md.crosses_node ? std::max<std::int64_t>(md.nodes, 2) : 1;
        DimCost dim;
        dim.mesh = md.mesh;
        dim.dim = md.dim;
        dim.size = md.size;
        dim.link = md.crosses_node ? LinkKind::inter_node : LinkKind::intra_node;
        dim.nodes = nodes;
        for (Collective c : collectives_of(md.dim)) {
            const Payload load = payload(in, topology, md.dim, c);
            CollectiveCost cc;
            cc.collective = c;
            // A group of one moves nothing: no bytes, no launches (NCCL returns at once).
            cc.bytes = md.size > 1 ? load.bytes : 0;
            cc.calls = md.size > 1 ? load.calls : 0;
            cc.bus_factor = bus_factor(c, md.size);
            cc.wire_bytes = cc.bytes * cc.bus_factor;
            cc.seconds = collective_seconds(c, md.size, nodes, cc.wire_bytes, cc.calls, in.cluster);
            dim.wire_bytes += cc.wire_bytes;
            dim.seconds += cc.seconds;
            dim.collectives.push_back(cc);
        }
        out.seconds += dim.seconds;
        (md.crosses_node ? out.inter_node_seconds : out.intra_node_seconds) += dim.seconds;
        out.dims.push_back(std::move(dim));
    }
    return out;
}

LayoutCost cost_plan(const CostInputs& in, const Plan& plan) {
    return cost_layout(in, plan.topology(), mesh_dims(plan));
}

}  // namespace meshscope::cost
