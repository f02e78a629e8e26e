pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import MeshScope.Style
import MeshScope.Planner

// Exports: the plan JSON (as `meshscope plan --format json`), a LlamaFactory snippet, a torchrun line and
// the grid as PNG or SVG. Text exports can be copied or saved; pictures are saved.
Frame {
    id: root

    required property PlanView view
    required property MeshGridItem grid

    function save(kind: string, filter: string) {
        saveDialog.kind = kind;
        saveDialog.nameFilters = [filter];
        saveDialog.open();
    }

    background: Rectangle {
        color: Theme.panel
        border.color: Theme.panelBorder
        radius: 4
    }

    FileDialog {
        id: saveDialog

        property string kind: "json"

        fileMode: FileDialog.SaveFile
        onAccepted: {
            if (saveDialog.kind === "png")
                root.grid.savePng(saveDialog.selectedFile);
            else if (saveDialog.kind === "svg")
                root.grid.saveSvg(saveDialog.selectedFile);
            else
                root.view.saveExport(saveDialog.kind, saveDialog.selectedFile);
        }
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 6

        SectionHeader {
            text: qsTr("Export")
        }

        Label {
            text: qsTr("LlamaFactory config")
            color: Theme.mutedText
            font.bold: true
            font.pixelSize: Theme.fontSmall
        }

        TextArea {
            objectName: "yamlPreview"
            Layout.fillWidth: true
            readOnly: true
            selectByMouse: true
            wrapMode: TextEdit.Wrap
            font.family: Theme.monospace
            font.pixelSize: Theme.fontSmall
            text: root.view.llamaFactoryYaml
            color: Theme.text
            background: Rectangle {
                color: Theme.window
                radius: 3
            }
        }

        Label {
            text: qsTr("torchrun")
            color: Theme.mutedText
            font.bold: true
            font.pixelSize: Theme.fontSmall
        }

        TextArea {
            objectName: "torchrunPreview"
            Layout.fillWidth: true
            readOnly: true
            selectByMouse: true
            wrapMode: TextEdit.Wrap
            font.family: Theme.monospace
            font.pixelSize: Theme.fontSmall
            text: root.view.torchrunCommand
            color: Theme.text
            background: Rectangle {
                color: Theme.window
                radius: 3
            }
        }

        GridLayout {
            Layout.fillWidth: true
            columns: 3
            columnSpacing: 4
            rowSpacing: 4

            Button {
                Layout.fillWidth: true
                text: qsTr("Copy YAML")
                onClicked: root.view.copyExport("yaml")
            }

            Button {
                Layout.fillWidth: true
                text: qsTr("Copy torchrun")
                onClicked: root.view.copyExport("torchrun")
            }

            Button {
                Layout.fillWidth: true
                text: qsTr("Copy JSON")
                onClicked: root.view.copyExport("json")
            }

            Button {
                Layout.fillWidth: true
                text: qsTr("Plan JSON…")
                onClicked: root.save("json", qsTr("Plan JSON (*.json)"))
            }

            Button {
                Layout.fillWidth: true
                text: qsTr("YAML…")
                onClicked: root.save("yaml", qsTr("YAML (*.yaml *.yml)"))
            }

            Button {
                Layout.fillWidth: true
                text: qsTr("torchrun…")
                onClicked: root.save("torchrun", qsTr("Shell (*.sh *.txt)"))
            }

            Button {
                Layout.fillWidth: true
                text: qsTr("Grid PNG…")
                onClicked: root.save("png", qsTr("PNG image (*.png)"))
            }

            Button {
                Layout.fillWidth: true
                text: qsTr("Grid SVG…")
                onClicked: root.save("svg", qsTr("SVG image (*.svg)"))
            }
        }
    }
}
