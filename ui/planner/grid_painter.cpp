#include "grid_painter.h"

#include <QFont>
#include <QFontMetricsF>
#include <QLineF>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <vector>

#include "dim_style.h"

namespace meshscope::ui {

namespace {
using M = GridMetrics;

QFont pixel_font(double pixels, bool bold = false) {
    QFont font;
    font.setPixelSize(static_cast<int>(std::round(pixels)));
    font.setBold(bold);
    return font;
}

double cell_pixels(const GridView& view) {
    return M::cell * view.scale;
}

// Lines between neighbouring cells whose keys differ, and around the outside of a block: with node ids as
// keys they frame every node's cells; with group indices they outline every group.
template <typename Key>
void collect_boundaries(const GridGeometry& g, const GridView& view, std::int64_t block, const Key& key,
                        std::vector<QLineF>& out) {
    const std::int64_t cp = g.rows();
    const std::int64_t first = block * g.columns() * cp;
    const std::int64_t n = g.cells_in_block(block);
    const double half_gap = M::cell_gap * view.scale / 2;
    for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t rank = first + i;
        const QRectF r = view.to_screen(g.cell_rect(rank)).adjusted(-half_gap, -half_gap, half_gap, half_gap);
        const std::int64_t column = i / cp, row = i % cp;
        const auto differs = [&](bool inside, std::int64_t other) { return !inside || key(other) != key(rank); };
        if (differs(column + 1 < g.columns() && i + cp < n, rank + cp)) out.emplace_back(r.topRight(), r.bottomRight());
        if (differs(row + 1 < cp && i + 1 < n, rank + 1)) out.emplace_back(r.bottomLeft(), r.bottomRight());
        if (column == 0) out.emplace_back(r.topLeft(), r.bottomLeft());
        if (row == 0) out.emplace_back(r.topLeft(), r.topRight());
    }
}

// The outline a pen of `width` draws along `r`, as four plain rectangles on whole pixels: filled together
// without antialiasing, a group of thousands of runs (the data mesh's dp group is every block) costs a few
// span fills per run, not a stroked path per run (which took longer than a frame).
void add_outline(std::vector<QRect>& out, const QRectF& r, int w) {
    const QRect o(
        QPoint(static_cast<int>(std::lround(r.left() - w / 2.0)), static_cast<int>(std::lround(r.top() - w / 2.0))),
        QPoint(static_cast<int>(std::lround(r.right() + w / 2.0)) - 1,
               static_cast<int>(std::lround(r.bottom() + w / 2.0)) - 1));
    out.emplace_back(o.left(), o.top(), o.width(), w);
    out.emplace_back(o.left(), o.bottom() - w + 1, o.width(), w);
    if (o.height() > 2 * w) {
        out.emplace_back(o.left(), o.top() + w, w, o.height() - 2 * w);
        out.emplace_back(o.right() - w + 1, o.top() + w, w, o.height() - 2 * w);
    }
}

template <typename Rect>
void fill_rects(QPainter& painter, const std::vector<Rect>& rects, const QColor& colour) {
    if (rects.empty()) return;
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, false);
    painter.setPen(Qt::NoPen);
    painter.setBrush(colour);
    painter.drawRects(rects.data(), static_cast<int>(rects.size()));
    painter.restore();
}
}  // namespace

GridPalette GridPalette::of(ColourScheme scheme) {
    const auto c = [scheme](Colour colour) { return palette_colour(colour, scheme); };
    GridPalette p{c(Colour::grid_background),
                  c(Colour::grid_text),
                  c(Colour::grid_muted_text),
                  c(Colour::grid_node_frame),
                  c(Colour::selection),
                  c(Colour::grid_selection_text),
                  c(Colour::grid_hover),
                  {},
                  {}};
    for (std::size_t n = 0; n < p.node_fills.size(); ++n) p.node_fills[n] = c(grid_node_colour(n));
    for (std::size_t g = 0; g < p.group_fills.size(); ++g) p.group_fills[g] = c(grid_group_colour(g));
    return p;
}

