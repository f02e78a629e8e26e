pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import MeshScope.Style
import MeshScope.Planner

// What the grid's colours and marks mean. Each dim is a toggle: checked, the grid draws all of its groups.
Flow {
    id: root

    required property PlanView view

    spacing: 6

    Label {
        height: 30
        verticalAlignment: Text.AlignVCenter
        text: qsTr("Cell colour = node, dark lines frame each node · selected rank:")
        color: Theme.mutedText
        font.pixelSize: Theme.fontSmall
    }

    Rectangle {
        y: 7
        width: 16
        height: 16
        color: Theme.selection
    }

    Label {
        height: 30
        verticalAlignment: Text.AlignVCenter
        text: qsTr("· its groups (click a dim to show all its groups):")
        color: Theme.mutedText
        font.pixelSize: Theme.fontSmall
    }

    Repeater {
        objectName: "legend"
        model: root.view.legend

        delegate: Button {
            id: legendEntry

            required property string dim
            required property int size
            required property int groups
            required property color dimColor
            required property color swatchFill
            required property int swatchBorderWidth
            required property string styleText
            required property bool shown

            objectName: "legend_" + legendEntry.dim
            checkable: true
            checked: legendEntry.shown
            highlighted: legendEntry.checked
            text: qsTr("%1 (%2) · %3 × %4").arg(legendEntry.dim).arg(legendEntry.styleText).arg(legendEntry.groups)
                  .arg(legendEntry.size)
            leftPadding: 30
            ToolTip.visible: legendEntry.hovered
            ToolTip.text: legendEntry.shown ? qsTr("Hide the %1 groups").arg(legendEntry.dim)
                                            : qsTr("Show all %1 groups of %2").arg(legendEntry.groups).arg(legendEntry.dim)
            onClicked: root.view.toggleShownDim(legendEntry.dim)

            Rectangle {
                x: 8
                anchors.verticalCenter: parent.verticalCenter
                width: 16
                height: 16
                color: legendEntry.swatchFill
                border.color: legendEntry.dimColor
                border.width: legendEntry.swatchBorderWidth
            }
        }
    }
}
