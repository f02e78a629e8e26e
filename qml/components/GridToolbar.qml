pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope
import MeshScope.Planner

// Above the grid: which mesh is drawn, what its axes mean, and zoom.
RowLayout {
    id: root

    required property PlanController controller
    required property MeshGridItem grid

    spacing: Theme.spacing

    ButtonGroup {
        id: meshButtons
    }

    Button {
        objectName: "expertMeshButton"
        text: qsTr("Expert mesh")
        checkable: true
        enabled: root.controller.hasExpertMesh
        checked: root.controller.showingExpertMesh
        highlighted: checked  // Fusion's sunken "checked" reads as unchecked in the dark theme
        ButtonGroup.group: meshButtons
        onClicked: root.controller.viewMesh = MeshView.Expert
    }

    Button {
        objectName: "dataMeshButton"
        text: qsTr("Data mesh")
        checkable: true
        checked: !root.controller.showingExpertMesh
        highlighted: checked
        ButtonGroup.group: meshButtons
        onClicked: root.controller.viewMesh = MeshView.Data
    }

    Label {
        objectName: "axesText"
        Layout.fillWidth: true
        text: root.grid.axesText
        color: Theme.mutedText
        elide: Text.ElideRight
    }

    Button {
        text: "−"
        implicitWidth: 34
        ToolTip.visible: hovered
        ToolTip.text: qsTr("Zoom out (-)")
        onClicked: root.grid.zoomBy(0.8)
    }

    Label {
        text: qsTr("%1%").arg(Math.round(root.grid.zoom * 100))
        color: Theme.mutedText
        horizontalAlignment: Text.AlignHCenter
        Layout.preferredWidth: 44
    }

    Button {
        text: "+"
        implicitWidth: 34
        ToolTip.visible: hovered
        ToolTip.text: qsTr("Zoom in (+)")
        onClicked: root.grid.zoomBy(1.25)
    }

    Button {
        text: qsTr("Fit")
        ToolTip.visible: hovered
        ToolTip.text: qsTr("Show the whole grid (0)")
        onClicked: root.grid.fitToView()
    }
}
