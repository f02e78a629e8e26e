pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope.Style
import MeshScope.Live

// The findings of the job: what is wrong, which ranks, how to fix it. Selecting one outlines its ranks in
// the grid (and selecting it again clears that).
LivePanel {
    id: root

    required property LiveSession session

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: 8
        spacing: 4

        SectionHeader {
            text: qsTr("Findings (%1)").arg(findingList.count)
        }

        Label {
            visible: findingList.count === 0
            Layout.fillWidth: true
            wrapMode: Text.WordWrap
            text: root.session.view.worldSize > 0 ? qsTr("No findings: every rank agrees so far.") : qsTr("No job selected.")
            color: Theme.mutedText
            font.pixelSize: Theme.fontSmall
        }

        ListView {
            id: findingList

            objectName: "liveFindingList"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            spacing: 4
            model: root.session.view.findings
            currentIndex: root.session.selection.selectedFinding
            ScrollBar.vertical: ScrollBar {}

            delegate: ItemDelegate {
                id: finding

                required property int index
                required property string kind
                required property string ranksText
                required property int rankCount
                required property string message
                required property string fix
                required property string from

                width: ListView.view.width
                highlighted: finding.index === root.session.selection.selectedFinding
                onClicked: root.session.selection.selectedFinding = finding.highlighted ? -1 : finding.index

                background: Rectangle {
                    radius: 4
                    color: finding.highlighted ? Qt.rgba(Theme.accent.r, Theme.accent.g, Theme.accent.b, 0.14) : (finding.hovered ? Theme.button : "transparent")
                    border.color: finding.highlighted ? Theme.accent : Theme.panelBorder
                }

                contentItem: ColumnLayout {
                    spacing: 2

                    RowLayout {
                        Layout.fillWidth: true

                        Label {
                            text: finding.kind
                            color: Theme.error
                            font.bold: true
                        }

                        Label {
                            Layout.fillWidth: true
                            horizontalAlignment: Text.AlignRight
                            text: (finding.rankCount === 1 ? qsTr("rank ") : qsTr("ranks ")) + finding.ranksText
                            color: Theme.text
                            font.family: Theme.monospace
                            font.pixelSize: Theme.fontSmall
                            elide: Text.ElideRight
                        }
                    }

                    Label {
                        Layout.fillWidth: true
                        text: finding.message
                        color: Theme.text
                        wrapMode: Text.WordWrap
                        font.pixelSize: Theme.fontSmall
                    }

                    Label {
                        Layout.fillWidth: true
                        text: qsTr("Fix: ") + finding.fix
                        color: Theme.mutedText
                        wrapMode: Text.WordWrap
                        font.pixelSize: Theme.fontSmall
                        visible: finding.fix !== ""
                    }

                    // The records a finding read by meshscope import comes from, in core's words.
                    Label {
                        objectName: "findingFrom"
                        Layout.fillWidth: true
                        text: finding.from
                        textFormat: Text.PlainText
                        color: Theme.mutedText
                        wrapMode: Text.WrapAnywhere
                        font.pixelSize: Theme.fontSmall
                        visible: finding.from !== ""
                    }
                }
            }
        }
    }
}
