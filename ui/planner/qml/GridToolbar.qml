pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope.Style
import MeshScope.Planner

// Above the grid: which mesh is drawn (expert, data, or LlamaFactory's model mesh), what its axes mean, and zoom.
RowLayout {
    id: root

    required property PlanView view
    required property MeshGridItem grid

    spacing: Theme.spacing

    ButtonGroup {
        id: meshButtons
    }

    // The mesh switch (a tour's anchor "planner.mesh").
    RowLayout {
        objectName: "planner.mesh"
        spacing: Theme.spacing

        Button {
            objectName: "expertMeshButton"
            text: qsTr("Expert mesh")
            checkable: true
            enabled: root.view.hasExpertMesh
            checked: root.view.showingExpertMesh
            highlighted: checked  // Fusion's sunken "checked" reads as unchecked in the dark theme
            ButtonGroup.group: meshButtons
            onClicked: root.view.viewMesh = MeshView.Expert
        }

        Button {
            objectName: "dataMeshButton"
            text: qsTr("Data mesh")
            checkable: true
            checked: root.view.shownMesh === MeshView.Data
            highlighted: checked
            ButtonGroup.group: meshButtons
            onClicked: root.view.viewMesh = MeshView.Data
        }

        Button {
            objectName: "modelMeshButton"
            text: qsTr("Model mesh")
            checkable: true
            checked: root.view.shownMesh === MeshView.Model
            highlighted: checked
            ButtonGroup.group: meshButtons
            onClicked: root.view.viewMesh = MeshView.Model
        }
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
