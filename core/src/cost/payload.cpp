// What each dim's collectives carry in one optimizer step (docs/cost-model.md, "Communication"). A dim joins
// the cost model with a row in dim_collectives.h and a case here.
#include "meshscope/cost/layout_cost.h"

namespace meshscope::cost {

namespace {
struct Shape {
    double tokens;               // per rank per micro-batch
    std::int64_t micro_batches;  // per step
    std::int64_t moe_layers;     // MTP included
    std::int64_t layers;         // MTP included
    std::int64_t units;          // FSDP units on the dp mesh (ParameterCounts::fsdp_units)
    double forwards;             // forward passes per micro-batch: 2 under full recomputation
};

Shape shape_of(const CostInputs& in, const Topology& topology) {
    const auto& p = in.params;
    const std::int64_t moe_layers = p.moe_layers + (p.mtp_is_moe ? p.mtp_modules : 0);
    const std::int64_t layers = p.moe_layers + p.dense_layers + p.mtp_modules;
    Shape shape;
    shape.tokens = tokens_per_rank(in.training, topology.cp);
    shape.micro_batches = in.training.grad_accum;
    shape.moe_layers = moe_layers;
    shape.layers = layers;
    shape.units = p.fsdp_units();
    shape.forwards = in.training.recompute == Recompute::full ? 2.0 : 1.0;
    return shape;
}

// Parameters the outer FSDP2 on the dp mesh holds: all but the routed experts when ep > 1.
double dp_mesh_params(const CostInputs& in, const Topology& topology) {
    const auto& p = in.params;
    return static_cast<double>(topology.ep > 1 ? p.non_expert_params() : p.trained());
}
}  // namespace

Payload payload(const CostInputs& in, const Topology& topology, std::string_view dim, Collective collective) noexcept {
    const auto& t = in.training;
    const auto& p = in.params;
    const auto& m = in.model;
    const Shape s = shape_of(in, topology);
    const auto mb = static_cast<double>(s.micro_batches);
    if (dim == "dp") {
        // FSDP2 with reshard_after_forward: every unit gathered in forward and again in backward (the root is not
        // resharded, so gathered once), gradients reduce-scattered in fp32 after every micro-batch's backward.
        const double params = dp_mesh_params(in, topology);
        const auto root = static_cast<double>(p.root_unit());
        if (collective == Collective::all_gather)
            return {mb * (2.0 * params - root) * t.param_bytes, s.micro_batches * (2 * s.units - 1)};
        if (collective == Collective::reduce_scatter) return {mb * params * t.reduce_bytes, s.micro_batches * s.units};
    } else if (dim == "efsdp") {
        // The experts of one ep rank (E / ep per layer), gathered and reduce-scattered like the outer FSDP.
        const double experts = static_cast<double>(p.routed_expert_params()) / static_cast<double>(topology.ep);
        if (collective == Collective::all_gather)
            return {mb * 2.0 * experts * t.param_bytes, s.micro_batches * 2 * s.moe_layers};
        if (collective == Collective::reduce_scatter)
            return {mb * experts * t.reduce_bytes, s.micro_batches * s.moe_layers};
    } else if (dim == "ep") {
        // Per MoE layer: dispatch and combine in forward (again under full recomputation), their gradients in
        // backward (bf16); every token goes to top_k experts.
        if (collective != Collective::all_to_all) return {};
        const double copies = s.tokens * static_cast<double>(m.top_k * m.hidden);
        const double per_layer =
            s.forwards * copies * (t.dispatch_bytes() + t.activation_bytes) + 2.0 * copies * t.activation_bytes;
        const auto launches = static_cast<std::int64_t>(2.0 * s.forwards + 2.0);
        return {mb * static_cast<double>(s.moe_layers) * per_layer, s.micro_batches * s.moe_layers * launches};
    } else if (dim == "cp") {
        if (collective == Collective::all_to_all) {
            // Ulysses: q, k, v scattered by head and the output gathered back, in forward and in backward.
            const double width = static_cast<double>(m.q_width() + m.k_width() + m.v_width() + m.attention_out_width());
            const double per_layer = (s.forwards + 1.0) * s.tokens * width * t.activation_bytes;
            const auto launches = static_cast<std::int64_t>(4.0 * (s.forwards + 1.0));
            return {mb * static_cast<double>(s.layers) * per_layer, s.micro_batches * s.layers * launches};
        }
        if (collective == Collective::all_reduce) {
            // The gradient shards the dp mesh holds are summed over cp once per step.
            return {dp_mesh_params(in, topology) / static_cast<double>(topology.dp) * t.grad_bytes, s.units};
        }
    } else if (dim == "expert_cp") {
        if (collective != Collective::all_reduce) return {};
        return {static_cast<double>(p.routed_expert_params()) / static_cast<double>(topology.dp) * t.grad_bytes,
                s.moe_layers};
    }
    return {};
}

}  // namespace meshscope::cost
