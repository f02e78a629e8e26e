// MeshGridItem: the planner's rank grid, however many ranks, as ONE item with one scene-graph node
// (GridItem: layout, zoom, hit testing, hover).
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
#include <QUrl>

#include <memory>
#include <optional>

#include "grid_item.h"
#include "grid_painter.h"
#include "plan_controller.h"

namespace meshscope::ui {

class MeshGridItem : public meshscope::ui::GridItem {  // qualified: qmltyperegistrar finds the base by it
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(
        meshscope::ui::PlanController* controller READ controller WRITE setController NOTIFY controllerChanged REQUIRED)

public:
    explicit MeshGridItem(QQuickItem* parent = nullptr);

    [[nodiscard]] PlanController* controller() const { return controller_; }
    void setController(PlanController* controller);

    Q_INVOKABLE void moveSelection(int dx, int dy);
    // The whole grid (both layers) as a picture, independent of the on-screen zoom.
    Q_INVOKABLE bool savePng(const QUrl& file);
    Q_INVOKABLE bool saveSvg(const QUrl& file);

signals:
    void controllerChanged();

protected:
    [[nodiscard]] std::unique_ptr<GridGeometry> make_geometry(double aspect) const override;
    [[nodiscard]] QImage paint_frame(QSize pixels, double dpr) override;
    [[nodiscard]] QString hover_text(int rank) const override;  // "rank 13 · node 1 · local rank 5"
    void contents_changed() override { base_valid_ = false; }

    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    void ensure_visible(std::int64_t rank);
    [[nodiscard]] GridPalette palette() const { return dark() ? GridPalette::dark() : GridPalette::light(); }
    [[nodiscard]] QImage export_image() const;
    // Brings the cached base layer to the current view by scrolling it and painting the exposed strips; false
    // when the view changed in a way a scroll cannot follow (zoom, fractional pan, pan beyond the screen).
    bool scroll_base(const GridPainter& painter_of_grid, double dpr);

    QPointer<PlanController> controller_;
    std::optional<QPointF> press_;
    QPointF last_drag_;
    bool dragging_ = false;

    QImage base_;         // cached base layer at the item's pixel size
    GridView base_view_;  // the view base_ was painted for
    bool base_valid_ = false;
};

}  // namespace meshscope::ui
