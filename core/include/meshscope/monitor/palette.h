// The dashboard's colours, ONE table for every output: the QML singleton (MeshPalette, through Theme.qml),
// the painters of the planner's and the Live page's grids (GridPalette, LivePalette), and CSS custom
// properties for the web dashboard (`--ms-state-ready: #5cb176;`, served as GET /palette.css). It lives in
// core (plain C++, no Qt) so that the collector, which links no GUI library, writes the same CSS.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "meshscope/monitor/hang_position.h"
#include "meshscope/monitor/rank_state.h"

namespace meshscope {

enum class ColourScheme { light, dark };

// Every named colour. The grid_ ones are the planner's cells, state_ the Live page's rank states.
enum class Colour {
    // the window (Theme.qml)
    window,
    panel,
    panel_border,
    text,
    muted_text,
    accent,  // also the outline of the selected finding's ranks on the Live grid
    accent_text,
    error,
    error_background,
    warning,
    warning_background,
    button,
    selection,        // the planner's selected cell (and its legend swatch)
    grid_background,  // behind both grids
    // the planner's grid
    grid_text,
    grid_muted_text,
    grid_node_frame,
    grid_selection_text,
    grid_hover,
    grid_node_0,  // node n: grid_node_0 + n % 6
    grid_node_1,
    grid_node_2,
    grid_node_3,
    grid_node_4,
    grid_node_5,
    grid_group_0,  // "show all groups": group g: grid_group_0 + g % 8
    grid_group_1,
    grid_group_2,
    grid_group_3,
    grid_group_4,
    grid_group_5,
    grid_group_6,
    grid_group_7,
    // the planner's highlight of the selected rank's group along a dim: mid-tones that read on light and
    // dark cells alike, so both themes use the same
    dim_ep,
    dim_dp,
    dim_cp,  // cp and expert_cp: their groups are the same ranks
    dim_efsdp,
    dim_edp,
    dim_mp_shard,  // LlamaFactory's model mesh
    dim_mp_replicate,
    dim_other,
    // the planner's Cost panel: one colour per part of a GPU's memory, in MemoryPart order (ui/planner), and the
    // communication time inside a node and between nodes; mid-tones that read on both themes' panels
    memory_params,
    memory_grads,
    memory_optimizer,
    memory_activations,
    memory_all_to_all,
    memory_fsdp_buffers,
    comm_intra_node,
    comm_inter_node,
    // the Live grid: one colour per RankStateKind, in its order
    state_pending,
    state_initializing,
    state_ready,
    state_failed,
    state_stale,
    state_exited,
    // the hang map (hang_position.h): a rank waiting in a collective takes its dim's colour (dim_*), a dead one
    // state_failed's; these are the others, and the ring around a root cause's ranks
    standing_outside_collectives,
    standing_no_record,
    root_cause,
    finding,         // the corner mark of a rank that a finding names
    rank_selection,  // outline of the selected rank
    ink_on_dark,     // rank numbers on dark cells (both themes)
    ink_on_light,    // rank numbers on light cells (both themes)
    // the teaching mode: the frame around the part of the screen a tour step points at, a right answer
    tour_highlight,
    success,
    success_background,
};
inline constexpr std::size_t colour_count = static_cast<std::size_t>(Colour::success_background) + 1;
inline constexpr std::size_t grid_node_colour_count = 6;
inline constexpr std::size_t grid_group_colour_count = 8;
inline constexpr std::size_t memory_part_colour_count = 6;

struct PaletteEntry {
    Colour colour;
    std::string_view name;  // CSS: --ms-<name>
    std::uint32_t light;    // 0xRRGGBB
    std::uint32_t dark;
};

// In Colour order, one entry per Colour.
[[nodiscard]] std::span<const PaletteEntry> palette_table() noexcept;
[[nodiscard]] std::uint32_t palette_rgb(Colour colour, ColourScheme scheme) noexcept;
[[nodiscard]] std::string_view to_string(Colour colour) noexcept;  // "state-ready"
[[nodiscard]] Colour state_colour(RankStateKind state) noexcept;
// A dim's colour: "ep" dim_ep, "cp" and "expert_cp" dim_cp, ..., any other (the default group's "world") dim_other.
[[nodiscard]] Colour dim_colour(std::string_view dim) noexcept;
// Where a rank stands in a hang: waiting, its dim's colour; dead, state_failed; the others their own.
[[nodiscard]] Colour standing_colour(HangStanding standing, std::string_view dim) noexcept;
[[nodiscard]] Colour grid_node_colour(std::size_t node) noexcept;
[[nodiscard]] Colour grid_group_colour(std::size_t group) noexcept;
// Part p of a GPU's memory (0 parameters, 1 gradients, 2 optimizer, 3 activations, 4 all-to-all, 5 FSDP buffers);
// p must be below memory_part_colour_count.
[[nodiscard]] Colour memory_part_colour(std::size_t part) noexcept;

// "#5cb176"
[[nodiscard]] std::string css_hex(std::uint32_t rgb);
// One declaration per colour, "  --ms-state-ready: #5cb176;\n", in table order.
[[nodiscard]] std::string palette_css_properties(ColourScheme scheme);
// A stylesheet: the light colours on :root, the dark ones on :root[data-theme="dark"].
[[nodiscard]] std::string palette_stylesheet();

}  // namespace meshscope
