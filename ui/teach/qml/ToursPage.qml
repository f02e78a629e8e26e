pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope.Style
import MeshScope.Teach

// The guided tours: each with its summary, its length and where the learner left it: "Start", "Resume at step
// K" or, once finished, "Start again". A tour drives the real planner, Live page, sandbox and peers view.
Page {
    id: root

    required property TourController tours

    background: Rectangle {
        color: Theme.window
    }

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: Theme.spacing * 2
        spacing: Theme.spacing

        SectionHeader {
            text: qsTr("Guided tours")
        }

        Label {
            Layout.fillWidth: true
            text: qsTr("Each tour drives the real planner, Live page, sandbox and peers view: read a step, do its task, and MeshScope checks your answer. Leave a tour at any step and resume it later.")
            color: Theme.mutedText
            wrapMode: Text.WordWrap
        }

        ListView {
            id: tourList

            objectName: "tourList"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            spacing: Theme.spacing
            model: root.tours.tours
            ScrollBar.vertical: ScrollBar {}

            delegate: Rectangle {
                id: entry

                required property int index
                required property string name
                required property string title
                required property string summary
                required property int steps
                required property int progress
                required property bool finished

                objectName: "tour_" + entry.name
                width: ListView.view.width
                implicitHeight: row.implicitHeight + 24
                color: Theme.panel
                border.color: root.tours.step.tourName === entry.name ? Theme.tourHighlight : Theme.panelBorder
                radius: 4

                RowLayout {
                    id: row

                    anchors.fill: parent
                    anchors.margins: 12
                    spacing: Theme.spacing * 2

                    ColumnLayout {
                        Layout.fillWidth: true
                        spacing: 2

                        Label {
                            Layout.fillWidth: true
                            text: entry.title
                            color: Theme.text
                            font.pixelSize: Theme.fontTitle
                            font.bold: true
                            wrapMode: Text.WordWrap
                        }

                        Label {
                            Layout.fillWidth: true
                            text: entry.summary
                            color: Theme.text
                            wrapMode: Text.WordWrap
                        }

                        Label {
                            Layout.fillWidth: true
                            text: entry.finished ? qsTr("%1 steps · finished").arg(entry.steps)
                                  : entry.progress > 0 ? qsTr("%1 steps · left at step %2").arg(entry.steps).arg(entry.progress)
                                  : qsTr("%1 steps").arg(entry.steps)
                            color: Theme.mutedText
                            font.pixelSize: Theme.fontSmall
                        }
                    }

                    Button {
                        objectName: "tourStart_" + entry.name
                        text: entry.finished ? qsTr("Start again")
                              : entry.progress > 1 ? qsTr("Resume at step %1").arg(entry.progress) : qsTr("Start")
                        highlighted: true
                        onClicked: root.tours.resume(entry.name)
                    }
                }
            }
        }
    }
}