void GridPainter::paint_base(QPainter& painter, const GridView& view, const QRectF& viewport,
                             const QString& shown_dim) const {
    painter.fillRect(viewport, palette_.background);
    int shown = -1;
    if (!shown_dim.isEmpty())
        if (const auto index = geometry_.mesh().mesh.dim_index(shown_dim.toStdString()))
            shown = static_cast<int>(*index);
    paint_cells(painter, view, viewport, shown);
    paint_block_labels(painter, view, viewport);
}

void GridPainter::paint_cells(QPainter& painter, const GridView& view, const QRectF& viewport, int shown_dim) const {
    const GridGeometry& g = geometry_;
    const DeviceMesh& mesh = g.mesh().mesh;
    const Placement& placement = g.plan().placement();
    const CreationOrder order = g.plan().order();
    const double px = cell_pixels(view);
    // Cells and blocks just outside the viewport still reach into it (rank text wider than a small cell, node
    // frames in the gaps), so a partial repaint (the strip a pan exposes) must draw them too, in the same order.
    const QRectF reach = viewport.adjusted(-reach_margin, -reach_margin, reach_margin, reach_margin);
    const QRectF visible = view.to_content(reach);
    const bool text = px >= 16;
    const bool second_line = px >= 34;
    const bool frames = px >= 5;
    const QFont rank_font = pixel_font(std::clamp(px * 0.32, 9.0, 15.0), true);
    const QFont small_font = pixel_font(std::clamp(px * 0.2, 8.0, 11.0));
    const double grow = px < 3 ? M::cell_gap * view.scale : 0.0;  // tiny cells: close the gaps

    std::vector<QLineF> node_lines, group_lines;
    std::vector<std::int64_t> group_of_cell;
    for (std::int64_t block : g.blocks_in(visible)) {
        const std::int64_t first = block * g.columns() * g.rows();
        const std::int64_t n = g.cells_in_block(block);
        if (shown_dim >= 0) {
            group_of_cell.resize(static_cast<std::size_t>(n));
            for (std::int64_t i = 0; i < n; ++i)
                group_of_cell[static_cast<std::size_t>(i)] =
                    mesh.group_index(first + i, static_cast<std::size_t>(shown_dim), order);
        }
        const auto group_key = [&](std::int64_t rank) { return group_of_cell[static_cast<std::size_t>(rank - first)]; };
        // A block inside one node at a tiny zoom is one rectangle: cheap, and as informative at that size.
        if (px < 3 && shown_dim < 0 && placement.node_of(first) == placement.node_of(first + n - 1)) {
            const QRectF cells = view.to_screen(g.cell_rect(first).united(g.cell_rect(first + n - 1)));
            painter.fillRect(cells.adjusted(0, 0, grow, grow),
                             palette_.node_fills[static_cast<std::size_t>(placement.node_of(first) % 6)]);
            continue;
        }
        for (std::int64_t i = 0; i < n; ++i) {
            const std::int64_t rank = first + i;
            const QRectF r = view.to_screen(g.cell_rect(rank));
            if (!r.intersects(reach)) continue;
            const QColor fill = shown_dim >= 0
                                    ? palette_.group_fills[static_cast<std::size_t>(group_key(rank) % 8)]
                                    : palette_.node_fills[static_cast<std::size_t>(placement.node_of(rank) % 6)];
            painter.fillRect(r.adjusted(0, 0, grow, grow), fill);
            if (!text) continue;
            painter.setPen(palette_.text);
            if (!second_line) {
                painter.setFont(rank_font);
                painter.drawText(r, Qt::AlignCenter, QString::number(rank));
                continue;
            }
            const QRectF top(r.x(), r.y() + r.height() * 0.12, r.width(), r.height() * 0.5);
            const QRectF bottom(r.x(), r.y() + r.height() * 0.55, r.width(), r.height() * 0.35);
            painter.setFont(rank_font);
            painter.drawText(top, Qt::AlignCenter, QString::number(rank));
            painter.setFont(small_font);
            painter.setPen(palette_.muted_text);
            painter.drawText(
                bottom, Qt::AlignCenter,
                shown_dim >= 0
                    ? QStringLiteral("g%1").arg(group_key(rank))
                    : QStringLiteral("n%1·%2").arg(placement.node_of(rank)).arg(placement.local_rank_of(rank)));
        }
        if (!frames) continue;
        collect_boundaries(
            g, view, block, [&](std::int64_t r) { return placement.node_of(r); }, node_lines);
        if (shown_dim >= 0) collect_boundaries(g, view, block, group_key, group_lines);
    }
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, false);
    if (!group_lines.empty()) {
        QColor c = dim_style(mesh.dim_names().at(static_cast<std::size_t>(shown_dim))).color;
        painter.setPen(QPen(c, std::clamp(px / 16, 1.0, 2.5)));
        painter.drawLines(group_lines.data(), static_cast<int>(group_lines.size()));
    }
    painter.setPen(QPen(palette_.node_frame, std::clamp(px / 22, 1.0, 2.0)));
    painter.drawLines(node_lines.data(), static_cast<int>(node_lines.size()));
    painter.restore();
}

