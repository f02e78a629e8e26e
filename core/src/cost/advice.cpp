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

std::int64_t default_global_batch(const TrainingSpec& training, std::int64_t world) noexcept {
    return world * training.micro_batch * training.grad_accum;
}

namespace {
std::string name_of(const Topology& t) {
    return "dp " + std::to_string(t.dp) + ", cp " + std::to_string(t.cp) + ", ep " + std::to_string(t.ep);
}

const DimCost* find_dim(const LayoutCost& cost, std::string_view dim) {
    for (const auto& d : cost.dims)
        if (d.dim == dim) return &d;
    return nullptr;
}

std::string seconds_text(double seconds) {
    char text[32];
    if (seconds >= 1.0)
        std::snprintf(text, sizeof text, "%.2f s", seconds);
    else
        std::snprintf(text, sizeof text, "%.1f ms", seconds * 1e3);
    return text;
}

// Why dim `dim` costs the winner less than the runner-up, in words.
std::string dim_reason(std::string_view dim, const DimCost* w, const DimCost* r, const Topology& wt) {
    const double we = w ? w->exposed_seconds : 0.0, re = r ? r->exposed_seconds : 0.0;
    // The winner's figure first, as in every parenthesis of the sentence.
    const std::string saved = " (" + seconds_text(we) + " exposed against " + seconds_text(re) + ")";
    const std::int64_t wsize = w ? w->size : 1, rsize = r ? r->size : 1;
    if (dim == "ep") {
        if (wsize > 1 && w->link == LinkKind::intra_node && r && r->link == LinkKind::inter_node)
            return "ep " + std::to_string(wsize) + " keeps the all-to-all inside a node where ep " +
                   std::to_string(rsize) + " crosses " + std::to_string(r->nodes) + " nodes" + saved;
        if (wsize <= 1) return "ep 1 needs no expert all-to-all" + saved;
        return "its ep all-to-all exposes less" + saved;
    }
    if (dim == "cp") {
        if (wsize <= 1) return "cp 1 needs no sequence all-to-all" + saved;
        return "its cp collectives expose less" + saved;
    }
    if (dim == "efsdp") {
        if (wsize <= 1 && wt.ep > 1)
            return "ep " + std::to_string(wt.ep) + " holds its experts whole (efsdp 1), so no expert weights are " +
                   "gathered or reduce-scattered" + saved;
        return "its expert gathers and reduce-scatters (efsdp) expose less" + saved;
    }
    if (dim == "dp") return "its dp gathers and reduce-scatters expose less" + saved;
    return std::string(dim) + " exposes less" + saved;
}

// What the winner pays more for on dim `dim`, in words.
std::string dim_cost(std::string_view dim, const DimCost* w, const DimCost* r) {
    const double we = w ? w->exposed_seconds : 0.0, re = r ? r->exposed_seconds : 0.0;
    const std::string paid = " (" + seconds_text(we) + " exposed against " + seconds_text(re) + ")";
    if (dim == "ep" && w && w->link == LinkKind::inter_node)
        return "its ep all-to-all crosses " + std::to_string(w->nodes) + " nodes" + paid;
    return "its " + std::string(dim) + " traffic exposes more" + paid;
}
}  // namespace

