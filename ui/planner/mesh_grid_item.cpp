#include "mesh_grid_item.h"

#include <QElapsedTimer>
#include <QFile>
#include <QPainter>
#include <QQuickWindow>
#include <QRegion>
#include <QSGImageNode>
#include <QSvgGenerator>

#include <algorithm>
#include <cmath>

#include "frame_node.h"

namespace meshscope::ui {

namespace {
constexpr double max_scale = 3.0;

QString local_path(const QUrl& file) {
    return file.isLocalFile() ? file.toLocalFile() : file.toString();
}
}  // namespace

MeshGridItem::MeshGridItem(QQuickItem* parent) : QQuickItem(parent) {
    setFlag(ItemHasContents, true);
    setAcceptedMouseButtons(Qt::LeftButton);
    setAcceptHoverEvents(true);
    setActiveFocusOnTab(true);
}

void MeshGridItem::setController(PlanController* controller) {
    if (controller == controller_) return;
    if (controller_) disconnect(controller_, nullptr, this, nullptr);
    controller_ = controller;
    if (controller_) {
        connect(controller_, &PlanController::planChanged, this, [this] {
            rebuild_geometry();
            fitToView();
        });
        connect(controller_, &PlanController::viewChanged, this, [this] {
            const bool mesh_changed =
                !geometry_ || (geometry_->kind() == GridMesh::expert) != controller_->showingExpertMesh();
            if (mesh_changed) {
                rebuild_geometry();
                fitToView();
            } else {
                invalidate_base();
            }
        });
        connect(controller_, &PlanController::selectedRankChanged, this, [this] {
            if (controller_->selectedRank() >= 0) ensure_visible(controller_->selectedRank());
            update();
        });
    }
    rebuild_geometry();
    fitToView();
    emit controllerChanged();
}

void MeshGridItem::setDark(bool dark) {
    if (dark == dark_) return;
    dark_ = dark;
    invalidate_base();
    emit darkChanged();
}

QString MeshGridItem::axesText() const {
    return geometry_ ? geometry_->axes_text() : QString();
}

QString MeshGridItem::hoverText() const {
    if (!geometry_ || hovered_ < 0) return {};
    const Placement& p = geometry_->plan().placement();
    return QStringLiteral("rank %1 · node %2 · local rank %3")
        .arg(hovered_)
        .arg(p.node_of(hovered_))
        .arg(p.local_rank_of(hovered_));
}

void MeshGridItem::rebuild_geometry() {
    if (!controller_) {
        geometry_.reset();
    } else {
        const QSizeF s = size();
        const double aspect = s.width() > 0 && s.height() > 0 ? s.width() / s.height() : 1.6;
        geometry_ = std::make_unique<GridGeometry>(
            controller_->plan(), controller_->showingExpertMesh() ? GridMesh::expert : GridMesh::data, aspect);
    }
    set_hovered(-1);
    invalidate_base();
    emit layoutChanged();
}

void MeshGridItem::invalidate_base() {
    base_valid_ = false;
    update();
}

double MeshGridItem::fit_scale() const {
    if (!geometry_ || width() <= 0 || height() <= 0) return 1.0;
    const QRectF c = geometry_->content_rect();
    return std::min({width() / c.width(), height() / c.height(), 1.5});
}

void MeshGridItem::set_view(const GridView& view) {
    // A pan keeps the base layer: updatePaintNode scrolls it and repaints only the exposed strips.
    if (view.scale != view_.scale) base_valid_ = false;
    view_ = view;
    update();
    emit viewChanged();
}

void MeshGridItem::fitToView() {
    fitted_ = true;
    if (!geometry_) return;
    const double scale = fit_scale();
    const QRectF c = geometry_->content_rect();
    set_view({scale, QPointF((width() - c.width() * scale) / 2, (height() - c.height() * scale) / 2)});
}

void MeshGridItem::zoom_around(double factor, QPointF anchor) {
    if (!geometry_) return;
    const double min_scale = std::min(fit_scale() * 0.5, 1.0);
    const double scale = std::clamp(view_.scale * factor, min_scale, max_scale);
    const QPointF content = view_.to_content(anchor);
    fitted_ = false;
    set_view({scale, anchor - content * scale});
}

void MeshGridItem::zoomBy(double factor) {
    zoom_around(factor, QPointF(width() / 2, height() / 2));
}

void MeshGridItem::ensure_visible(std::int64_t rank) {
    if (!geometry_ || rank < 0 || rank >= geometry_->world()) return;
    const QRectF r = view_.to_screen(geometry_->cell_rect(rank)).adjusted(-8, -8, 8, 8);
    QPointF shift;
    if (r.left() < 0)
        shift.rx() = -r.left();
    else if (r.right() > width())
        shift.rx() = width() - r.right();
    if (r.top() < 0)
        shift.ry() = -r.top();
    else if (r.bottom() > height())
        shift.ry() = height() - r.bottom();
    if (shift.isNull()) return;
    // Whole device pixels, so the cached base layer can be scrolled instead of repainted.
    const double dpr = window() ? window()->effectiveDevicePixelRatio() : 1.0;
    shift = QPointF(std::round(shift.x() * dpr), std::round(shift.y() * dpr)) / dpr;
    fitted_ = false;
    set_view({view_.scale, view_.offset + shift});
}

void MeshGridItem::moveSelection(int dx, int dy) {
    if (!controller_ || !geometry_) return;
    const int selected = controller_->selectedRank();
    const std::int64_t next = selected < 0 ? 0 : geometry_->neighbour(selected, dx, dy);
    controller_->setSelectedRank(static_cast<int>(next));
}

int MeshGridItem::rankAt(double x, double y) const {
    if (!geometry_) return -1;
    const auto rank = geometry_->hit(view_.to_content(QPointF(x, y)));
    return rank ? static_cast<int>(*rank) : -1;
}

QRectF MeshGridItem::cellRect(int rank) const {
    if (!geometry_ || rank < 0 || rank >= geometry_->world()) return {};
    return view_.to_screen(geometry_->cell_rect(rank));
}

void MeshGridItem::set_hovered(int rank) {
    if (rank == hovered_) return;
    hovered_ = rank;
    update();
    emit hoveredRankChanged();
}

void MeshGridItem::geometryChange(const QRectF& new_geometry, const QRectF& old_geometry) {
    QQuickItem::geometryChange(new_geometry, old_geometry);
    if (new_geometry.size() == old_geometry.size()) return;
    if (fitted_) {
        rebuild_geometry();  // the block arrangement follows the item's shape until the user zooms
        fitToView();
    } else {
        invalidate_base();
    }
}

QSGNode* MeshGridItem::updatePaintNode(QSGNode* old, UpdatePaintNodeData*) {
    auto* node = static_cast<QSGImageNode*>(old);
    const double dpr = window() ? window()->effectiveDevicePixelRatio() : 1.0;
    const QSize pixels = (size() * dpr).toSize();
    if (!geometry_ || !controller_ || pixels.isEmpty() || !window()) {
        delete node;
        return nullptr;
    }
    QElapsedTimer timer;
    timer.start();
    const QRectF viewport(0, 0, width(), height());
    const GridPainter painter_of_grid(*geometry_, palette());
    if (!base_valid_ || base_.size() != pixels || !scroll_base(painter_of_grid, dpr)) {
        base_ = QImage(pixels, QImage::Format_ARGB32_Premultiplied);
        base_.setDevicePixelRatio(dpr);
        QPainter painter(&base_);
        painter_of_grid.paint_base(painter, view_, viewport, controller_->shownDim());
        base_valid_ = true;
        base_view_ = view_;
    }
    QImage frame = base_.copy();
    frame.setDevicePixelRatio(dpr);
    {
        QPainter painter(&frame);
        painter_of_grid.paint_overlay(painter, view_, viewport,
                                      {controller_->selectedRank(), static_cast<std::int64_t>(hovered_)});
    }
    node = show_frame(*window(), node, frame, viewport);
    last_paint_ms_ = static_cast<double>(timer.nsecsElapsed()) / 1e6;
    QMetaObject::invokeMethod(this, &MeshGridItem::painted, Qt::QueuedConnection);
    return node;
}

bool MeshGridItem::scroll_base(const GridPainter& painter_of_grid, double dpr) {
    if (view_.scale != base_view_.scale) return false;
    const QPointF delta = (view_.offset - base_view_.offset) * dpr;
    const QPoint shift(qRound(delta.x()), qRound(delta.y()));
    if (shift.isNull()) return std::abs(delta.x()) < 1e-6 && std::abs(delta.y()) < 1e-6;
    // Only a pan by whole device pixels keeps every pixel of the picture (fractional pans repaint it all),
    // and only when some of the old picture stays on screen.
    const QSize size = base_.size();
    if (std::abs(delta.x() - shift.x()) > 1e-6 || std::abs(delta.y() - shift.y()) > 1e-6 ||
        std::abs(shift.x()) >= size.width() || std::abs(shift.y()) >= size.height())
        return false;
    QImage scrolled(size, QImage::Format_ARGB32_Premultiplied);
    scrolled.setDevicePixelRatio(dpr);
    QPainter painter(&scrolled);
    painter.setCompositionMode(QPainter::CompositionMode_Source);
    painter.drawImage(QPointF(shift) / dpr, base_);
    painter.setCompositionMode(QPainter::CompositionMode_SourceOver);
    const QRegion exposed = QRegion(QRect(QPoint(0, 0), size)).subtracted(QRect(shift, size));
    for (const QRect& strip : exposed) {
        const QRectF area(QPointF(strip.topLeft()) / dpr, QSizeF(strip.size()) / dpr);
        painter.save();
        painter.setClipRect(area);
        painter_of_grid.paint_base(painter, view_, area, controller_->shownDim());
        painter.restore();
    }
    painter.end();
    base_ = std::move(scrolled);
    base_view_ = view_;
    return true;
}

void MeshGridItem::mousePressEvent(QMouseEvent* event) {
    forceActiveFocus(Qt::MouseFocusReason);
    press_ = event->position();
    last_drag_ = event->position();
    dragging_ = false;
    event->accept();
}

void MeshGridItem::mouseMoveEvent(QMouseEvent* event) {
    if (!press_) return;
    if (!dragging_ && (event->position() - *press_).manhattanLength() < 5) return;
    dragging_ = true;
    fitted_ = false;
    set_view({view_.scale, view_.offset + (event->position() - last_drag_)});
    last_drag_ = event->position();
}

void MeshGridItem::mouseReleaseEvent(QMouseEvent* event) {
    if (press_ && !dragging_ && controller_) {
        const int rank = rankAt(event->position().x(), event->position().y());
        if (rank >= 0) controller_->setSelectedRank(rank);
    }
    press_.reset();
    dragging_ = false;
}

void MeshGridItem::hoverMoveEvent(QHoverEvent* event) {
    set_hovered(rankAt(event->position().x(), event->position().y()));
}

void MeshGridItem::hoverLeaveEvent(QHoverEvent*) {
    set_hovered(-1);
}

void MeshGridItem::wheelEvent(QWheelEvent* event) {
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0) return;
    zoom_around(std::pow(1.2, steps), event->position());
    event->accept();
}

