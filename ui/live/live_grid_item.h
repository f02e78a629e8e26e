// LiveGridItem: every rank of the selected Job as ONE item (one texture on the scene graph), coloured by
// state, with a corner mark on ranks a finding names. The selected finding's ranks are outlined and the
// rest fade; ranks the filters hide fade further. The layout is the planner's GridGeometry (the job's
// expert mesh when its topology fits its world, else its ranks in rows of a node), so a rank sits where the
// Planner page shows it.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QImage>
#include <QPointer>
#include <QQuickItem>

#include <memory>

#include "grid_geometry.h"
#include "grid_painter.h"
#include "live_session.h"
#include "state_style.h"

namespace meshscope::ui {

class LiveGridItem : public QQuickItem {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(LiveSession* session READ session WRITE setSession NOTIFY sessionChanged REQUIRED)
    Q_PROPERTY(bool dark READ dark WRITE setDark NOTIFY darkChanged)
    Q_PROPERTY(int hoveredRank READ hoveredRank NOTIFY hoveredRankChanged)
    Q_PROPERTY(QString hoverText READ hoverText NOTIFY hoveredRankChanged)
    Q_PROPERTY(QString axesText READ axesText NOTIFY layoutChanged)
    Q_PROPERTY(double lastPaintMs READ lastPaintMs NOTIFY painted)

public:
    explicit LiveGridItem(QQuickItem* parent = nullptr);

    [[nodiscard]] LiveSession* session() const { return session_; }
    void setSession(LiveSession* session);
    [[nodiscard]] bool dark() const { return dark_; }
    void setDark(bool dark);
    [[nodiscard]] int hoveredRank() const { return hovered_; }
    [[nodiscard]] QString hoverText() const;
    [[nodiscard]] QString axesText() const;
    [[nodiscard]] double lastPaintMs() const { return last_paint_ms_; }

    [[nodiscard]] Q_INVOKABLE int rankAt(double x, double y) const;
    [[nodiscard]] Q_INVOKABLE QRectF cellRect(int rank) const;  // item coordinates

signals:
    void sessionChanged();
    void darkChanged();
    void hoveredRankChanged();
    void layoutChanged();
    void painted();

protected:
    QSGNode* updatePaintNode(QSGNode* old, UpdatePaintNodeData* data) override;
    void geometryChange(const QRectF& new_geometry, const QRectF& old_geometry) override;
    void mousePressEvent(QMouseEvent* event) override;
    void hoverMoveEvent(QHoverEvent* event) override;
    void hoverLeaveEvent(QHoverEvent* event) override;

private:
    void rebuild_geometry();
    void set_hovered(int rank);
    void paint(QPainter& painter) const;
    [[nodiscard]] LivePalette palette() const { return dark_ ? LivePalette::dark() : LivePalette::light(); }

    QPointer<LiveSession> session_;
    std::unique_ptr<GridGeometry> geometry_;
    GridView view_;
    bool dark_ = false;
    int hovered_ = -1;
    double last_paint_ms_ = 0;
};

}  // namespace meshscope::ui
