#include "plan_text.h"

#include <algorithm>
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

// long: the plan's text report, one line or block per fact, in the order it prints
void write_plan_text(std::ostream& out, const Plan& plan, const PlanTextOptions& options) {
    const auto& t = plan.topology();
    const auto& p = plan.placement();
    out << "topology     (dp, cp, ep) = " << t.tuple_string() << "  world " << t.world() << " = dp " << t.dp << " x cp "
        << t.cp << "\n";
    out << "model mesh   mp_replicate " << t.mp_replicate << " x mp_shard " << t.mp_shard
        << (t.mp_replicate == 1 ? " (LlamaFactory's default: one shard group over the world)" : "") << "\n";
    if (t.has_expert_mesh())
        out << "expert mesh  edp " << t.edp << " x efsdp " << t.efsdp << " x ep " << t.ep << " x expert_cp " << t.cp
            << "\n";
    else
        out << "expert mesh  none (ep = 1: FSDPTurbo builds no expert mesh; efsdp = edp = 1)\n";
    out << "cluster      " << p.nodes() << (p.nodes() == 1 ? " node" : " nodes") << " x " << p.gpus_per_node
        << " GPUs per node\n";
    out << "order        " << to_string(plan.order())
        << (plan.order() == CreationOrder::torch29 ? " (PyTorch >= 2.9)" : " (PyTorch <= 2.8)") << "\n";

    // One set of column widths for every mesh, so the dims of both meshes line up however large the world.
    std::size_t name_width = 0, size_width = 0, count_width = 0;
    for (const auto& pm : plan.meshes())
        for (const auto& s : pm.spans) {
            name_width = std::max(name_width, s.dim.size());
            size_width = std::max(size_width, std::to_string(s.group_size).size());
            count_width = std::max(count_width, std::to_string(s.groups).size());
        }
    for (const auto& pm : plan.meshes()) {
        out << "\n"
            << pm.name << " mesh (" << join_names(pm.mesh.dim_names()) << ") shape ("
            << join_ints(pm.mesh.shape(), ", ") << ")\n";
        for (std::size_t d = 0; d < pm.spans.size(); ++d) {
            const auto& s = pm.spans[d];
            out << "  " << std::left << std::setw(static_cast<int>(name_width)) << s.dim << "  size " << std::right
                << std::setw(static_cast<int>(size_width)) << s.group_size << "  "
                << std::setw(static_cast<int>(count_width)) << s.groups << std::left
                << (s.groups == 1 ? " group   " : " groups  ");
            if (s.cross_node_groups == 0)
                out << "each within one node\n";
            else
                out << s.cross_node_groups << (s.cross_node_groups == 1 ? " leaves" : " leave") << " a node (up to "
                    << s.max_nodes << " nodes)\n";
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
        // Each mesh's coordinate column is as wide as its widest cell, so the headers sit over their column.
        std::vector<std::size_t> widths;
        for (const auto& pm : plan.meshes()) {
            std::size_t width = pm.name.size();
            for (std::int64_t r = 0; r < p.world; ++r)
                width = std::max(width, join_ints(pm.mesh.coordinate(r), ",").size() + 2);
            widths.push_back(width);
        }
        out << "\nrank  node  local";
        widths.back() = 0;  // no padding after the last column
        for (std::size_t m = 0; m < plan.meshes().size(); ++m)
            out << "  " << std::left << std::setw(static_cast<int>(widths[m])) << plan.meshes()[m].name;
        out << "\n";
        for (std::int64_t r = 0; r < p.world; ++r) {
            out << std::right << std::setw(4) << r << std::setw(6) << p.node_of(r) << std::setw(7)
                << p.local_rank_of(r);
            for (std::size_t m = 0; m < plan.meshes().size(); ++m)
                out << "  " << std::left << std::setw(static_cast<int>(widths[m]))
                    << "[" + join_ints(plan.meshes()[m].mesh.coordinate(r), ",") + "]";
            out << "\n";
        }
    } else if (options.ranks) {
        out << "\n(" << p.world << " ranks: per-rank table left out above 64 ranks; use --format json)\n";
    }
    out << "\nwarnings";
    if (plan.warnings().empty())
        out << "     none\n";
    else {
        out << "\n";
        for (const auto& w : plan.warnings()) out << "  " << w.code << ": " << w.message << "\n";
    }
}

}  // namespace meshscope::app
