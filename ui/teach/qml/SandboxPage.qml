pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope.Style
import MeshScope.Teach

// The singleton pitfall's sandbox: one simulated training process holding FSDPTurbo's parallel state (core's
// ParallelState). Initialize it with a (dp, cp, ep), reset it (MeshScope's teardown, which FSDPTurbo lacks) or
// relaunch the process; every call, its outcome and its exact error stay in the history.
Page {
    id: root

    required property SandboxModel sandbox
    property int dp: 16
    property int cp: 1
    property int ep: 2

    background: Rectangle {
        color: Theme.window
    }

    RowLayout {
        anchors.fill: parent
        anchors.margins: Theme.spacing
        spacing: Theme.spacing

        Frame {
            objectName: "sandbox.calls"
            Layout.preferredWidth: Theme.panelWidth
            Layout.alignment: Qt.AlignTop

            background: Rectangle {
                color: Theme.panel
                border.color: Theme.panelBorder
                radius: 4
            }

            ColumnLayout {
                anchors.fill: parent
                spacing: Theme.spacing

                SectionHeader {
                    text: qsTr("One training process")
                }

                IntField {
                    objectName: "sandboxDp"
                    Layout.fillWidth: true
                    label: qsTr("dp_size")
                    value: root.dp
                    onEdited: value => root.dp = value
                }

                IntField {
                    objectName: "sandboxCp"
                    Layout.fillWidth: true
                    label: qsTr("cp_size")
                    value: root.cp
                    onEdited: value => root.cp = value
                }

                IntField {
                    objectName: "sandboxEp"
                    Layout.fillWidth: true
                    label: qsTr("ep_size")
                    value: root.ep
                    onEdited: value => root.ep = value
                }

                Button {
                    objectName: "sandboxInitialize"
                    Layout.fillWidth: true
                    text: qsTr("initialize(%1, %2, %3)").arg(root.dp).arg(root.cp).arg(root.ep)
                    highlighted: true
                    onClicked: root.sandbox.initialize(root.dp, root.cp, root.ep)
                }

                Button {
                    objectName: "sandboxReset"
                    Layout.fillWidth: true
                    text: qsTr("reset()  (MeshScope's teardown)")
                    onClicked: root.sandbox.reset()
                }

                Button {
                    objectName: "sandboxRelaunch"
                    Layout.fillWidth: true
                    text: qsTr("relaunch the process")
                    onClicked: root.sandbox.relaunch()
                }
            }
        }

        Frame {
            objectName: "sandbox.state"
            Layout.fillWidth: true
            Layout.fillHeight: true

            background: Rectangle {
                color: Theme.panel
                border.color: Theme.panelBorder
                radius: 4
            }

            ColumnLayout {
                anchors.fill: parent
                spacing: Theme.spacing

                SectionHeader {
                    text: qsTr("Parallel state")
                }

                Label {
                    objectName: "sandboxStateText"
                    Layout.fillWidth: true
                    text: root.sandbox.stateText
                    color: root.sandbox.initialized ? Theme.text : Theme.mutedText
                    font.family: Theme.monospace
                    font.pixelSize: Theme.fontTitle
                }

                Label {
                    objectName: "sandboxLastResult"
                    Layout.fillWidth: true
                    visible: root.sandbox.count > 0
                    text: root.sandbox.lastCall + " → " + root.sandbox.lastResult
                    color: root.sandbox.lastFailed ? Theme.error : Theme.text
                    font.family: Theme.monospace
                    wrapMode: Text.WrapAnywhere
                    padding: 6
                    background: Rectangle {
                        color: root.sandbox.lastFailed ? Theme.errorBackground : Theme.window
                        radius: 4
                    }
                }

                SectionHeader {
                    text: qsTr("Calls (%1)").arg(root.sandbox.count)
                }

                Label {
                    Layout.fillWidth: true
                    visible: root.sandbox.count === 0
                    text: qsTr("A fresh process: nothing initialized yet.")
                    color: Theme.mutedText
                }

                ListView {
                    id: history

                    objectName: "sandboxHistory"
                    Layout.fillWidth: true
                    Layout.fillHeight: true
                    clip: true
                    spacing: 4
                    model: root.sandbox
                    ScrollBar.vertical: ScrollBar {}

                    delegate: ColumnLayout {
                        id: row

                        required property int index
                        required property string call
                        required property string outcome
                        required property string errorType
                        required property string errorText
                        required property string stateText

                        width: ListView.view.width
                        spacing: 0

                        Label {
                            Layout.fillWidth: true
                            text: qsTr("%1. %2 → %3").arg(row.index + 1).arg(row.call).arg(row.outcome)
                            color: row.outcome === "error" ? Theme.error : Theme.text
                            font.family: Theme.monospace
                        }

                        Label {
                            Layout.fillWidth: true
                            visible: row.errorText !== ""
                            leftPadding: 20
                            text: row.errorType + ": " + row.errorText
                            color: Theme.error
                            font.family: Theme.monospace
                            font.pixelSize: Theme.fontSmall
                            wrapMode: Text.WrapAnywhere
                        }

                        Label {
                            Layout.fillWidth: true
                            leftPadding: 20
                            text: qsTr("state: %1").arg(row.stateText)
                            color: Theme.mutedText
                            font.pixelSize: Theme.fontSmall
                        }
                    }
                }
            }
        }
    }
}
