import QtQuick
import MeshScope

// The frame of one Live page panel.
Rectangle {
    color: Theme.panel
    border.color: Theme.panelBorder
    radius: 4
}
