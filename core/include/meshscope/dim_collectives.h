// Which collectives each mesh dim carries in training: ONE table, read by the cost model and by
// meshscope-probe (which runs exactly these on each dim's groups). Dims not listed carry none that MeshScope
// models (edp is size 1 with FSDPTurbo's formula; the model mesh's dims are the model's business).
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
// cp, expert_cp: the context-parallel all-reduce (domain.md, "How the meshes are used").
inline constexpr std::array<DimCollectives, 5> dim_collectives = {{
    {"ep", {Collective::all_to_all, Collective::all_to_all}, 1},
    {"efsdp", {Collective::all_gather, Collective::reduce_scatter}, 2},
    {"dp", {Collective::all_gather, Collective::reduce_scatter}, 2},
    {"cp", {Collective::all_reduce, Collective::all_reduce}, 1},
    {"expert_cp", {Collective::all_reduce, Collective::all_reduce}, 1},
}};

// The collectives `dim` carries, in the order training runs them; empty for a dim not in the table.
[[nodiscard]] constexpr std::span<const Collective> collectives_of(std::string_view dim) noexcept {
    for (const DimCollectives& entry : dim_collectives)
        if (entry.dim == dim) return {entry.collectives.data(), entry.count};
    return {};
}

}  // namespace meshscope
