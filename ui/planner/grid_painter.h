// GridPainter: draws a GridGeometry with QPainter, in two layers: the base (cells, node colours and frames,
// labels, all groups of one dim) and the overlay (the selected rank's groups, hover). The on-screen item
// caches the base and repaints only the overlay while the selection moves; the PNG and SVG exports paint
// both layers through the same code onto a QImage or a QSvgGenerator.
//
// Level of detail follows the on-screen cell size, and every text is drawn at a fixed pixel size, so labels
// stay readable at any zoom: big cells show rank and node/local rank, small cells only the rank, tiny cells
// no text, and at the smallest zoom block labels are thinned out so they never overlap.
#pragma once

#include <QColor>
#include <QPointF>
#include <QRectF>
#include <QString>

#include <array>
#include <cstdint>

#include "grid_geometry.h"
#include "grid_view.h"
#include "palette.h"

class QPainter;

namespace meshscope::ui {

// The planner grid's colours, from the one palette table (core/include/meshscope/monitor/palette.h).
struct GridPalette {
    QColor background;
    QColor text;
    QColor muted_text;
    QColor node_frame;
    QColor selection_fill;
    QColor selection_text;
    QColor hover;
    std::array<QColor, grid_node_colour_count> node_fills;    // node n uses node_fills[n % 6]
    std::array<QColor, grid_group_colour_count> group_fills;  // "show all groups": group g uses group_fills[g % 8]

    [[nodiscard]] static GridPalette of(ColourScheme scheme);
    [[nodiscard]] static GridPalette light() { return of(ColourScheme::light); }
    [[nodiscard]] static GridPalette dark() { return of(ColourScheme::dark); }
};

struct GridOverlayState {
    std::int64_t selected = -1;
    std::int64_t hovered = -1;
};

class GridPainter {
public:
    GridPainter(const GridGeometry& geometry, const GridPalette& palette) : geometry_(geometry), palette_(palette) {}

    // shown_dim: the dim whose groups are all drawn (empty: none); viewport: the screen rectangle to fill.
    // Painting a part of the screen (clipped to it) gives the same pixels there as painting all of it, so a
    // panned base layer can be scrolled and only the exposed strips repainted.
    void paint_base(QPainter& painter, const GridView& view, const QRectF& viewport, const QString& shown_dim) const;
    void paint_overlay(QPainter& painter, const GridView& view, const QRectF& viewport,
                       const GridOverlayState& state) const;

    // The view that shows the whole grid at `scale` from the top-left corner (for exports).
    [[nodiscard]] static GridView whole(double scale) { return {scale, QPointF(0, 0)}; }

private:
    static constexpr double reach_margin = 24.0;  // screen pixels: how far anything drawn reaches past its cell

    void paint_cells(QPainter& painter, const GridView& view, const QRectF& viewport, int shown_dim) const;
    void paint_block_labels(QPainter& painter, const GridView& view, const QRectF& viewport) const;

    const GridGeometry& geometry_;
    GridPalette palette_;
};

}  // namespace meshscope::ui
