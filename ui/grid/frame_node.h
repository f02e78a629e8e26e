// How a painted grid item reaches the scene graph. Qt 6.4's software renderer draws no custom geometry
// nodes, so MeshGridItem and LiveGridItem paint a QImage at device pixels and show it as one texture node.
#pragma once

#include <QImage>
#include <QRectF>

class QQuickWindow;
class QSGImageNode;
class QSGNode;

namespace meshscope::ui {

// `old` is the item's node from its last updatePaintNode (or null); returns the node showing `frame` over
// `rect` (item coordinates), 1:1 with the device pixels it was painted at.
[[nodiscard]] QSGImageNode* show_frame(QQuickWindow& window, QSGNode* old, const QImage& frame, const QRectF& rect);

}  // namespace meshscope::ui
