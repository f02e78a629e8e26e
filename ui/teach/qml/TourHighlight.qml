pragma ComponentBehavior: Bound

import QtQuick
import MeshScope.Style

// A frame around the part of the page a tour step points at (its anchor item), drawn over the pages; it lets
// every click through. Placed again whenever the target or this overlay moves or resizes.
Item {
    id: root

    // The anchor item; null: no frame.
    property Item target: null
    readonly property bool shown: root.target !== null && root.target.visible
    readonly property real frameWidth: frame.width

    // How much of the frame's width lies between x = from and x = to (this overlay's coordinates).
    function overlap(from: real, to: real): real {
        return Math.max(0, Math.min(to, frame.x + frame.width) - Math.max(from, frame.x));
    }

    function place() {
        if (root.target === null)
            return;
        const p = root.target.mapToItem(root, 0, 0);
        frame.x = p.x - 4;
        frame.y = p.y - 4;
        frame.width = root.target.width + 8;
        frame.height = root.target.height + 8;
    }

    visible: root.shown
    onTargetChanged: root.place()
    onWidthChanged: root.place()
    onHeightChanged: root.place()
    onVisibleChanged: root.place()

    Connections {
        target: root.target

        function onXChanged() {
            root.place();
        }

        function onYChanged() {
            root.place();
        }

        function onWidthChanged() {
            root.place();
        }

        function onHeightChanged() {
            root.place();
        }

        function onVisibleChanged() {
            root.place();
        }
    }

    Rectangle {
        id: frame

        objectName: "tourHighlightFrame"
        color: "transparent"
        border.color: Theme.tourHighlight
        border.width: 3
        radius: 6
    }
}
