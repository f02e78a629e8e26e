pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope.Style
import MeshScope.Teach

// The open tour step, floating over the page (qml/Dashboard.qml picks the side): where it is in the tour, its
// text, its task (the prompt, an answer field where the answer is not a click, core's verdict and the hint), and
// Back / Next / Leave. Next waits until core judged the task's answer right.
Pane {
    id: root

    required property TourController tours
    readonly property TourStepView step: root.tours.step
    readonly property TourAnswer answer: root.tours.answer

    padding: 14

    background: Rectangle {
        color: Theme.panel
        border.color: Theme.panelBorder
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: Theme.spacing

        Label {
            objectName: "tourPosition"
            Layout.fillWidth: true
            text: qsTr("%1 · step %2 of %3").arg(root.step.tourTitle).arg(root.step.index).arg(root.step.count)
            color: Theme.mutedText
            font.pixelSize: Theme.fontSmall
            wrapMode: Text.WordWrap
        }

        Label {
            objectName: "tourStepTitle"
            Layout.fillWidth: true
            text: root.step.title
            color: Theme.text
            font.pixelSize: Theme.fontTitle
            font.bold: true
            wrapMode: Text.WordWrap
        }

        ScrollView {
            id: textScroll

            Layout.fillWidth: true
            Layout.fillHeight: true
            contentWidth: availableWidth
            clip: true

            Label {
                objectName: "tourStepText"
                width: textScroll.availableWidth
                text: root.step.text
                textFormat: Text.PlainText
                color: Theme.text
                font.pixelSize: Theme.fontNormal
                wrapMode: Text.WordWrap
                lineHeight: 1.15
            }
        }

        // The finding the step quotes, in core's words (on a live step: the job's own, once it shows it).
        Label {
            objectName: "tourFinding"
            Layout.fillWidth: true
            visible: root.step.findingMessage !== ""
            text: qsTr("%1: %2\nfix: %3").arg(root.step.findingKind).arg(root.step.findingMessage).arg(root.step.findingFix)
            color: Theme.text
            font.pixelSize: Theme.fontSmall
            wrapMode: Text.WordWrap
            padding: 6
            background: Rectangle {
                color: Theme.window
                border.color: Theme.finding
                radius: 4
            }
        }

        Label {
            objectName: "tourJobError"
            Layout.fillWidth: true
            visible: root.tours.jobError !== ""
            text: root.tours.jobError
            color: Theme.error
            wrapMode: Text.WordWrap
        }

        TourTask {
            Layout.fillWidth: true
            visible: root.step.hasTask
            tours: root.tours
        }

        RowLayout {
            Layout.fillWidth: true
            spacing: Theme.spacing

            Button {
                objectName: "tourBack"
                text: qsTr("Back")
                enabled: root.step.index > 1
                onClicked: root.tours.back()
            }

            Item {
                Layout.fillWidth: true
            }

            Button {
                objectName: "tourLeave"
                text: qsTr("Leave")
                onClicked: root.tours.leave()
            }

            Button {
                objectName: "tourNext"
                text: root.step.index === root.step.count ? qsTr("Finish") : qsTr("Next")
                highlighted: true
                enabled: !root.step.hasTask || root.answer.solved
                onClicked: root.tours.next()
            }
        }
    }
}