void MeshGridItem::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
        case Qt::Key_Left: moveSelection(-1, 0); break;
        case Qt::Key_Right: moveSelection(1, 0); break;
        case Qt::Key_Up: moveSelection(0, -1); break;
        case Qt::Key_Down: moveSelection(0, 1); break;
        case Qt::Key_Plus:
        case Qt::Key_Equal: zoomBy(1.25); break;
        case Qt::Key_Minus: zoomBy(0.8); break;
        case Qt::Key_0: fitToView(); break;
        case Qt::Key_Escape:
            if (controller_) controller_->setSelectedRank(-1);
            break;
        default: QQuickItem::keyPressEvent(event); return;
    }
    event->accept();
}

QImage MeshGridItem::export_image() const {
    const QRectF c = geometry_->content_rect();
    const double scale = std::min(1.0, 4096.0 / std::max(c.width(), c.height()));
    QImage image((c.size() * scale).toSize(), QImage::Format_ARGB32_Premultiplied);
    QPainter painter(&image);
    const GridPainter grid(*geometry_, palette());
    const GridView view = GridPainter::whole(scale);
    const QRectF viewport(QPointF(0, 0), c.size() * scale);
    grid.paint_base(painter, view, viewport, controller_->shownDim());
    grid.paint_overlay(painter, view, viewport, {controller_->selectedRank(), -1});
    return image;
}

