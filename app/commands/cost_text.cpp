#include "cost_text.h"

#include <cstdio>
#include <ostream>
#include <string>

namespace meshscope::app {

namespace {
std::string format(const char* pattern, double value) {
    char text[64];
    std::snprintf(text, sizeof text, pattern, value);
    return text;
}
std::string gib(double bytes) {
    return format("%.1f", bytes / (1024.0 * 1024.0 * 1024.0));
}
std::string billions(std::int64_t n) {
    return format("%.2fB", static_cast<double>(n) / 1e9);
}
// Milliseconds with two decimals: the ranking is sorted by these numbers as printed.
std::string ms(double seconds) {
    return format("%.2f", seconds * 1e3);
}
// Seconds with three decimals: the ranking is sorted by the step time as printed.
std::string secs(double seconds) {
    return format("%.3f", seconds);
}
std::string mib(double bytes) {
    return format("%.1f", bytes / (1024.0 * 1024.0));
}

std::string pad(std::string text, std::size_t width) {
    if (text.size() < width) text.insert(0, width - text.size(), ' ');
    return text;
}

std::string layout_name(const Topology& t) {
    return "dp " + std::to_string(t.dp) + ", cp " + std::to_string(t.cp) + ", ep " + std::to_string(t.ep);
}
}  // namespace

void write_inputs_text(std::ostream& out, const cost::CostInputs& in) {
    const auto& p = in.params;
    const auto& t = in.training;
    const auto& c = in.cluster;
    out << "model: " << in.model.name << " (" << billions(p.total()) << " parameters, " << billions(p.active())
        << " active";
    if (p.mtp() > 0) out << ", " << billions(p.mtp()) << " in MTP modules";
    out << ")\n";
    out << "cluster: " << c.hardware << " (" << format("%g", c.gib_per_gpu) << " GiB, " << gib(c.usable_bytes())
        << " GiB usable), " << c.gpus_per_node << " per node, NVLink " << format("%g", c.intra.bus_gbps) << " GB/s, "
        << c.network << " " << format("%g", c.inter.bus_gbps) << " GB/s per GPU\n";
    out << "training: seq " << t.seq << ", micro-batch " << t.micro_batch;
    if (t.global_batch > 0)
        out << ", global batch " << t.global_batch << " (grad-accum per layout)";
    else
        out << ", grad-accum " << t.grad_accum;
    out << ", recompute " << cost::to_string(t.recompute);
    if (t.loss_chunks > 1) out << ", loss in " << t.loss_chunks << " chunks";
    out << ", bf16, Adam (fp32 master and moments)\n";
    out << "compute: " << format("%g", c.peak_tflops) << " TFLOPS dense bf16 x "
        << (c.calibration > 0
                ? "each GEMM's and attention's share by shape x calibration " + format("%g", c.calibration)
                : "efficiency " + format("%g", c.efficiency))
        << "; ep all-to-all " << (t.overlap_a2a ? "overlapped with compute" : "exposed") << "\n";
}

void write_layout_cost_text(std::ostream& out, const cost::LayoutCost& cost) {
    const auto& m = cost.memory;
    out << "memory per GPU: " << gib(m.total()) << " GiB of " << gib(m.usable) << " GiB usable: "
        << (m.fits() ? "fits, " + gib(m.headroom()) + " GiB headroom"
                     : "does not fit, " + gib(-m.headroom()) + " GiB over")
        << "\n";
    for (const auto& [name, bytes] :
         {std::pair{"parameters", m.params}, std::pair{"gradients", m.grads}, std::pair{"optimizer", m.optimizer},
          std::pair{"activations", m.activations}, std::pair{"all-to-all buffers", m.all_to_all},
          std::pair{"FSDP buffers", m.fsdp_buffers}})
        out << "  " << name << std::string(20 - std::string(name).size(), ' ') << pad(gib(bytes), 7) << " GiB\n";
    const auto& st = cost.step;
    out << "step: " << secs(st.seconds) << " s = compute " << secs(st.compute.seconds) << " s + exposed communication "
        << secs(st.exposed_seconds) << " s; grad-accum " << st.grad_accum << ", " << format("%.0f", st.tokens)
        << " tokens a step, " << format("%.0f", st.tokens_per_second_per_gpu) << " tokens/s per GPU, MFU "
        << format("%.1f", st.mfu * 100.0) << "%\n";
    const auto& sh = st.compute.shape;
    out << "compute at " << format("%.1f", st.compute.efficiency * 100.0) << "% of the peak";
    if (st.compute.by_shape) {
        if (sh.expert_tokens > 0)
            out << "; expert GEMMs " << format("%.0f", sh.expert_tokens) << " rows a micro-batch (share "
                << format("%.3f", sh.experts) << ")";
        out << "; attention projections share " << format("%.3f", sh.attention_projections) << ", attention core "
            << format("%.3f", sh.core);
    } else {
        out << " (--efficiency: every FLOP alike)";
    }
    out << "\n";
    out << "communication per step: " << ms(cost.seconds) << " ms before overlap (inside nodes "
        << ms(cost.intra_node_seconds) << " ms, between nodes " << ms(cost.inter_node_seconds) << " ms), "
        << ms(st.exposed_seconds) << " ms exposed\n";
    for (const auto& d : cost.dims) {
        if (d.collectives.empty() || d.size <= 1) continue;  // size-1 dims move nothing
        out << "  " << d.mesh << "." << d.dim << " (size " << d.size << ", "
            << (d.link == cost::LinkKind::inter_node ? "across " + std::to_string(d.nodes) + " nodes" : "inside a node")
            << "): " << ms(d.seconds) << " ms, " << ms(d.exposed_seconds) << " ms exposed\n";
        for (const auto& c : d.collectives)
            out << "    " << to_string(c.collective) << ": " << c.calls << " calls, " << mib(c.bytes) << " MiB x "
                << format("%.3f", c.bus_factor) << " = " << mib(c.wire_bytes) << " MiB on the wire, " << ms(c.seconds)
                << " ms\n";
    }
}

void write_advice_text(std::ostream& out, const cost::CostInputs& in, const cost::Advice& advice, std::size_t show) {
    write_inputs_text(out, in);
    out << "world " << advice.world << ", global batch " << advice.global_batch << " sequences ("
        << advice.global_batch * in.training.seq << " tokens) a step: " << advice.considered() << " layouts, "
        << advice.ranked.size() << " fit, " << advice.excluded.size() << " excluded\n\n";
    if (!advice.ranked.empty()) {
        // With knobs the advisor chose per layout, two more columns: its micro-batch and recomputation.
        const bool chosen = !advice.ranked.front().knobs.empty();
        out << "rank     dp     cp     ep  efsdp    GA   step s  compute s  exposed s  tokens/s/GPU   MFU %  memory GiB"
               "  headroom GiB"
            << (chosen ? "   MB  recompute" : "") << "\n";
        for (std::size_t i = 0; i < advice.ranked.size() && i < show; ++i) {
            const auto& c = advice.ranked[i];
            const auto& t = c.topology;
            const auto& st = c.step;
            out << pad(std::to_string(i + 1), 4) << pad(std::to_string(t.dp), 7) << pad(std::to_string(t.cp), 7)
                << pad(std::to_string(t.ep), 7) << pad(std::to_string(t.efsdp), 7)
                << pad(std::to_string(st.grad_accum), 6) << pad(secs(st.seconds), 9)
                << pad(secs(st.compute.seconds), 11) << pad(secs(st.exposed_seconds), 11)
                << pad(format("%.0f", st.tokens_per_second_per_gpu), 14) << pad(format("%.1f", st.mfu * 100.0), 8)
                << pad(gib(c.memory.total()), 12) << pad(gib(c.memory.headroom()), 14);
            if (chosen) out << pad(std::to_string(c.micro_batch), 5) << "  " << cost::to_string(c.recompute);
            out << "\n";
        }
        if (advice.ranked.size() > show)
            out << "(" << advice.ranked.size() - show << " more that fit; --show N lists more)\n";
        if (!advice.why.empty()) out << "\nwhy: " << advice.why << "\n";
        if (chosen) out << "knobs: " << advice.ranked.front().knobs << "\n";
        out << "\nbest: " << layout_name(advice.ranked.front().topology) << "\n";
        write_layout_cost_text(out, advice.ranked.front());
    } else {
        out << "no layout fits: each one's reason is under excluded\n";
    }
    if (!advice.excluded.empty()) {
        out << "\nexcluded:\n";
        for (const auto& e : advice.excluded) out << "  " << layout_name(e.topology) << ": " << e.reason << "\n";
    }
}

}  // namespace meshscope::app
