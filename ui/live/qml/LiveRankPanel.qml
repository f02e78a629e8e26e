pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope.Style
import MeshScope.Live

// The selected rank: who it is, what it reports, and its phases on the job's time axis; in a job whose records
// show a hang, where it stands and its last collective on each group it called (session.view.position).
LivePanel {
    id: root

    required property LiveSession session
    readonly property RankPositionModel position: root.session.view.position

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: 8
        spacing: 4

        SectionHeader {
            text: root.session.selection.selectedRank >= 0 ? qsTr("Rank %1").arg(root.session.selection.selectedRank) : qsTr("Rank")
        }

        Label {
            objectName: "selectedRankText"
            Layout.fillWidth: true
            wrapMode: Text.WordWrap
            text: root.session.selection.selectedRank >= 0 ? root.session.selection.selectedRankText
                                                 : qsTr("Click a rank in the grid or the list to see its timeline.")
            color: root.session.selection.selectedRank >= 0 ? Theme.text : Theme.mutedText
            font.pixelSize: Theme.fontSmall
        }

        Label {
            objectName: "rankPosition"
            Layout.fillWidth: true
            visible: root.position.placed
            wrapMode: Text.WordWrap
            textFormat: Text.PlainText
            text: root.position.text
            color: root.position.rootCause ? Theme.rootCause : Theme.text
            font.pixelSize: Theme.fontSmall
            font.bold: true
        }

        Label {
            visible: root.position.count > 0
            text: qsTr("Last collectives, latest first")
            color: Theme.mutedText
            font.pixelSize: Theme.fontSmall
            Layout.topMargin: 2
        }

        ListView {
            id: lastCollectives

            objectName: "lastCollectives"
            Layout.fillWidth: true
            Layout.preferredHeight: Math.min(lastCollectives.count, 6) * 18
            visible: lastCollectives.count > 0
            clip: true
            interactive: lastCollectives.count > 6
            model: root.position

            delegate: RowLayout {
                id: call

                required property string dim
                required property string text
                required property bool completed

                width: ListView.view.width
                height: 18
                spacing: 6

                Rectangle {
                    Layout.preferredWidth: 10
                    Layout.preferredHeight: 10
                    radius: 2
                    color: Theme.colors.standingColor("waiting", call.dim)
                }

                Label {
                    objectName: "callText"
                    Layout.fillWidth: true
                    text: call.text
                    color: Theme.text
                    font.pixelSize: Theme.fontSmall
                    elide: Text.ElideRight
                }

                Label {
                    objectName: "callState"
                    text: call.completed ? qsTr("completed") : qsTr("waiting")
                    color: call.completed ? Theme.mutedText : Theme.warning
                    font.pixelSize: Theme.fontSmall
                }
            }
        }

        ListView {
            id: timeline

            objectName: "liveTimeline"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            model: root.session.view.timeline
            spacing: 2

            delegate: Item {
                id: step

                required property string phase
                required property string status
                required property double startFraction
                required property double widthFraction
                required property string text

                width: ListView.view.width
                height: 30

                Label {
                    id: phaseLabel

                    width: 92
                    anchors.verticalCenter: parent.verticalCenter
                    text: step.phase.replace("_", " ")
                    color: Theme.text
                    font.pixelSize: Theme.fontSmall
                    horizontalAlignment: Text.AlignRight
                }

                Item {
                    id: track

                    anchors.left: phaseLabel.right
                    anchors.leftMargin: 6
                    anchors.right: parent.right
                    anchors.top: parent.top
                    height: 12

                    Rectangle {
                        anchors.fill: parent
                        color: Theme.window
                        radius: 2
                    }

                    Rectangle {
                        x: track.width * step.startFraction
                        width: Math.max(3, track.width * step.widthFraction)
                        height: parent.height
                        radius: 2
                        color: step.status === "failed" ? Theme.error : (step.status === "started" ? Theme.warning : Theme.accent)
                    }
                }

                Label {
                    anchors.left: track.left
                    anchors.top: track.bottom
                    text: step.text
                    color: Theme.mutedText
                    font.pixelSize: 10
                }
            }
        }
    }
}
