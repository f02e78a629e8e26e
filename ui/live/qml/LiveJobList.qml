pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope.Style
import MeshScope.Live

// The jobs the collector knows; the selected one fills the rest of the page.
LivePanel {
    id: root

    required property LiveSession session

    implicitHeight: column.implicitHeight + 16

    ColumnLayout {
        id: column

        anchors.fill: parent
        anchors.margins: 8
        spacing: 4

        SectionHeader {
            text: qsTr("Jobs")
        }

        Label {
            visible: jobList.count === 0
            text: qsTr("No job has reported yet.")
            color: Theme.mutedText
            font.pixelSize: Theme.fontSmall
        }

        ListView {
            id: jobList

            objectName: "liveJobList"
            Layout.fillWidth: true
            Layout.fillHeight: true
            implicitHeight: Math.min(contentHeight, 120)
            clip: true
            model: root.session.view.jobs
            currentIndex: root.session.view.jobs.indexOf(root.session.inputs.currentJob)

            delegate: ItemDelegate {
                id: jobDelegate

                required property int index
                required property string job
                required property int worldSize
                required property int ranksReady
                required property int findings
                required property bool postMortem

                width: ListView.view.width
                highlighted: jobDelegate.job === root.session.inputs.currentJob
                onClicked: root.session.inputs.currentJob = jobDelegate.job

                contentItem: RowLayout {
                    spacing: 6

                    Label {
                        Layout.fillWidth: true
                        text: jobDelegate.job
                        elide: Text.ElideMiddle
                        color: jobDelegate.highlighted ? Theme.accentText : Theme.text
                        font.bold: jobDelegate.highlighted
                    }

                    Label {
                        objectName: "jobProgress"
                        // A job whose records show a hang is a post-mortem: its ranks never start up.
                        text: jobDelegate.postMortem ? qsTr("post-mortem · %1 ranks").arg(jobDelegate.worldSize)
                                                     : qsTr("%1/%2 ready").arg(jobDelegate.ranksReady).arg(jobDelegate.worldSize)
                        color: jobDelegate.highlighted ? Theme.accentText : Theme.mutedText
                        font.pixelSize: Theme.fontSmall
                    }

                    Label {
                        visible: jobDelegate.findings > 0
                        text: jobDelegate.findings === 1 ? qsTr("1 finding") : qsTr("%1 findings").arg(jobDelegate.findings)
                        color: jobDelegate.highlighted ? Theme.accentText : Theme.error
                        font.pixelSize: Theme.fontSmall
                    }
                }
            }
        }
    }
}