std::string why_faster(const LayoutCost& winner, const LayoutCost& runner_up) {
    const auto& w = winner.step;
    const auto& r = runner_up.step;
    std::string out = name_of(winner.topology);
    if (r.seconds <= w.seconds) {
        // A tie on step time: the ranking fell to memory.
        return out + " and " + name_of(runner_up.topology) + " take the same step time (" + seconds_text(w.seconds) +
               "); it needs less memory per GPU.";
    }
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.0f%%", (r.seconds / w.seconds - 1.0) * 100.0);
    out += " is " + std::string(pct) + " faster than " + name_of(runner_up.topology) + " (" + seconds_text(w.seconds) +
           " against " + seconds_text(r.seconds) + " a step)";
    // The dims whose exposed time the winner saves, largest first (two at most), and the largest it pays more for.
    std::vector<std::pair<double, std::string>> reasons, costs;
    for (std::string_view dim : {"ep", "cp", "dp", "efsdp", "expert_cp"}) {
        const DimCost* wd = find_dim(winner, dim);
        const DimCost* rd = find_dim(runner_up, dim);
        const double saved = (rd ? rd->exposed_seconds : 0.0) - (wd ? wd->exposed_seconds : 0.0);
        if (saved > 0) reasons.emplace_back(saved, dim_reason(dim, wd, rd, winner.topology));
        if (saved < 0) costs.emplace_back(-saved, dim_cost(dim, wd, rd));
    }
    const auto larger = [](const auto& a, const auto& b) { return a.first > b.first; };
    std::sort(reasons.begin(), reasons.end(), larger);
    std::sort(costs.begin(), costs.end(), larger);
    if (w.compute.seconds < r.compute.seconds)
        reasons.insert(reasons.begin(), {0.0, "its compute is shorter (" + seconds_text(w.compute.seconds) +
                                                  " against " + seconds_text(r.compute.seconds) + ")"});
    // Two layouts the calibration measured equal were predicted 8% apart
    // (docs/cost-model-calibration.md, "Measured error"), so a margin under 10% is one the model cannot vouch for.
    const std::string close = r.seconds < w.seconds * 1.1
                                  ? " Under 10% apart, closer than the model can order two layouts: measure both."
                                  : "";
    if (reasons.empty()) return out + "." + close;
    out += ": " + reasons[0].second;
    if (reasons.size() > 1) out += "; " + reasons[1].second;
    if (!costs.empty()) out += "; though " + costs[0].second;
    return out + "." + close;
}

std::string knobs_text(std::int64_t micro_batch, Recompute recompute) {
    const std::string_view r = recompute_words(recompute);
    return "micro-batch " + std::to_string(micro_batch) + ", " + std::string(r);
}

namespace {
// What the knobs given in the training spec did on one layout, for the chosen knobs' sentence.
struct GivenKnobs {
    std::optional<LayoutCost> cost;  // they fit and ran
    std::string why_not;             // or why they could not: memory, or a global batch they do not divide
};

std::string knobs_sentence(const LayoutCost& best, const GivenKnobs& given, const TrainingSpec& spec) {
    const std::string chosen = knobs_text(best.micro_batch, best.recompute);
    const std::string asked = knobs_text(spec.micro_batch, spec.recompute);
    if (best.micro_batch == spec.micro_batch && best.recompute == spec.recompute)
        return chosen + ": the knobs given are the fastest that fit";
    if (!given.cost) return chosen + ": " + asked + " " + given.why_not;
    const double g = given.cost->step.seconds, w = best.step.seconds;
    if (g <= w) return chosen + ": as fast as " + asked + " (" + seconds_text(w) + " a step), with less memory";
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.0f%%", (g / w - 1.0) * 100.0);
    return chosen + ": " + pct + " faster than " + asked + " (" + seconds_text(w) + " against " + seconds_text(g) +
           " a step)";
}

// The fastest knobs that fit on one layout, or the reason none does.
Expected<LayoutCost> best_knobs(const CostInputs& in, const TrainingSpec& layout_training, const Topology& topology,
                                const std::vector<MeshDim>& dims, const KnobSearch& search) {
    const std::vector<std::int64_t> micro_batches =
        search.micro_batch ? search.micro_batches : std::vector<std::int64_t>{in.training.micro_batch};
    const std::vector<Recompute> recomputes =
        search.recompute ? std::vector<Recompute>{Recompute::none, Recompute::selective, Recompute::full}
                         : std::vector<Recompute>{in.training.recompute};
    std::optional<LayoutCost> best;
    GivenKnobs given;
    std::optional<MemoryBreakdown> least;  // the smallest memory tried, for the reason none fits
    std::int64_t least_micro_batch = 0;
    Recompute least_recompute = Recompute::none;
    std::string batch_problem;
    CostInputs trial = in;
    for (const std::int64_t micro_batch : micro_batches) {
        for (const Recompute recompute : recomputes) {
            const bool is_given = micro_batch == in.training.micro_batch && recompute == in.training.recompute;
            trial.training = layout_training;
            trial.training.micro_batch = micro_batch;
            trial.training.recompute = recompute;
            const auto grad_accum = grad_accum_for(trial.training, topology.dp);
            if (!grad_accum) {
                if (is_given) given.why_not = "does not run: " + grad_accum.error().message();
                if (batch_problem.empty() || is_given) batch_problem = grad_accum.error().message();
                continue;
            }
            const MemoryBreakdown memory = memory_per_gpu(trial, topology);
            if (!memory.fits()) {
                if (is_given) given.why_not = "does not fit (" + does_not_fit(memory, in.cluster) + ")";
                if (!least || memory.total() < least->total()) {
                    least = memory;
                    least_micro_batch = micro_batch;
                    least_recompute = recompute;
                }
                continue;
            }
            trial.training.grad_accum = *grad_accum;
            LayoutCost cost = cost_layout(trial, topology, dims);
            if (is_given) given.cost = cost;
            if (!best || cost.step.seconds < best->step.seconds ||
                (cost.step.seconds == best->step.seconds && cost.memory.total() < best->memory.total()))
                best = std::move(cost);
        }
    }
    if (!best) {
        if (least)
            return ValueError(does_not_fit(*least, in.cluster) + " even at " +
                              knobs_text(least_micro_batch, least_recompute));
        return ValueError(batch_problem);
    }
    best->knobs = knobs_sentence(*best, given, in.training);
    return *best;
}
}  // namespace