void GridPainter::paint_block_labels(QPainter& painter, const GridView& view, const QRectF& viewport) const {
    const GridGeometry& g = geometry_;
    const QFont font = pixel_font(11, true);
    const QFontMetricsF metrics(font);
    painter.setFont(font);
    const QRectF first = view.to_screen(g.block_label_rect(0));
    const double label_width = metrics.horizontalAdvance(g.block_label(g.blocks() - 1)) + 10;
    const bool inline_labels = first.height() >= 13 && first.width() >= label_width;
    // At small zoom labels become chips over every k-th block (and every m-th row of blocks) so they never
    // overlap; k and m follow the on-screen block size.
    const double pitch_x = view.to_screen(g.block_rect(std::min<std::int64_t>(1, g.blocks() - 1))).x() -
                           view.to_screen(g.block_rect(0)).x();
    const double pitch_y =
        g.block_rows() > 1 ? view.to_screen(g.block_rect(g.block_columns())).y() - view.to_screen(g.block_rect(0)).y()
                           : 1e9;
    // Chips cover at most about a third of the width and every fourth 16-px line, so cells stay visible.
    const auto step_x = inline_labels || pitch_x <= 0
                            ? std::int64_t{1}
                            : static_cast<std::int64_t>(std::ceil(3 * (label_width + 6) / pitch_x));
    const auto step_y = inline_labels ? std::int64_t{1} : static_cast<std::int64_t>(std::ceil(64 / pitch_y));
    // A chip may be wider than its block: blocks to the left of the viewport can reach into it.
    const QRectF visible = view.to_content(
        viewport.adjusted(-(label_width + 8 + reach_margin), -reach_margin, reach_margin, reach_margin));
    for (std::int64_t block : g.blocks_in(visible)) {
        const std::int64_t bx = block % g.block_columns(), by = block / g.block_columns();
        if (bx % step_x != 0 || by % step_y != 0) continue;
        const QString label = g.block_label(block);
        const QRectF r = view.to_screen(g.block_label_rect(block));
        if (inline_labels) {
            painter.setPen(palette_.muted_text);
            painter.drawText(r.adjusted(2, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, label);
            continue;
        }
        const QRectF chip(r.x(), r.bottom(), metrics.horizontalAdvance(label) + 8, 16);
        QColor back = palette_.background;
        back.setAlpha(215);
        painter.fillRect(chip, back);
        painter.setPen(palette_.text);
        painter.drawText(chip, Qt::AlignCenter, label);
    }
}

void GridPainter::paint_overlay(QPainter& painter, const GridView& view, const QRectF& viewport,
                                const GridOverlayState& state) const {
    const GridGeometry& g = geometry_;
    const double px = cell_pixels(view);
    const double scale_down = std::min(1.0, px / 36);
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    if (state.selected >= 0 && state.selected < g.world()) {
        const DeviceMesh& mesh = g.mesh().mesh;
        const auto names = mesh.dim_names();
        // Bands first, frames over them, rings inside the cells last, so every style stays visible.
        for (HighlightShape pass : {HighlightShape::band, HighlightShape::frame, HighlightShape::ring}) {
            for (std::size_t d = 0; d < mesh.ndim(); ++d) {
                const DimStyle style = dim_style(names[d]);
                if (style.shape != pass || mesh.dim_size(d) <= 1) continue;
                const auto members = mesh.group_of(state.selected, d);
                const double width = std::max(1.5, style.width * scale_down);
                if (pass == HighlightShape::ring) {
                    const double inset = std::max(1.0, style.inset * scale_down) + width / 2;
                    painter.setPen(QPen(style.color, width));
                    painter.setBrush(Qt::NoBrush);
                    std::vector<QRectF> dots;
                    for (std::int64_t rank : members) {
                        const QRectF r = view.to_screen(g.cell_rect(rank));
                        if (!r.intersects(viewport)) continue;
                        if (px < 10)  // a dot, so thousands of members do not bury the grid
                            dots.emplace_back(r.center() - QPointF(px / 4, px / 4), QSizeF(px / 2, px / 2));
                        else
                            painter.drawRect(r.adjusted(inset, inset, -inset, -inset));
                    }
                    fill_rects(painter, dots, style.color);
                    continue;
                }
                QColor tint = style.color;
                tint.setAlpha(70);
                std::vector<QRect> outlines;
                const auto runs = g.runs(members);
                // Whole pixels; a group of many runs (the data mesh's dp group frames every block) gets the
                // thinner of the two roundings, so it does not bury the cells and block labels.
                const int pixels = std::max(1, static_cast<int>(std::lround(runs.size() > 64 ? width - 0.25 : width)));
                for (const QRectF& run : runs) {
                    const double grow = pass == HighlightShape::frame ? M::cell_gap * view.scale / 2 + width / 2 : 0;
                    const QRectF r = view.to_screen(run).adjusted(-grow, -grow, grow, grow);
                    if (!r.adjusted(-width, -width, width, width).intersects(viewport)) continue;
                    if (pass == HighlightShape::band) painter.fillRect(r, tint);
                    add_outline(outlines, r, pixels);
                }
                fill_rects(painter, outlines, style.color);
            }
        }
        const QRectF cell = view.to_screen(g.cell_rect(state.selected));
        painter.fillRect(cell, palette_.selection_fill);
        if (px >= 16) {
            painter.setPen(palette_.selection_text);
            painter.setFont(pixel_font(std::clamp(px * 0.32, 9.0, 15.0), true));
            painter.drawText(cell, Qt::AlignCenter, QString::number(state.selected));
        } else {
            // Too small for its number, and block chips label only every k-th block (one may even cover the
            // selected block): a chip beside the selection says which rank and block it is.
            const QString label =
                QStringLiteral("%1 · %2").arg(state.selected).arg(g.block_label(g.position_of(state.selected).block));
            const QFont font = pixel_font(11, true);
            const QSizeF size(QFontMetricsF(font).horizontalAdvance(label) + 10, 16);
            QPointF at(cell.right() + 4, cell.center().y() - size.height() / 2);
            if (at.x() + size.width() > viewport.right()) at.setX(cell.left() - 4 - size.width());
            const QRectF chip(at, size);
            painter.fillRect(chip, palette_.selection_fill);
            painter.setPen(palette_.selection_text);
            painter.setFont(font);
            painter.drawText(chip, Qt::AlignCenter, label);
        }
    }
    if (state.hovered >= 0 && state.hovered < g.world() && state.hovered != state.selected) {
        painter.setPen(QPen(palette_.hover, 2));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(view.to_screen(g.cell_rect(state.hovered)).adjusted(1, 1, -1, -1));
    }
    painter.restore();
}

}  // namespace meshscope::ui