bool MeshGridItem::savePng(const QUrl& file) {
    if (!geometry_ || !controller_) return false;
    const QString path = local_path(file);
    const bool ok = export_image().save(path, "PNG");
    controller_->reportStatus(ok ? QStringLiteral("Saved %1").arg(path)
                                 : QStringLiteral("Could not write %1").arg(path));
    return ok;
}

bool MeshGridItem::saveSvg(const QUrl& file) {
    if (!geometry_ || !controller_) return false;
    const QString path = local_path(file);
    const QRectF c = geometry_->content_rect();
    const double scale = std::min(1.0, 4096.0 / std::max(c.width(), c.height()));
    const QRectF viewport(QPointF(0, 0), c.size() * scale);
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(viewport.size().toSize());
    svg.setViewBox(viewport);
    svg.setTitle(QStringLiteral("MeshScope plan %1").arg(controller_->topologyText()));
    svg.setDescription(geometry_->axes_text());
    bool ok = false;
    {
        QPainter painter;
        ok = painter.begin(&svg);
        if (ok) {
            const GridPainter grid(*geometry_, palette());
            const GridView view = GridPainter::whole(scale);
            grid.paint_base(painter, view, viewport, controller_->shownDim());
            grid.paint_overlay(painter, view, viewport, {controller_->selectedRank(), -1});
            ok = painter.end();
        }
    }
    ok = ok && QFile::exists(path);
    controller_->reportStatus(ok ? QStringLiteral("Saved %1").arg(path)
                                 : QStringLiteral("Could not write %1").arg(path));
    return ok;
}

}  // namespace meshscope::ui
