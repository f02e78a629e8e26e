#include "mesh_grid_item.h"

#include <QFile>
#include <QPainter>
#include <QQuickWindow>
#include <QRegion>
#include <QSvgGenerator>

#include <algorithm>
#include <cmath>

namespace meshscope::ui {

namespace {
QString local_path(const QUrl& file) {
    return file.isLocalFile() ? file.toLocalFile() : file.toString();
}
}  // namespace

MeshGridItem::MeshGridItem(QQuickItem* parent) : GridItem(parent) {
    setActiveFocusOnTab(true);
}

void MeshGridItem::setController(PlanController* controller) {
    if (controller == controller_) return;
    if (controller_) {
        disconnect(controller_->view(), nullptr, this, nullptr);
        disconnect(controller_->selection(), nullptr, this, nullptr);
    }
    controller_ = controller;
    if (controller_) {
        PlanView* view = controller_->view();
        PlanSelection* selection = controller_->selection();
        connect(view, &PlanView::planChanged, this, &MeshGridItem::relayout);
        connect(view, &PlanView::viewChanged, this, [this] {
            if (!geometry() || geometry()->kind() != controller_->view()->drawn_mesh()) {
                relayout();
            } else {
                contents_changed();  // another dim's groups shown
                update();
            }
        });
        connect(selection, &PlanSelection::selectedRankChanged, this, [this] {
            if (controller_->selection()->selectedRank() >= 0) ensure_visible(controller_->selection()->selectedRank());
            update();
        });
    }
    relayout();
    emit controllerChanged();
}

std::unique_ptr<GridGeometry> MeshGridItem::make_geometry(double aspect) const {
    if (!controller_) return nullptr;
    return std::make_unique<GridGeometry>(controller_->plan(), controller_->view()->drawn_mesh(), aspect);
}

QString MeshGridItem::hover_text(int rank) const {
    if (!geometry()) return {};
    const Placement& p = geometry()->plan().placement();
    return QStringLiteral("rank %1 · node %2 · local rank %3")
        .arg(rank)
        .arg(p.node_of(rank))
        .arg(p.local_rank_of(rank));
}

void MeshGridItem::ensure_visible(std::int64_t rank) {
    if (!geometry() || rank < 0 || rank >= geometry()->world()) return;
    const QRectF r = view().to_screen(geometry()->cell_rect(rank)).adjusted(-8, -8, 8, 8);
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
    set_fitted(false);
    set_view({view().scale, view().offset + shift});
}

void MeshGridItem::moveSelection(int dx, int dy) {
    if (!controller_ || !geometry()) return;
    const int selected = controller_->selection()->selectedRank();
    const std::int64_t next = selected < 0 ? 0 : geometry()->neighbour(selected, dx, dy);
    controller_->selection()->setSelectedRank(static_cast<int>(next));
}

QImage MeshGridItem::paint_frame(QSize pixels, double dpr) {
    if (!geometry() || !controller_) return {};
    const QRectF viewport(0, 0, width(), height());
    const GridPainter painter_of_grid(*geometry(), palette());
    if (!base_valid_ || base_.size() != pixels || !scroll_base(painter_of_grid, dpr)) {
        base_ = QImage(pixels, QImage::Format_ARGB32_Premultiplied);
        base_.setDevicePixelRatio(dpr);
        QPainter painter(&base_);
        painter_of_grid.paint_base(painter, view(), viewport, controller_->view()->shownDim());
        base_valid_ = true;
        base_view_ = view();
    }
    QImage frame = base_.copy();
    frame.setDevicePixelRatio(dpr);
    {
        QPainter painter(&frame);
        painter_of_grid.paint_overlay(
            painter, view(), viewport,
            {controller_->selection()->selectedRank(), static_cast<std::int64_t>(hoveredRank())});
    }
    return frame;
}

bool MeshGridItem::scroll_base(const GridPainter& painter_of_grid, double dpr) {
    if (view().scale != base_view_.scale) return false;
    const QPointF delta = (view().offset - base_view_.offset) * dpr;
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
        painter_of_grid.paint_base(painter, view(), area, controller_->view()->shownDim());
        painter.restore();
    }
    painter.end();
    base_ = std::move(scrolled);
    base_view_ = view();
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
    set_fitted(false);
    set_view({view().scale, view().offset + (event->position() - last_drag_)});
    last_drag_ = event->position();
}

void MeshGridItem::mouseReleaseEvent(QMouseEvent* event) {
    if (press_ && !dragging_ && controller_) {
        const int rank = rankAt(event->position().x(), event->position().y());
        if (rank >= 0) {
            controller_->selection()->setSelectedRank(rank);
            emit rankClicked(rank);
        }
    }
    press_.reset();
    dragging_ = false;
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
            if (controller_) controller_->selection()->setSelectedRank(-1);
            break;
        default: QQuickItem::keyPressEvent(event); return;
    }
    event->accept();
}

QImage MeshGridItem::export_image() const {
    const QRectF c = geometry()->content_rect();
    const double scale = std::min(1.0, 4096.0 / std::max(c.width(), c.height()));
    QImage image((c.size() * scale).toSize(), QImage::Format_ARGB32_Premultiplied);
    QPainter painter(&image);
    const GridPainter grid(*geometry(), palette());
    const GridView view = GridPainter::whole(scale);
    const QRectF viewport(QPointF(0, 0), c.size() * scale);
    grid.paint_base(painter, view, viewport, controller_->view()->shownDim());
    grid.paint_overlay(painter, view, viewport, {controller_->selection()->selectedRank(), -1});
    return image;
}

bool MeshGridItem::savePng(const QUrl& file) {
    if (!geometry() || !controller_) return false;
    const QString path = local_path(file);
    const bool ok = export_image().save(path, "PNG");
    controller_->view()->reportStatus(ok ? QStringLiteral("Saved %1").arg(path)
                                         : QStringLiteral("Could not write %1").arg(path));
    return ok;
}

bool MeshGridItem::saveSvg(const QUrl& file) {
    if (!geometry() || !controller_) return false;
    const QString path = local_path(file);
    const QRectF c = geometry()->content_rect();
    const double scale = std::min(1.0, 4096.0 / std::max(c.width(), c.height()));
    const QRectF viewport(QPointF(0, 0), c.size() * scale);
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(viewport.size().toSize());
    svg.setViewBox(viewport);
    svg.setTitle(QStringLiteral("MeshScope plan %1").arg(controller_->view()->topologyText()));
    svg.setDescription(geometry()->axes_text());
    bool ok = false;
    {
        QPainter painter;
        ok = painter.begin(&svg);
        if (ok) {
            const GridPainter grid(*geometry(), palette());
            const GridView view = GridPainter::whole(scale);
            grid.paint_base(painter, view, viewport, controller_->view()->shownDim());
            grid.paint_overlay(painter, view, viewport, {controller_->selection()->selectedRank(), -1});
            ok = painter.end();
        }
    }
    ok = ok && QFile::exists(path);
    controller_->view()->reportStatus(ok ? QStringLiteral("Saved %1").arg(path)
                                         : QStringLiteral("Could not write %1").arg(path));
    return ok;
}

}  // namespace meshscope::ui
