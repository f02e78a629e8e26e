// Which collectives each mesh dim carries in training: ONE table, read by the cost model and by
// meshscope-probe (which runs exactly these on each dim's groups). Dims not listed carry none that MeshScope
// models (edp is size 1 with FSDPTurbo's formula; the model mesh's dims carry nothing under FSDPTurbo, whose
// outer FSDP2 runs on the dp mesh instead).
#pragma once

#include <array>
#include <span>
#include <string_view>

namespace meshscope {

enum class Collective { all_reduce, all_gather, reduce_scatter, all_to_all };

[[nodiscard]] constexpr std::string_view to_string(Collective collective) noexcept {
    switch (collective) {
        case Collective::all_reduce: return "all_reduce";
        case Collective::all_gather: return "all_gather";
        case Collective::reduce_scatter: return "reduce_scatter";
        case Collective::all_to_all: return "all_to_all";
    }
    return "all_reduce";
}

struct DimCollectives {
    std::string_view dim;
    std::array<Collective, 2> collectives;
    std::size_t count;
};

// ep: token dispatch and combine; efsdp, dp: FSDP's parameter all-gather and gradient reduce-scatter;
// cp: Ulysses attention (LlamaFactory's default cp_mode) exchanges heads for sequence with all-to-alls, and the
// non-expert gradients are all-reduced over cp; expert_cp: the expert gradients' all-reduce
// (domain.md, "How the meshes are used").
inline constexpr std::array<DimCollectives, 5> dim_collectives = {{
    {"ep", {Collective::all_to_all, Collective::all_to_all}, 1},
    {"efsdp", {Collective::all_gather, Collective::reduce_scatter}, 2},
    {"dp", {Collective::all_gather, Collective::reduce_scatter}, 2},
    {"cp", {Collective::all_to_all, Collective::all_reduce}, 2},
    {"expert_cp", {Collective::all_reduce, Collective::all_reduce}, 1},
}};

// The collectives `dim` carries, in the order training runs them; empty for a dim not in the table.
[[nodiscard]] constexpr std::span<const Collective> collectives_of(std::string_view dim) noexcept {
    for (const DimCollectives& entry : dim_collectives)
        if (entry.dim == dim) return {entry.collectives.data(), entry.count};
    return {};
}

// nccl-tests' bus-bandwidth factor (doc/PERFORMANCE.md): bytes each rank puts on its bottleneck link per byte
// of the operation's size S, in a group of n. AllReduce 2(n-1)/n; AllGather, ReduceScatter, AllToAll (n-1)/n.
[[nodiscard]] constexpr double bus_factor(Collective collective, long long n) noexcept {
    if (n <= 1) return 0.0;
    const double share = static_cast<double>(n - 1) / static_cast<double>(n);
    return collective == Collective::all_reduce ? 2.0 * share : share;
}

}  // namespace meshscope
