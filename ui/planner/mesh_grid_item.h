// MeshGridItem: the whole rank grid as ONE item with one scene-graph node, however many ranks.
//
// Qt 6.4's software renderer (offscreen, and machines without GPU) draws no custom geometry nodes, and
// thousands of rectangle and text nodes would cost more per frame than painting. So the item paints the
// visible part of the grid with GridPainter into an image at the item's pixel size and hands it to the scene
// graph as one texture: the base layer (cells, nodes, labels) is cached per plan/view/zoom, a pan scrolls it
// and paints only the exposed strips, and a moving selection only repaints the overlay on a copy of it.
// Exports paint through the same GridPainter.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QImage>
#include <QPointer>
#include <QQuickItem>
#include <QUrl>

#include <memory>
#include <optional>

#include "grid_geometry.h"
#include "grid_painter.h"
#include "plan_controller.h"

namespace meshscope::ui {

class MeshGridItem : public QQuickItem {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(PlanController* controller READ controller WRITE setController NOTIFY controllerChanged REQUIRED)
    Q_PROPERTY(bool dark READ dark WRITE setDark NOTIFY darkChanged)
    Q_PROPERTY(double zoom READ zoom NOTIFY viewChanged)  // 1.0: cells at their natural 44 px
    Q_PROPERTY(int hoveredRank READ hoveredRank NOTIFY hoveredRankChanged)
    Q_PROPERTY(QString hoverText READ hoverText NOTIFY hoveredRankChanged)  // "rank 13 · node 1 · local rank 5"
    Q_PROPERTY(QString axesText READ axesText NOTIFY layoutChanged)
    Q_PROPERTY(double lastPaintMs READ lastPaintMs NOTIFY painted)  // time spent painting the last frame

public:
    explicit MeshGridItem(QQuickItem* parent = nullptr);

    [[nodiscard]] PlanController* controller() const { return controller_; }
    void setController(PlanController* controller);
    [[nodiscard]] bool dark() const { return dark_; }
    void setDark(bool dark);
    [[nodiscard]] double zoom() const { return view_.scale; }
    [[nodiscard]] int hoveredRank() const { return hovered_; }
    [[nodiscard]] QString axesText() const;
    [[nodiscard]] QString hoverText() const;
    [[nodiscard]] double lastPaintMs() const { return last_paint_ms_; }

    Q_INVOKABLE void fitToView();
    Q_INVOKABLE void zoomBy(double factor);  // around the centre
    Q_INVOKABLE void moveSelection(int dx, int dy);
    // The whole grid (both layers) as a picture, independent of the on-screen zoom.
    Q_INVOKABLE bool savePng(const QUrl& file);
    Q_INVOKABLE bool saveSvg(const QUrl& file);

    // For tests: the rank under an item-local point.
    Q_INVOKABLE int rankAt(double x, double y) const;
    Q_INVOKABLE QRectF cellRect(int rank) const;  // item coordinates

signals:
    void controllerChanged();
    void darkChanged();
    void viewChanged();
    void hoveredRankChanged();
    void layoutChanged();
    void painted();

protected:
    QSGNode* updatePaintNode(QSGNode* old, UpdatePaintNodeData* data) override;
    void geometryChange(const QRectF& new_geometry, const QRectF& old_geometry) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void hoverMoveEvent(QHoverEvent* event) override;
    void hoverLeaveEvent(QHoverEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    void rebuild_geometry();
    void invalidate_base();
    void set_view(const GridView& view);
    void zoom_around(double factor, QPointF anchor);
    void ensure_visible(std::int64_t rank);
    void set_hovered(int rank);
    [[nodiscard]] double fit_scale() const;
    [[nodiscard]] GridPalette palette() const { return dark_ ? GridPalette::dark() : GridPalette::light(); }
    [[nodiscard]] QImage export_image() const;
    // Brings the cached base layer to the current view by scrolling it and painting the exposed strips; false
    // when the view changed in a way a scroll cannot follow (zoom, fractional pan, pan beyond the screen).
    bool scroll_base(const GridPainter& painter_of_grid, double dpr);

    QPointer<PlanController> controller_;
    std::unique_ptr<GridGeometry> geometry_;
    GridView view_;
    bool dark_ = false;
    bool fitted_ = true;  // follow the item's size until the user zooms or pans
    int hovered_ = -1;
    std::optional<QPointF> press_;
    QPointF last_drag_;
    bool dragging_ = false;

    QImage base_;         // cached base layer at the item's pixel size
    GridView base_view_;  // the view base_ was painted for
    bool base_valid_ = false;
    double last_paint_ms_ = 0;
};

}  // namespace meshscope::ui
