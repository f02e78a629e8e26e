#include "palette.h"

#include <QJSEngine>

namespace meshscope::ui {

QColor palette_colour(Colour colour, ColourScheme scheme) {
    return QColor::fromRgb(static_cast<QRgb>(palette_rgb(colour, scheme)) | 0xff000000u);
}

PaletteColors::PaletteColors(ColourScheme scheme, QObject* parent)
    : QObject(parent),
      window_(palette_colour(Colour::window, scheme)),
      panel_(palette_colour(Colour::panel, scheme)),
      panel_border_(palette_colour(Colour::panel_border, scheme)),
      text_(palette_colour(Colour::text, scheme)),
      muted_text_(palette_colour(Colour::muted_text, scheme)),
      accent_(palette_colour(Colour::accent, scheme)),
      accent_text_(palette_colour(Colour::accent_text, scheme)),
      error_(palette_colour(Colour::error, scheme)),
      error_background_(palette_colour(Colour::error_background, scheme)),
      warning_(palette_colour(Colour::warning, scheme)),
      warning_background_(palette_colour(Colour::warning_background, scheme)),
      button_(palette_colour(Colour::button, scheme)),
      selection_(palette_colour(Colour::selection, scheme)),
      grid_background_(palette_colour(Colour::grid_background, scheme)),
      finding_(palette_colour(Colour::finding, scheme)),
      comm_intra_node_(palette_colour(Colour::comm_intra_node, scheme)),
      comm_inter_node_(palette_colour(Colour::comm_inter_node, scheme)),
      tour_highlight_(palette_colour(Colour::tour_highlight, scheme)),
      success_(palette_colour(Colour::success, scheme)),
      success_background_(palette_colour(Colour::success_background, scheme)),
      standing_outside_collectives_(palette_colour(Colour::standing_outside_collectives, scheme)),
      standing_no_record_(palette_colour(Colour::standing_no_record, scheme)),
      root_cause_(palette_colour(Colour::root_cause, scheme)),
      scheme_(scheme) {
    for (std::size_t k = 0; k < rank_state_kind_count; ++k)
        state_colors_ << palette_colour(state_colour(static_cast<RankStateKind>(k)), scheme);
    for (std::size_t p = 0; p < memory_part_colour_count; ++p)
        memory_colors_ << palette_colour(memory_part_colour(p), scheme);
}

QColor PaletteColors::standingColor(const QString& standing, const QString& dim) const {
    const auto parsed = parse_hang_standing(standing.toStdString());
    return palette_colour(parsed ? standing_colour(*parsed, dim.toStdString()) : Colour::dim_other, scheme_);
}

MeshPalette::MeshPalette() : light_(ColourScheme::light, this), dark_(ColourScheme::dark, this) {}

MeshPalette& MeshPalette::instance() {
    static MeshPalette palette;
    return palette;
}

MeshPalette* MeshPalette::create(QQmlEngine*, QJSEngine*) {
    MeshPalette* palette = &instance();
    QJSEngine::setObjectOwnership(palette, QJSEngine::CppOwnership);
    return palette;
}

}  // namespace meshscope::ui
