pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope.Style
import MeshScope.Planner

// The selected rank: node, local rank, coordinates in every mesh, and its group along every dim with the
// members and whether the group leaves the node.
Frame {
    id: root

    required property PlanSelection selection
    readonly property InspectorModel inspector: root.selection.inspector

    background: Rectangle {
        color: Theme.panel
        border.color: Theme.panelBorder
        radius: 4
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 6

        SectionHeader {
            objectName: "inspectorTitle"
            text: root.inspector.hasSelection ? qsTr("Rank %1").arg(root.inspector.rank) : qsTr("Inspector")
        }

        Label {
            Layout.fillWidth: true
            visible: !root.inspector.hasSelection
            text: qsTr("Click a rank in the grid, or focus the grid (Tab) and press an arrow key.")
            color: Theme.mutedText
            wrapMode: Text.Wrap
        }

        GridLayout {
            Layout.fillWidth: true
            visible: root.inspector.hasSelection
            columns: 2
            columnSpacing: 10
            rowSpacing: 2

            Label {
                text: qsTr("node")
                color: Theme.mutedText
            }

            Label {
                objectName: "inspectorNode"
                text: root.inspector.node
                color: Theme.text
                font.bold: true
            }

            Label {
                text: qsTr("local rank")
                color: Theme.mutedText
            }

            Label {
                objectName: "inspectorLocalRank"
                text: root.inspector.localRank
                color: Theme.text
                font.bold: true
            }

            Label {
                text: qsTr("model mesh")
                color: Theme.mutedText
            }

            Label {
                objectName: "inspectorModelCoordinate"
                Layout.fillWidth: true
                text: root.inspector.modelCoordinate
                color: Theme.text
                wrapMode: Text.Wrap
            }

            Label {
                text: qsTr("data mesh")
                color: Theme.mutedText
            }

            Label {
                objectName: "inspectorDataCoordinate"
                Layout.fillWidth: true
                text: root.inspector.dataCoordinate
                color: Theme.text
                wrapMode: Text.Wrap
            }

            Label {
                visible: root.inspector.expertCoordinate !== ""
                text: qsTr("expert mesh")
                color: Theme.mutedText
            }

            Label {
                objectName: "inspectorExpertCoordinate"
                Layout.fillWidth: true
                visible: root.inspector.expertCoordinate !== ""
                text: root.inspector.expertCoordinate
                color: Theme.text
                wrapMode: Text.Wrap
            }
        }

        ListView {
            id: groupList

            objectName: "inspectorGroups"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            spacing: 6
            model: root.inspector
            boundsBehavior: Flickable.StopAtBounds
            ScrollBar.vertical: ScrollBar {}

            // Each mesh's rows open with a heading (a ListView section delegate logs "Component is not ready"
            // under Qt 6.4, so the first row of a mesh carries it).
            delegate: Column {
                id: groupRow

                required property string mesh
                required property bool firstOfMesh
                required property string dim
                required property int coordinate
                required property int groupIndex
                required property int groupSize
                required property string members
                required property bool leavesNode
                required property int nodeCount
                required property color dimColor
                readonly property string heading: groupRow.mesh === "expert" ? qsTr("Expert mesh groups")
                                                  : groupRow.mesh === "model" ? qsTr("Model mesh groups")
                                                                              : qsTr("Data mesh groups")

                width: groupList.width - 8
                spacing: 4

                Label {
                    visible: groupRow.firstOfMesh
                    topPadding: 4
                    text: groupRow.heading
                    color: Theme.mutedText
                    font.bold: true
                    font.pixelSize: Theme.fontSmall
                }

                Rectangle {
                    width: groupRow.width
                    implicitHeight: groupColumn.implicitHeight + 10
                    color: Theme.window
                    radius: 3

                    Rectangle {
                        width: 4
                        height: parent.height
                        radius: 2
                        color: groupRow.dimColor
                    }

                    ColumnLayout {
                        id: groupColumn

                        x: 12
                        y: 5
                        width: parent.width - 18
                        spacing: 2

                        Label {
                            Layout.fillWidth: true
                            text: qsTr("<b>%1</b> = %2 · group %3 · %4 ranks").arg(groupRow.dim).arg(groupRow.coordinate)
                                  .arg(groupRow.groupIndex).arg(groupRow.groupSize)
                            textFormat: Text.StyledText
                            color: Theme.text
                            wrapMode: Text.Wrap
                        }

                        Label {
                            Layout.fillWidth: true
                            text: "[" + groupRow.members + "]"
                            font.family: Theme.monospace
                            font.pixelSize: Theme.fontSmall
                            color: Theme.text
                            wrapMode: Text.Wrap
                        }

                        Label {
                            Layout.fillWidth: true
                            text: groupRow.leavesNode ? qsTr("leaves the node: spans %1 nodes").arg(groupRow.nodeCount)
                                                      : qsTr("within one node")
                            color: groupRow.leavesNode ? Theme.warning : Theme.mutedText
                            font.pixelSize: Theme.fontSmall
                        }
                    }
                }
            }
        }
    }
}
