#include "plan_text.h"

#include <iomanip>
#include <ostream>
#include <sstream>

namespace meshscope::app {

namespace {
std::string members(std::span<const std::int64_t> ranks, int max_shown) {
    std::ostringstream out;
    out << '[';
    const auto n = static_cast<std::int64_t>(ranks.size());
    if (n <= max_shown) {
        for (std::int64_t i = 0; i < n; ++i) out << (i ? ", " : "") << ranks[static_cast<std::size_t>(i)];
    } else {
        for (int i = 0; i < max_shown - 2; ++i) out << ranks[static_cast<std::size_t>(i)] << ", ";
        out << "... " << n - (max_shown - 1) << " more ..., " << ranks.back();
    }
    out << ']';
    return out.str();
}

std::string join_names(const std::vector<std::string>& names) {
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
    return out;
}

std::string join_ints(const std::vector<std::int64_t>& values, const char* sep) {
    std::string out;
    for (std::size_t i = 0; i < values.size(); ++i) out += (i ? sep : "") + std::to_string(values[i]);
    return out;
}
}  // namespace

void write_plan_text(std::ostream& out, const Plan& plan, const PlanTextOptions& options) {
    const auto& t = plan.topology();
    const auto& p = plan.placement();
    out << "topology     (dp, cp, ep) = " << t.tuple_string() << "  world " << t.world() << " = dp " << t.dp
        << " x cp " << t.cp << "\n";
    if (t.has_expert_mesh())
        out << "expert mesh  edp " << t.edp << " x efsdp " << t.efsdp << " x ep " << t.ep << " x expert_cp " << t.cp
            << "\n";
    else
        out << "expert mesh  none (ep = 1: FSDPTurbo builds no expert mesh; efsdp = edp = 1)\n";
    out << "cluster      " << p.nodes() << (p.nodes() == 1 ? " node" : " nodes") << " x " << p.gpus_per_node
        << " GPUs per node\n";
    out << "order        " << to_string(plan.order())
        << (plan.order() == CreationOrder::torch29 ? " (PyTorch >= 2.9)" : " (PyTorch <= 2.8)") << "\n";

    for (const auto& pm : plan.meshes()) {
        out << "\n" << pm.name << " mesh (" << join_names(pm.mesh.dim_names()) << ") shape ("
            << join_ints(pm.mesh.shape(), ", ") << ")\n";
        for (std::size_t d = 0; d < pm.spans.size(); ++d) {
            const auto& s = pm.spans[d];
            out << "  " << std::left << std::setw(10) << s.dim << "size " << std::setw(6) << s.group_size
                << std::setw(8) << s.groups << (s.groups == 1 ? "group " : "groups") << "  ";
            if (s.cross_node_groups == 0)
                out << "each within one node\n";
            else
                out << s.cross_node_groups << " leave a node (up to " << s.max_nodes << " nodes)\n";
            if (!options.groups) continue;
            std::int64_t shown = 0;
            pm.mesh.for_each_group(d, plan.order(), [&](std::int64_t index, std::span<const std::int64_t> ranks) {
                if (index >= options.max_groups_shown) return;
                out << (shown++ ? " " : "    ") << members(ranks, options.max_members_shown);
            });
            if (s.groups > options.max_groups_shown) out << " ... " << s.groups - options.max_groups_shown << " more";
            out << "\n";
        }
    }
    if (options.ranks && p.world <= 64) {
        out << "\nrank  node  local";
        for (const auto& pm : plan.meshes()) out << "  " << pm.name;
        out << "\n";
        for (std::int64_t r = 0; r < p.world; ++r) {
            out << std::right << std::setw(4) << r << std::setw(6) << p.node_of(r) << std::setw(7) << p.local_rank_of(r);
            for (const auto& pm : plan.meshes()) out << "  [" << join_ints(pm.mesh.coordinate(r), ",") << "]";
            out << "\n";
        }
    } else if (options.ranks) {
        out << "\n(" << p.world << " ranks: per-rank table left out above 64 ranks; use --format json)\n";
    }
    out << "\nwarnings";
    if (plan.warnings().empty()) out << "     none\n";
    else {
        out << "\n";
        for (const auto& w : plan.warnings()) out << "  " << w.code << ": " << w.message << "\n";
    }
}

}  // namespace meshscope::app
