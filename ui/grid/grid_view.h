// GridView: how content units (GridGeometry) map to an item's pixels: screen = content * scale + offset.
#pragma once

#include <QPointF>
#include <QRectF>

namespace meshscope::ui {

struct GridView {
    double scale = 1.0;
    QPointF offset;

    [[nodiscard]] QRectF to_screen(const QRectF& content) const {
        return {content.x() * scale + offset.x(), content.y() * scale + offset.y(), content.width() * scale,
                content.height() * scale};
    }
    [[nodiscard]] QPointF to_content(QPointF screen) const { return (screen - offset) / scale; }
    [[nodiscard]] QRectF to_content(const QRectF& screen) const {
        return {to_content(screen.topLeft()), to_content(screen.bottomRight())};
    }
};

}  // namespace meshscope::ui
