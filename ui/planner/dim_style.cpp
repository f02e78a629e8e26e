#include "dim_style.h"

#include "palette.h"

namespace meshscope::ui {

namespace {
// The dims' colours are mid-tones, the same in both themes (the palette's dim_* rows; the web planner reads
// the same from /palette.css).
QColor dim_colour(Colour colour) {
    return palette_colour(colour, ColourScheme::light);
}
}  // namespace

DimStyle dim_style(std::string_view dim) {
    // expert_cp and cp share one style because their groups are the same ranks (LlamaFactory's expert_cp
    // groups equal the data mesh's cp groups).
    if (dim == "ep") return {dim_colour(Colour::dim_ep), HighlightShape::frame, 4.0, 0.0, QStringLiteral("frame")};
    if (dim == "dp") return {dim_colour(Colour::dim_dp), HighlightShape::frame, 4.0, 0.0, QStringLiteral("frame")};
    if (dim == "expert_cp" || dim == "cp")
        return {dim_colour(Colour::dim_cp), HighlightShape::band, 2.0, 0.0, QStringLiteral("band")};
    if (dim == "efsdp") return {dim_colour(Colour::dim_efsdp), HighlightShape::ring, 3.0, 4.0, QStringLiteral("ring")};
    if (dim == "edp")
        return {dim_colour(Colour::dim_edp), HighlightShape::ring, 2.0, 9.0, QStringLiteral("inner ring")};
    // LlamaFactory's model mesh: shards framed like the other contiguous groups, replicas ringed like efsdp.
    if (dim == "mp_shard")
        return {dim_colour(Colour::dim_mp_shard), HighlightShape::frame, 4.0, 0.0, QStringLiteral("frame")};
    if (dim == "mp_replicate")
        return {dim_colour(Colour::dim_mp_replicate), HighlightShape::ring, 3.0, 4.0, QStringLiteral("ring")};
    return {dim_colour(Colour::dim_other), HighlightShape::frame, 2.0, 0.0, QStringLiteral("frame")};
}

}  // namespace meshscope::ui