Expected<Advice> advise(const CostInputs& in, std::int64_t world, const KnobSearch& search) {
    if (world > max_world_size)
        return ValueError("world_size (" + std::to_string(world) + ") exceeds the supported maximum of " +
                          std::to_string(max_world_size) + ".");
    const auto placement = Placement::make(world, in.cluster.gpus_per_node);
    if (!placement) return placement.error();
    Advice advice;
    advice.world = world;
    // Every layout runs the same global batch: the default is what cp 1 runs with the given grad_accum.
    CostInputs layout_in = in;
    if (layout_in.training.global_batch <= 0)
        layout_in.training.global_batch = default_global_batch(in.training, world);
    advice.global_batch = layout_in.training.global_batch;
    for (std::int64_t cp : divisors(world)) {
        const std::int64_t dp = world / cp;
        for (std::int64_t ep : divisors(dp)) {
            const Topology topology = Topology::make(dp, cp, ep).value();
            if (auto problem = layout_problem(in.model, topology)) {
                advice.excluded.push_back({topology, *problem});
                continue;
            }
            if (search.any()) {
                auto best = best_knobs(in, layout_in.training, topology, mesh_dims(topology, *placement), search);
                if (best)
                    advice.ranked.push_back(std::move(*best));
                else
                    advice.excluded.push_back({topology, best.error().message()});
                continue;
            }
            const auto grad_accum = grad_accum_for(layout_in.training, dp);
            if (!grad_accum) {
                advice.excluded.push_back({topology, grad_accum.error().message()});
                continue;
            }
            const MemoryBreakdown memory = memory_per_gpu(in, topology);
            if (!memory.fits()) {
                advice.excluded.push_back({topology, does_not_fit(memory, in.cluster)});
                continue;
            }
            layout_in.training.grad_accum = *grad_accum;
            advice.ranked.push_back(cost_layout(layout_in, topology, mesh_dims(topology, *placement)));
        }
    }
    std::sort(advice.ranked.begin(), advice.ranked.end(), [](const LayoutCost& a, const LayoutCost& b) {
        if (a.step.seconds != b.step.seconds) return a.step.seconds < b.step.seconds;
        if (a.memory.total() != b.memory.total()) return a.memory.total() < b.memory.total();
        if (a.topology.cp != b.topology.cp) return a.topology.cp < b.topology.cp;
        return a.topology.ep < b.topology.ep;
    });
    if (advice.ranked.size() >= 2) advice.why = why_faster(advice.ranked[0], advice.ranked[1]);
    return advice;
}

}  // namespace meshscope::cost
