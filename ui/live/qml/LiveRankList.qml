pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope.Style
import MeshScope.Live

// The ranks that pass the filters, as a list; clicking one selects it (its timeline opens on the right).
LivePanel {
    id: root

    required property LiveSession session

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: 8
        spacing: 4

        SectionHeader {
            text: root.session.view.filteredRanks.active
                  ? qsTr("Ranks (%1 of %2 match)").arg(root.session.view.filteredRanks.count).arg(root.session.view.ranks.count)
                  : qsTr("Ranks (%1)").arg(root.session.view.ranks.count)
        }

        ListView {
            id: rankList

            objectName: "liveRankList"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            model: root.session.view.filteredRanks
            ScrollBar.vertical: ScrollBar {}

            delegate: ItemDelegate {
                id: rankDelegate

                required property int rank
                required property string state
                required property string host
                required property string phase
                required property string findingsText
                required property string place

                width: ListView.view.width
                height: 26
                highlighted: rankDelegate.rank === root.session.selection.selectedRank
                onClicked: root.session.selection.selectedRank = rankDelegate.rank

                contentItem: RowLayout {
                    spacing: 6

                    Label {
                        Layout.preferredWidth: 40
                        text: rankDelegate.rank
                        color: Theme.text
                        font.family: Theme.monospace
                    }

                    // Where it stands in a hang its records show, else its state.
                    Label {
                        objectName: "rankState"
                        Layout.preferredWidth: rankDelegate.place !== "" ? 112 : 74
                        elide: Text.ElideRight
                        text: rankDelegate.place !== "" ? rankDelegate.place : rankDelegate.state
                        color: Theme.text
                        font.pixelSize: Theme.fontSmall
                    }

                    // one kind of fact per column: the host, then the findings
                    Label {
                        objectName: "rankHost"
                        // A records job's ranks often have no host: their place takes the room.
                        Layout.preferredWidth: rankDelegate.host === "" && rankDelegate.place !== "" ? 0 : 72
                        text: rankDelegate.host
                        color: Theme.mutedText
                        font.pixelSize: Theme.fontSmall
                        elide: Text.ElideRight
                    }

                    Label {
                        objectName: "rankFindings"
                        Layout.fillWidth: true
                        text: rankDelegate.findingsText
                        color: Theme.error
                        font.pixelSize: Theme.fontSmall
                        elide: Text.ElideRight
                    }
                }
            }
        }
    }
}
