import QtQuick
import MeshScope.Style

// The frame of one Live page panel.
Rectangle {
    color: Theme.panel
    border.color: Theme.panelBorder
    radius: 4
}
