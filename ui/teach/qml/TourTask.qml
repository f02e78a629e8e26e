pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope.Style
import MeshScope.Teach

// A tour step's task: the prompt, how to answer (a click on the page's grid, a number, one of the options, the
// planner's layout, the sandbox's calls), and core's verdict on the latest answer, with the hint when wrong.
Frame {
    id: root

    required property TourController tours
    readonly property TourStepView step: root.tours.step
    readonly property TourAnswer answer: root.tours.answer
    property int choice: -1

    background: Rectangle {
        color: Theme.window
        border.color: root.answer.solved ? Theme.success : Theme.panelBorder
        border.width: root.answer.solved ? 2 : 1
        radius: 4
    }

    Connections {
        target: root.step

        function onChanged() {
            root.choice = -1;
            numberField.text = "";
        }
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: Theme.spacing

        Label {
            objectName: "tourPrompt"
            Layout.fillWidth: true
            text: root.step.prompt
            color: Theme.text
            font.bold: true
            wrapMode: Text.WordWrap
        }

        Label {
            Layout.fillWidth: true
            visible: root.step.answerKind === "rank" || root.step.answerKind === "sandbox"
            text: root.step.answerKind === "rank" ? qsTr("Click a rank on the page.")
                                                  : qsTr("Use the sandbox's buttons: each call is checked.")
            color: Theme.mutedText
            font.pixelSize: Theme.fontSmall
            wrapMode: Text.WordWrap
        }

        RowLayout {
            Layout.fillWidth: true
            visible: root.step.answerKind === "number"
            spacing: Theme.spacing

            TextField {
                id: numberField

                objectName: "tourNumber"
                Layout.fillWidth: true
                placeholderText: qsTr("a number")
                selectByMouse: true
                validator: IntValidator {
                    bottom: 0
                    top: 99999999
                }
                onAccepted: root.tours.submitNumber(Number(numberField.text))
            }

            Button {
                objectName: "tourCheckNumber"
                text: qsTr("Check")
                enabled: numberField.acceptableInput && !root.answer.solved
                onClicked: root.tours.submitNumber(Number(numberField.text))
            }
        }

        ColumnLayout {
            Layout.fillWidth: true
            visible: root.step.answerKind === "choice"
            spacing: 2

            Repeater {
                objectName: "tourOptions"
                model: root.step.options

                RadioButton {
                    id: option

                    required property int index
                    required property string modelData

                    Layout.fillWidth: true
                    text: option.modelData
                    checked: root.choice === option.index
                    onClicked: root.choice = option.index
                }
            }

            Button {
                objectName: "tourCheckChoice"
                text: qsTr("Check")
                enabled: root.choice >= 0 && !root.answer.solved
                onClicked: root.tours.submitChoice(root.choice)
            }
        }

        Button {
            objectName: "tourCheckLayout"
            visible: root.step.answerKind === "layout"
            text: qsTr("Check the planner's layout")
            enabled: !root.answer.solved
            onClicked: root.tours.submitPlannerLayout()
        }

        Label {
            objectName: "tourMessage"
            Layout.fillWidth: true
            visible: root.answer.message !== ""
            text: root.answer.message  // core's: "Right: ..." or why the answer is wrong
            color: root.answer.wrong ? Theme.error : Theme.success
            wrapMode: Text.WordWrap
            padding: 6
            background: Rectangle {
                color: root.answer.wrong ? Theme.errorBackground : Theme.successBackground
                radius: 4
            }
        }

        Label {
            objectName: "tourHint"
            Layout.fillWidth: true
            visible: root.answer.wrong && root.step.hint !== ""
            text: qsTr("Hint: %1").arg(root.step.hint)
            color: Theme.mutedText
            wrapMode: Text.WordWrap
        }
    }
}
