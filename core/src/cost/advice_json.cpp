#include "meshscope/cost/advice_json.h"

namespace meshscope::cost {

namespace {
using nlohmann::ordered_json;

ordered_json topology_json(const Topology& t) {
    return ordered_json{{"dp", t.dp}, {"cp", t.cp}, {"ep", t.ep}, {"efsdp", t.efsdp}, {"edp", t.edp}};
}

// Bytes as whole numbers: readers compare them without rounding questions.
std::int64_t whole(double bytes) {
    return static_cast<std::int64_t>(bytes + 0.5);
}
}  // namespace

ordered_json layout_cost_json(const LayoutCost& cost) {
    const auto& m = cost.memory;
    ordered_json out = topology_json(cost.topology);
    out["fits"] = m.fits();
    out["memory"] =
        ordered_json{{"params_bytes", whole(m.params)},         {"grads_bytes", whole(m.grads)},
                     {"optimizer_bytes", whole(m.optimizer)},   {"activations_bytes", whole(m.activations)},
                     {"all_to_all_bytes", whole(m.all_to_all)}, {"fsdp_buffers_bytes", whole(m.fsdp_buffers)},
                     {"total_bytes", whole(m.total())},         {"usable_bytes", whole(m.usable)},
                     {"headroom_bytes", whole(m.headroom())}};
    ordered_json dims = ordered_json::array();
    for (const auto& d : cost.dims) {
        ordered_json collectives = ordered_json::array();
        for (const auto& c : d.collectives)
            collectives.push_back(ordered_json{{"collective", to_string(c.collective)},
                                               {"bytes", whole(c.bytes)},
                                               {"calls", c.calls},
                                               {"bus_factor", c.bus_factor},
                                               {"wire_bytes", whole(c.wire_bytes)},
                                               {"seconds", c.seconds}});
        dims.push_back(ordered_json{{"mesh", d.mesh},
                                    {"dim", d.dim},
                                    {"size", d.size},
                                    {"link", to_string(d.link)},
                                    {"nodes", d.nodes},
                                    {"wire_bytes", whole(d.wire_bytes)},
                                    {"seconds", d.seconds},
                                    {"exposed_seconds", d.exposed_seconds},
                                    {"collectives", std::move(collectives)}});
    }
    const auto& st = cost.step;
    out["step"] = ordered_json{{"seconds", st.seconds},
                               {"compute_seconds", st.compute.seconds},
                               {"exposed_communication_seconds", st.exposed_seconds},
                               {"grad_accum", st.grad_accum},
                               {"tokens", whole(st.tokens)},
                               {"tokens_per_second_per_gpu", st.tokens_per_second_per_gpu},
                               {"mfu", st.mfu},
                               {"model_flops_per_token", st.compute.model_flops_per_token},
                               {"hardware_flops_per_token", st.compute.hardware_flops_per_token},
                               {"compute_share", st.compute.efficiency},
                               {"expert_rows", st.compute.shape.expert_tokens}};
    out["communication"] = ordered_json{{"seconds", cost.seconds},
                                        {"intra_node_seconds", cost.intra_node_seconds},
                                        {"inter_node_seconds", cost.inter_node_seconds},
                                        {"dims", std::move(dims)}};
    return out;
}

ordered_json inputs_json(const CostInputs& in) {
    const auto& p = in.params;
    const auto& t = in.training;
    const auto& c = in.cluster;
    return ordered_json{
        {"model",
         {{"name", in.model.name},
          {"total_params", p.total()},
          {"active_params", p.active()},
          {"mtp_params", p.mtp()},
          {"routed_expert_params", p.routed_expert_params()}}},
        {"training",
         {{"seq", t.seq},
          {"micro_batch", t.micro_batch},
          {"grad_accum", t.grad_accum},
          {"global_batch", t.global_batch},
          {"recompute", to_string(t.recompute)},
          {"loss_chunks", t.loss_chunks},
          {"fp8_dispatch", t.fp8_dispatch},
          {"overlap_a2a", t.overlap_a2a}}},
        {"cluster",
         {{"hardware", c.hardware},
          {"network", c.network},
          {"gpus_per_node", c.gpus_per_node},
          {"gib_per_gpu", c.gib_per_gpu},
          {"reserve", c.reserve},
          {"peak_tflops", c.peak_tflops},
          {"efficiency", c.efficiency},
          {"calibration", c.calibration},
          {"intra_node_gbps", c.intra.bus_gbps},
          {"inter_node_gbps", c.inter.bus_gbps}}},
    };
}

ordered_json advice_json(const CostInputs& in, const Advice& advice, std::size_t show) {
    ordered_json out{{"schema", advice_schema}};
    const ordered_json inputs = inputs_json(in);  // items() refers to it: it must outlive the loop
    for (const auto& [key, value] : inputs.items()) out[key] = value;
    out["world"] = advice.world;
    out["global_batch"] = advice.global_batch;
    out["why"] = advice.why;
    out["layouts_considered"] = advice.considered();
    out["layouts_that_fit"] = advice.ranked.size();
    ordered_json ranked = ordered_json::array();
    for (std::size_t i = 0; i < advice.ranked.size() && i < show; ++i) {
        ordered_json layout{{"rank", i + 1}};
        const ordered_json cost = layout_cost_json(advice.ranked[i]);
        for (const auto& [key, value] : cost.items()) layout[key] = value;
        if (const auto& chosen = advice.ranked[i]; !chosen.knobs.empty()) {  // the advisor chose the knobs
            layout["micro_batch"] = chosen.micro_batch;
            layout["recompute"] = to_string(chosen.recompute);
            layout["knobs"] = chosen.knobs;
        }
        ranked.push_back(std::move(layout));
    }
    out["ranked"] = std::move(ranked);
    ordered_json excluded = ordered_json::array();
    for (const auto& e : advice.excluded) {
        ordered_json item = topology_json(e.topology);
        item["reason"] = e.reason;
        excluded.push_back(std::move(item));
    }
    out["excluded"] = std::move(excluded);
    return out;
}

}  // namespace meshscope::cost
