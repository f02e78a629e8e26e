pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope.Style
import MeshScope.Teach

// One job as FSDPTurbo, TorchTitan and Megatron-Core each lay it out (core's peer_layout): their ep groups
// side by side, the groups that span more than one node marked. Clicking a rank shows its ep group in all three.
Page {
    id: root

    required property PeersModel peers

    // A rank clicked in any of the layouts (a tour's answer; the selection follows the click anyway).
    signal rankClicked(int rank)

    background: Rectangle {
        color: Theme.window
    }

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: Theme.spacing
        spacing: Theme.spacing

        RowLayout {
            Layout.fillWidth: true
            spacing: Theme.spacing * 2

            IntField {
                objectName: "peersWorld"
                Layout.preferredWidth: 200
                label: qsTr("World size")
                value: root.peers.world
                onEdited: value => root.peers.world = value
            }

            IntField {
                objectName: "peersCp"
                Layout.preferredWidth: 200
                label: qsTr("cp")
                value: root.peers.cp
                onEdited: value => root.peers.cp = value
            }

            IntField {
                objectName: "peersEp"
                Layout.preferredWidth: 200
                label: qsTr("ep")
                value: root.peers.ep
                onEdited: value => root.peers.ep = value
            }

            IntField {
                objectName: "peersGpusPerNode"
                Layout.preferredWidth: 200
                label: qsTr("GPUs per node")
                value: root.peers.gpusPerNode
                onEdited: value => root.peers.gpusPerNode = value
            }

            Item {
                Layout.fillWidth: true
            }
        }

        Label {
            Layout.fillWidth: true
            text: root.peers.selectedRank < 0
                  ? qsTr("Click a rank to see its ep group in every framework. Framed in the inter-node colour: an ep group whose ranks sit on more than one node.")
                  : qsTr("Rank %1's ep group in each framework is outlined.").arg(root.peers.selectedRank)
            color: Theme.mutedText
            wrapMode: Text.WordWrap
        }

        RowLayout {
            objectName: "peers.layouts"
            Layout.fillWidth: true
            Layout.fillHeight: true
            spacing: Theme.spacing

            Repeater {
                model: root.peers

                PeerLayoutColumn {
                    id: column

                    required property string framework

                    objectName: "peerLayout_" + column.framework
                    Layout.fillWidth: true
                    Layout.fillHeight: true
                    Layout.preferredWidth: 1  // three equal columns
                    selectedRank: root.peers.selectedRank
                    onRankClicked: rank => {
                        root.peers.selectedRank = rank;
                        root.rankClicked(rank);
                    }
                }
            }
        }
    }
}
