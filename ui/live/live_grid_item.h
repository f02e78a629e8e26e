// LiveGridItem: every rank of the selected Job as ONE item (GridItem: one texture, hit testing, hover),
// coloured by state, with a corner mark on ranks a finding names. The selected finding's ranks are outlined
// and the rest fade; ranks the filters hide fade further. The layout is the GridGeometry the Planner uses (the
// job's expert mesh when its topology fits its world, else its ranks in rows of a node), so a rank sits where
// the Planner page shows it.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QPointer>

#include <memory>

#include "grid_item.h"
#include "live_session.h"
#include "state_style.h"

namespace meshscope::ui {

class LiveGridItem : public meshscope::ui::GridItem {  // qualified: qmltyperegistrar finds the base by it
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(meshscope::ui::LiveSession* session READ session WRITE setSession NOTIFY sessionChanged REQUIRED)

public:
    explicit LiveGridItem(QQuickItem* parent = nullptr);

    [[nodiscard]] LiveSession* session() const { return session_; }
    void setSession(LiveSession* session);

signals:
    void sessionChanged();

protected:
    [[nodiscard]] std::unique_ptr<GridGeometry> make_geometry(double aspect) const override;
    [[nodiscard]] QImage paint_frame(QSize pixels, double dpr) override;
    [[nodiscard]] QString hover_text(int rank) const override;  // "rank 9 · failed · node-1 · error · rank_error"
    void mousePressEvent(QMouseEvent* event) override;

private:
    void paint(QPainter& painter) const;
    [[nodiscard]] LivePalette palette() const { return dark() ? LivePalette::dark() : LivePalette::light(); }

    QPointer<LiveSession> session_;
};

}  // namespace meshscope::ui
