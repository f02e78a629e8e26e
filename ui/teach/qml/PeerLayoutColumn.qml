pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope.Style
import MeshScope.Teach

// One framework's ep groups, each a row of rank cells in the framework's creation order; a group whose ranks
// span nodes is framed in the inter-node colour, the selected rank's group outlined.
Rectangle {
    id: root

    required property string title
    required property PeerGroupsModel groups
    required property int selectedRank

    signal rankClicked(int rank)

    color: Theme.panel
    border.color: Theme.panelBorder
    radius: 4

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: 10
        spacing: Theme.spacing

        SectionHeader {
            text: root.title
        }

        Label {
            objectName: "peerSummary"
            Layout.fillWidth: true
            text: root.groups.error !== "" ? root.groups.error
                  : qsTr("%1 ep groups · %2 across nodes").arg(root.groups.count).arg(root.groups.crossNodeCount)
            color: root.groups.error !== "" ? Theme.error : (root.groups.crossNodeCount > 0 ? Theme.commInterNode : Theme.mutedText)
            wrapMode: Text.WordWrap
        }

        Label {
            Layout.fillWidth: true
            visible: root.groups.selectedGroupText !== ""
            text: qsTr("rank %1's ep group: %2").arg(root.selectedRank).arg(root.groups.selectedGroupText)
            color: Theme.text
            font.bold: true
            wrapMode: Text.WordWrap
        }

        ListView {
            id: list

            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            spacing: 6
            model: root.groups
            ScrollBar.vertical: ScrollBar {}

            delegate: Rectangle {
                id: group

                required property int index
                // the group's ranks (a QList<int>; Qt 6.4's QML has no list<int> for a role)
                required property var ranks
                required property bool crossNode
                required property bool selected

                width: ListView.view.width
                height: cells.implicitHeight + 12
                color: "transparent"
                radius: 4
                border.width: group.selected ? 3 : (group.crossNode ? 2 : 1)
                border.color: group.selected ? Theme.tourHighlight : (group.crossNode ? Theme.commInterNode : Theme.panelBorder)

                Flow {
                    id: cells

                    anchors.fill: parent
                    anchors.margins: 6
                    spacing: 3

                    Repeater {
                        model: group.ranks

                        Rectangle {
                            id: cell

                            required property int modelData

                            objectName: "peerRank_" + cell.modelData
                            width: 34
                            height: 24
                            radius: 3
                            color: cell.modelData === root.selectedRank ? Theme.accent : Theme.window
                            border.color: Theme.panelBorder

                            Label {
                                anchors.centerIn: parent
                                text: cell.modelData
                                color: cell.modelData === root.selectedRank ? Theme.accentText : Theme.text
                                font.pixelSize: Theme.fontSmall
                            }

                            MouseArea {
                                anchors.fill: parent
                                onClicked: root.rankClicked(cell.modelData)
                            }
                        }
                    }
                }
            }
        }
    }
}
