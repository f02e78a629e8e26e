#include "grid_item.h"

#include <QElapsedTimer>
#include <QQuickWindow>
#include <QSGImageNode>

#include <algorithm>

#include "frame_node.h"

namespace meshscope::ui {

GridItem::GridItem(QQuickItem* parent) : QQuickItem(parent) {
    setFlag(ItemHasContents, true);
    setAcceptedMouseButtons(Qt::LeftButton);
    setAcceptHoverEvents(true);
}

void GridItem::setDark(bool dark) {
    if (dark == dark_) return;
    dark_ = dark;
    contents_changed();
    update();
    emit darkChanged();
}

QString GridItem::axesText() const {
    return geometry_ ? geometry_->axes_text() : QString();
}

std::unique_ptr<GridGeometry> GridItem::make_geometry(double) const {
    return nullptr;
}

QString GridItem::hover_text(int rank) const {
    return tr("rank %1").arg(rank);
}

void GridItem::rebuild_geometry() {
    const QSizeF s = size();
    geometry_ = make_geometry(s.width() > 0 && s.height() > 0 ? s.width() / s.height() : 1.6);
    set_hovered(-1);
    contents_changed();
    update();
    emit layoutChanged();
}

void GridItem::relayout() {
    rebuild_geometry();
    fitToView();
}

double GridItem::fit_scale() const {
    if (!geometry_ || width() <= 0 || height() <= 0) return 1.0;
    const QRectF c = geometry_->content_rect();
    return std::min({width() / c.width(), height() / c.height(), max_fit_scale});
}

void GridItem::set_view(const GridView& view) {
    view_ = view;
    update();
    emit viewChanged();
}

void GridItem::fitToView() {
    fitted_ = true;
    if (!geometry_) return;
    const double scale = fit_scale();
    const QRectF c = geometry_->content_rect();
    set_view({scale, QPointF((width() - c.width() * scale) / 2, (height() - c.height() * scale) / 2)});
}

void GridItem::zoom_around(double factor, QPointF anchor) {
    if (!geometry_) return;
    const double min_scale = std::min(fit_scale() * 0.5, 1.0);
    const double scale = std::clamp(view_.scale * factor, min_scale, max_scale);
    const QPointF content = view_.to_content(anchor);
    fitted_ = false;
    set_view({scale, anchor - content * scale});
}

void GridItem::zoomBy(double factor) {
    zoom_around(factor, QPointF(width() / 2, height() / 2));
}

int GridItem::rankAt(double x, double y) const {
    if (!geometry_) return -1;
    const auto rank = geometry_->hit(view_.to_content(QPointF(x, y)));
    return rank ? static_cast<int>(*rank) : -1;
}

QRectF GridItem::cellRect(int rank) const {
    if (!geometry_ || rank < 0 || rank >= geometry_->world()) return {};
    return view_.to_screen(geometry_->cell_rect(rank));
}

void GridItem::set_hovered(int rank) {
    if (rank == hovered_) return;
    hovered_ = rank;
    update();
    emit hoveredRankChanged();
}

void GridItem::geometryChange(const QRectF& new_geometry, const QRectF& old_geometry) {
    QQuickItem::geometryChange(new_geometry, old_geometry);
    if (new_geometry.size() == old_geometry.size()) return;
    if (fitted_) {
        relayout();  // the block arrangement follows the item's shape until the user zooms
    } else {
        contents_changed();
        update();
    }
}

void GridItem::hoverMoveEvent(QHoverEvent* event) {
    set_hovered(rankAt(event->position().x(), event->position().y()));
}

void GridItem::hoverLeaveEvent(QHoverEvent*) {
    set_hovered(-1);
}

QSGNode* GridItem::updatePaintNode(QSGNode* old, UpdatePaintNodeData*) {
    auto* node = static_cast<QSGImageNode*>(old);
    const double dpr = window() ? window()->effectiveDevicePixelRatio() : 1.0;
    const QSize pixels = (size() * dpr).toSize();
    QElapsedTimer timer;
    timer.start();
    const QImage frame = pixels.isEmpty() || !window() ? QImage() : paint_frame(pixels, dpr);
    if (frame.isNull()) {
        delete node;
        return nullptr;
    }
    node = show_frame(*window(), node, frame, QRectF(0, 0, width(), height()));
    last_paint_ms_ = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    // Queued: updatePaintNode may run on the render thread.
    QMetaObject::invokeMethod(this, &GridItem::painted, Qt::QueuedConnection);
    return node;
}

}  // namespace meshscope::ui
