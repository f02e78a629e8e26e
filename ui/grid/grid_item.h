// GridItem: what the planner's grid (MeshGridItem) and the Live page's grid (LiveGridItem) share. Both draw
// every rank of a GridGeometry as ONE item with one texture (see frame_node.h); this base owns the layout,
// the view (zoom and pan: it fits the item until the user zooms), hit testing, hover and the frame's way to
// the scene graph. A subclass says what the layout is (make_geometry), how a frame is painted (paint_frame)
// and what the hover text reads, and handles its own clicks, keys and wheel.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QImage>
#include <QQuickItem>
#include <QString>

#include <memory>

#include "grid_geometry.h"
#include "grid_view.h"

namespace meshscope::ui {

class GridItem : public QQuickItem {
    Q_OBJECT
    QML_ANONYMOUS
    Q_PROPERTY(bool dark READ dark WRITE setDark NOTIFY darkChanged)
    Q_PROPERTY(double zoom READ zoom NOTIFY viewChanged)  // 1.0: cells at their natural 44 px
    Q_PROPERTY(int hoveredRank READ hoveredRank NOTIFY hoveredRankChanged)
    Q_PROPERTY(QString hoverText READ hoverText NOTIFY hoveredRankChanged)  // "rank 13 · node 1 · local rank 5"
    Q_PROPERTY(QString axesText READ axesText NOTIFY layoutChanged)         // "columns ep · rows expert_cp · ..."
    Q_PROPERTY(double lastPaintMs READ lastPaintMs NOTIFY painted)          // time spent painting the last frame

public:
    static constexpr double max_scale = 3.0;
    static constexpr double max_fit_scale = 1.5;  // fitting never blows small grids up beyond this

    explicit GridItem(QQuickItem* parent = nullptr);

    [[nodiscard]] bool dark() const { return dark_; }
    void setDark(bool dark);
    [[nodiscard]] double zoom() const { return view_.scale; }
    [[nodiscard]] int hoveredRank() const { return hovered_; }
    [[nodiscard]] QString hoverText() const { return hovered_ < 0 ? QString() : hover_text(hovered_); }
    [[nodiscard]] QString axesText() const;
    [[nodiscard]] double lastPaintMs() const { return last_paint_ms_; }

    Q_INVOKABLE void fitToView();
    Q_INVOKABLE void zoomBy(double factor);  // around the centre
    // The rank under an item-local point (-1: none), and a rank's cell in item coordinates.
    [[nodiscard]] Q_INVOKABLE int rankAt(double x, double y) const;
    [[nodiscard]] Q_INVOKABLE QRectF cellRect(int rank) const;

signals:
    void darkChanged();
    void viewChanged();
    void hoveredRankChanged();
    void layoutChanged();
    void painted();
    // The user clicked a rank's cell (a guided tour takes it as the learner's answer; keys never answer).
    void rankClicked(int rank);

protected:
    // The layout for the item's current aspect ratio (width / height); null when there is nothing to draw.
    [[nodiscard]] virtual std::unique_ptr<GridGeometry> make_geometry(double aspect) const;
    // The frame at `pixels` (device pixels, `dpr` per item pixel); a null image shows nothing.
    [[nodiscard]] virtual QImage paint_frame(QSize pixels, double dpr) = 0;
    [[nodiscard]] virtual QString hover_text(int rank) const;
    // The picture is stale beyond what the view says (new layout, other theme): drop caches.
    virtual void contents_changed() {}

    // A new layout from make_geometry, fitted to the item (what a subclass calls when its data changes).
    void relayout();
    [[nodiscard]] const GridGeometry* geometry() const { return geometry_.get(); }
    [[nodiscard]] const GridView& view() const { return view_; }
    void set_view(const GridView& view);
    void zoom_around(double factor, QPointF anchor);  // anchor: item coordinates; the user leaves "fitted"
    void set_fitted(bool fitted) { fitted_ = fitted; }
    void set_hovered(int rank);

    QSGNode* updatePaintNode(QSGNode* old, UpdatePaintNodeData* data) override;
    void geometryChange(const QRectF& new_geometry, const QRectF& old_geometry) override;
    void hoverMoveEvent(QHoverEvent* event) override;
    void hoverLeaveEvent(QHoverEvent* event) override;

private:
    void rebuild_geometry();
    [[nodiscard]] double fit_scale() const;

    std::unique_ptr<GridGeometry> geometry_;
    GridView view_;
    bool dark_ = false;
    bool fitted_ = true;  // follow the item's size until the user zooms or pans
    int hovered_ = -1;
    double last_paint_ms_ = 0;
};

}  // namespace meshscope::ui
