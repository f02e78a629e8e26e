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

double apply_overlap(std::vector<DimCost>& dims, double compute_seconds, bool overlap_a2a) noexcept {
    double behind = 0;  // time that runs behind compute
    std::vector<double> hidden(dims.size(), 0.0);
    for (std::size_t i = 0; i < dims.size(); ++i) {
        auto& d = dims[i];
        d.exposed_seconds = 0;
        if (d.dim == "dp" || d.dim == "efsdp") {
            // FSDP2 prefetches the next unit's all-gather while one computes, and reduce-scatters a unit's gradients
            // while the next backward runs; the step's first gather and its last reduce-scatter have nothing to
            // run behind.
            for (const auto& c : d.collectives) {
                if (c.calls <= 0) continue;
                const double one = c.seconds / static_cast<double>(c.calls);
                d.exposed_seconds += one;
                hidden[i] += c.seconds - one;
            }
        } else if (d.dim == "ep" && overlap_a2a) {
            hidden[i] = d.seconds;
        } else {
            // ep without overlap: the expert GEMMs wait for the dispatch and the next layer for the combine;
            // Ulysses' all-to-alls sit between the projections and attention; the cp and expert_cp gradient
            // all-reduces follow the last backward.
            d.exposed_seconds = d.seconds;
        }
        behind += hidden[i];
    }
    const double excess = behind - compute_seconds;
    double total = 0;
    for (std::size_t i = 0; i < dims.size(); ++i) {
        if (excess > 0 && behind > 0) dims[i].exposed_seconds += excess * hidden[i] / behind;
        total += dims[i].exposed_seconds;
    }
    return total;
}

LayoutCost cost_layout(const CostInputs& in, const Topology& topology, const std::vector<MeshDim>& dims) {
    LayoutCost out;
    out.topology = topology;
    out.micro_batch = in.training.micro_batch;
    out.recompute = in.training.recompute;
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
    auto& step = out.step;
    step.grad_accum = in.training.grad_accum;
    step.compute = compute_cost(in, topology, step.grad_accum);
    step.tokens = step.compute.tokens_per_gpu * static_cast<double>(topology.dp * topology.cp);
    step.exposed_seconds = apply_overlap(out.dims, step.compute.seconds, in.training.overlap_a2a);
    step.seconds = step.compute.seconds + step.exposed_seconds;
    if (step.seconds > 0) {
        step.tokens_per_second_per_gpu = step.compute.tokens_per_gpu / step.seconds;
        step.mfu =
            step.tokens_per_second_per_gpu * step.compute.model_flops_per_token / (in.cluster.peak_tflops * 1e12);
    }
    return out;
}

LayoutCost cost_plan(const CostInputs& in, const Plan& plan) {
    return cost_layout(in, plan.topology(), mesh_dims(plan));
}

}  // namespace meshscope::cost
