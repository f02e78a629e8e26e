#include "dim_style.h"

#include "meshscope/palette.h"

namespace meshscope::ui {

namespace {
QColor colour(Colour c) {
    return QColor::fromRgb(static_cast<QRgb>(0xff000000u | palette_rgb(c, ColourScheme::light)));
}
}  // namespace

DimStyle dim_style(std::string_view dim) {
    // The palette's dim colours (the web planner draws with the same, from /palette.css); expert_cp and cp
    // share one style because their groups are the same ranks (LlamaFactory's expert_cp groups equal the
    // data mesh's cp groups).
    if (dim == "ep") return {colour(Colour::dim_ep), HighlightShape::frame, 4.0, 0.0, QStringLiteral("frame")};
    if (dim == "dp") return {colour(Colour::dim_dp), HighlightShape::frame, 4.0, 0.0, QStringLiteral("frame")};
    if (dim == "expert_cp" || dim == "cp")
        return {colour(Colour::dim_expert_cp), HighlightShape::band, 2.0, 0.0, QStringLiteral("band")};
    if (dim == "efsdp") return {colour(Colour::dim_efsdp), HighlightShape::ring, 3.0, 4.0, QStringLiteral("ring")};
    if (dim == "edp") return {colour(Colour::dim_edp), HighlightShape::ring, 2.0, 9.0, QStringLiteral("inner ring")};
    return {QColor(0x75, 0x75, 0x75), HighlightShape::frame, 2.0, 0.0, QStringLiteral("frame")};
}

}  // namespace meshscope::ui
