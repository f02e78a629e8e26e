#include "meshscope/monitor/palette.h"

#include <array>
#include <cstdio>

namespace meshscope {

namespace {
// Text and panels after GitHub's Primer scales; the planner's node fills pale (light) or deep (dark) so
// rank numbers stay readable on them. Rank states: ready calm green, trouble warm (failed red, stale
// amber), in-between states cool; pending is the page's own grey so unseen ranks read as "nothing yet".
// Findings use magenta, a hue no state uses.
constexpr std::array<PaletteEntry, colour_count> table{{
    {Colour::window, "window", 0xf3f4f6, 0x1b1c1f},
    {Colour::panel, "panel", 0xffffff, 0x25272b},
    {Colour::panel_border, "panel-border", 0xd9dce1, 0x3a3d42},
    {Colour::text, "text", 0x1f2328, 0xeceff1},
    {Colour::muted_text, "muted-text", 0x59636e, 0xa9b1ba},
    {Colour::accent, "accent", 0x0969da, 0x6cb6ff},
    {Colour::accent_text, "accent-text", 0xffffff, 0x0d1117},
    {Colour::error, "error", 0xcf222e, 0xff7b72},
    {Colour::error_background, "error-background", 0xffebe9, 0x3d1f20},
    {Colour::warning, "warning", 0x9a6700, 0xe3b341},
    {Colour::warning_background, "warning-background", 0xfff8c5, 0x3a2e12},
    {Colour::button, "button", 0xf6f8fa, 0x2f3237},
    {Colour::selection, "selection", 0x212121, 0xfafafa},
    {Colour::grid_background, "grid-background", 0xfafafa, 0x1e1f22},
    {Colour::grid_text, "grid-text", 0x212121, 0xeceff1},
    {Colour::grid_muted_text, "grid-muted-text", 0x616161, 0xb0bec5},
    {Colour::grid_node_frame, "grid-node-frame", 0x37474f, 0xcfd8dc},
    {Colour::grid_selection_text, "grid-selection-text", 0xffffff, 0x121212},
    {Colour::grid_hover, "grid-hover", 0x000000, 0xffffff},
    {Colour::grid_node_0, "grid-node-0", 0xe3eefb, 0x233a55},
    {Colour::grid_node_1, "grid-node-1", 0xfcebd9, 0x4a3622},
    {Colour::grid_node_2, "grid-node-2", 0xe2f4e4, 0x24442b},
    {Colour::grid_node_3, "grid-node-3", 0xf6e1f0, 0x4a2a42},
    {Colour::grid_node_4, "grid-node-4", 0xfff6d5, 0x4a4320},
    {Colour::grid_node_5, "grid-node-5", 0xdcf2f2, 0x1f4547},
    {Colour::grid_group_0, "grid-group-0", 0xbbdefb, 0x1e4e7a},
    {Colour::grid_group_1, "grid-group-1", 0xffe0b2, 0x7a4a10},
    {Colour::grid_group_2, "grid-group-2", 0xc8e6c9, 0x2e5e30},
    {Colour::grid_group_3, "grid-group-3", 0xf8bbd0, 0x7a2545},
    {Colour::grid_group_4, "grid-group-4", 0xfff59d, 0x6a6010},
    {Colour::grid_group_5, "grid-group-5", 0xb2ebf2, 0x105a62},
    {Colour::grid_group_6, "grid-group-6", 0xd1c4e9, 0x4a357a},
    {Colour::grid_group_7, "grid-group-7", 0xd7ccc8, 0x5a453a},
    {Colour::dim_ep, "dim-ep", 0xf57c00, 0xf57c00},
    {Colour::dim_dp, "dim-dp", 0xd81b60, 0xd81b60},
    {Colour::dim_cp, "dim-cp", 0x039be5, 0x039be5},
    {Colour::dim_efsdp, "dim-efsdp", 0x8e24aa, 0x8e24aa},
    {Colour::dim_edp, "dim-edp", 0x43a047, 0x43a047},
    {Colour::dim_mp_shard, "dim-mp-shard", 0x00897b, 0x00897b},
    {Colour::dim_mp_replicate, "dim-mp-replicate", 0x6d4c41, 0x6d4c41},
    {Colour::dim_other, "dim-other", 0x757575, 0x757575},
    {Colour::memory_params, "memory-params", 0x4e79a7, 0x5b8ac0},
    {Colour::memory_grads, "memory-grads", 0xf28e2b, 0xf28e2b},
    {Colour::memory_optimizer, "memory-optimizer", 0xe15759, 0xe8686a},
    {Colour::memory_activations, "memory-activations", 0x59a14f, 0x62b257},
    {Colour::memory_all_to_all, "memory-all-to-all", 0xb07aa1, 0xc08bb1},
    {Colour::memory_fsdp_buffers, "memory-fsdp-buffers", 0xd4b32f, 0xedc948},
    {Colour::comm_intra_node, "comm-intra-node", 0x3d8fb8, 0x4fa3cc},
    {Colour::comm_inter_node, "comm-inter-node", 0xd9763a, 0xe58a4f},
    {Colour::state_pending, "state-pending", 0xd5d9de, 0x3a3e45},
    {Colour::state_initializing, "state-initializing", 0x79a9e6, 0x4d7cc0},
    {Colour::state_ready, "state-ready", 0x5cb176, 0x3f9a5c},
    {Colour::state_failed, "state-failed", 0xd9463e, 0xe5534b},
    {Colour::state_stale, "state-stale", 0xe8a33a, 0xd29922},
    {Colour::state_exited, "state-exited", 0x8c94a0, 0x6e7681},
    // outside collectives: a pale steel that no dim and no rank state uses; no record: near black, the void a rank
    // that left nothing behind is; the root cause's ring: the error red
    {Colour::standing_outside_collectives, "standing-outside-collectives", 0xb8c7d3, 0x52606c},
    {Colour::standing_no_record, "standing-no-record", 0x2d2d2d, 0x0d0d0d},
    {Colour::root_cause, "root-cause", 0xd32f2f, 0xff5252},
    {Colour::finding, "finding", 0xb4238c, 0xff6ad5},
    {Colour::rank_selection, "rank-selection", 0x111111, 0xffffff},
    {Colour::ink_on_dark, "ink-on-dark", 0xeceff1, 0xeceff1},
    {Colour::ink_on_light, "ink-on-light", 0x1f2328, 0x1f2328},
    // Primer's purple and green: a hue neither the page chrome nor the state colours use for a frame
    {Colour::tour_highlight, "tour-highlight", 0x8250df, 0xd2a8ff},
    {Colour::success, "success", 0x1a7f37, 0x3fb950},
    {Colour::success_background, "success-background", 0xdafbe1, 0x1b3a24},
}};

constexpr bool in_colour_order() {
    for (std::size_t i = 0; i < table.size(); ++i)
        if (static_cast<std::size_t>(table[i].colour) != i) return false;
    return true;
}
static_assert(in_colour_order(), "palette table: one entry per Colour, in Colour order");
static_assert(static_cast<int>(Colour::state_exited) - static_cast<int>(Colour::state_pending) ==
                  static_cast<int>(RankStateKind::exited) - static_cast<int>(RankStateKind::pending),
              "one state colour per RankStateKind, in its order");
static_assert(rank_state_kind_count == 6);
static_assert(static_cast<std::size_t>(Colour::memory_fsdp_buffers) - static_cast<std::size_t>(Colour::memory_params) +
                      1 ==
                  memory_part_colour_count,
              "one colour per part of a GPU's memory");

const PaletteEntry& entry(Colour colour) noexcept {
    return table[static_cast<std::size_t>(colour)];
}
}  // namespace

std::span<const PaletteEntry> palette_table() noexcept {
    return table;
}

std::uint32_t palette_rgb(Colour colour, ColourScheme scheme) noexcept {
    return scheme == ColourScheme::dark ? entry(colour).dark : entry(colour).light;
}

std::string_view to_string(Colour colour) noexcept {
    return entry(colour).name;
}

Colour state_colour(RankStateKind state) noexcept {
    return static_cast<Colour>(static_cast<int>(Colour::state_pending) + static_cast<int>(state));
}

Colour dim_colour(std::string_view dim) noexcept {
    if (dim == "ep") return Colour::dim_ep;
    if (dim == "dp") return Colour::dim_dp;
    if (dim == "cp" || dim == "expert_cp") return Colour::dim_cp;
    if (dim == "efsdp") return Colour::dim_efsdp;
    if (dim == "edp") return Colour::dim_edp;
    if (dim == "mp_shard") return Colour::dim_mp_shard;
    if (dim == "mp_replicate") return Colour::dim_mp_replicate;
    return Colour::dim_other;
}

Colour standing_colour(HangStanding standing, std::string_view dim) noexcept {
    switch (standing) {
        case HangStanding::waiting: return dim_colour(dim);
        case HangStanding::outside_collectives: return Colour::standing_outside_collectives;
        case HangStanding::no_record: return Colour::standing_no_record;
        case HangStanding::dead: return Colour::state_failed;
    }
    return Colour::dim_other;
}

Colour grid_node_colour(std::size_t node) noexcept {
    return static_cast<Colour>(static_cast<std::size_t>(Colour::grid_node_0) + node % grid_node_colour_count);
}

Colour grid_group_colour(std::size_t group) noexcept {
    return static_cast<Colour>(static_cast<std::size_t>(Colour::grid_group_0) + group % grid_group_colour_count);
}

Colour memory_part_colour(std::size_t part) noexcept {
    return static_cast<Colour>(static_cast<std::size_t>(Colour::memory_params) + part % memory_part_colour_count);
}

std::string css_hex(std::uint32_t rgb) {
    std::array<char, 8> text{};
    std::snprintf(text.data(), text.size(), "#%06x", static_cast<unsigned>(rgb & 0xffffffu));
    return std::string(text.data(), 7);
}

std::string palette_css_properties(ColourScheme scheme) {
    std::string out;
    for (const PaletteEntry& e : table) {
        out += "  --ms-";
        out += e.name;
        out += ": ";
        out += css_hex(scheme == ColourScheme::dark ? e.dark : e.light);
        out += ";\n";
    }
    return out;
}

std::string palette_stylesheet() {
    return ":root {\n" + palette_css_properties(ColourScheme::light) + "}\n:root[data-theme=\"dark\"] {\n" +
           palette_css_properties(ColourScheme::dark) + "}\n";
}

}  // namespace meshscope
