#include "frame_node.h"

#include <QQuickWindow>
#include <QSGImageNode>

namespace meshscope::ui {

QSGImageNode* show_frame(QQuickWindow& window, QSGNode* old, const QImage& frame, const QRectF& rect) {
    auto* node = static_cast<QSGImageNode*>(old);
    if (node == nullptr) {
        node = window.createImageNode();
        node->setOwnsTexture(true);
    }
    node->setTexture(window.createTextureFromImage(frame));
    node->setRect(rect);
    node->setFiltering(QSGTexture::Nearest);
    return node;
}

}  // namespace meshscope::ui
