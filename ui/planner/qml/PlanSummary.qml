pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope.Style
import MeshScope.Planner

// Derived sizes, the groups of every dim and how they fall on nodes, warnings, experts per rank.
Frame {
    id: root

    required property PlanForm form
    required property PlanView view

    background: Rectangle {
        color: Theme.panel
        border.color: Theme.panelBorder
        radius: 4
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 4

        SectionHeader {
            text: qsTr("Summary")
        }

        Label {
            objectName: "topologyText"
            Layout.fillWidth: true
            text: root.view.topologyText
            color: Theme.text
            wrapMode: Text.Wrap
        }

        Label {
            objectName: "modelMeshText"
            Layout.fillWidth: true
            text: qsTr("Model mesh: %1").arg(root.view.modelMeshText)
            color: Theme.text
            wrapMode: Text.Wrap
        }

        Label {
            objectName: "expertMeshText"
            Layout.fillWidth: true
            text: qsTr("Expert mesh: %1").arg(root.view.expertMeshText)
            color: Theme.text
            wrapMode: Text.Wrap
        }

        Label {
            Layout.fillWidth: true
            text: qsTr("Cluster: %1").arg(root.view.clusterText)
            color: Theme.text
            wrapMode: Text.Wrap
        }

        Label {
            objectName: "expertsText"
            Layout.fillWidth: true
            visible: root.form.expertsText !== ""
            text: root.form.expertsText
            color: root.form.expertsValid ? Theme.text : Theme.error
            font.bold: !root.form.expertsValid
            wrapMode: Text.Wrap
        }

        Flow {
            Layout.fillWidth: true
            spacing: 4
            visible: root.form.expertsSuggestions.count > 0

            Label {
                text: qsTr("ep dividing dp and the experts:")
                color: Theme.mutedText
                font.pixelSize: Theme.fontSmall
                height: 28
                verticalAlignment: Text.AlignVCenter
            }

            Repeater {
                model: root.form.expertsSuggestions

                delegate: Button {
                    id: expertsSuggestion

                    required property int index
                    required property string label

                    text: expertsSuggestion.label
                    implicitWidth: Math.max(36, implicitContentWidth + 16)
                    onClicked: root.form.applyExpertsSuggestion(expertsSuggestion.index)
                }
            }
        }

        Label {
            Layout.topMargin: 6
            text: qsTr("Groups per dim")
            color: Theme.mutedText
            font.bold: true
            font.pixelSize: Theme.fontSmall
        }

        Repeater {
            objectName: "dimsSummary"
            model: root.view.dims

            delegate: RowLayout {
                id: dimRow

                required property string mesh
                required property string dim
                required property int size
                required property int groups
                required property string spanText
                required property int crossNodeGroups

                Layout.fillWidth: true
                spacing: 6

                Label {
                    Layout.preferredWidth: 74
                    text: dimRow.dim
                    color: Theme.text
                    font.family: Theme.monospace
                    font.pixelSize: Theme.fontSmall
                }

                Label {
                    Layout.fillWidth: true
                    text: qsTr("%1 × size %2 · %3").arg(dimRow.groups).arg(dimRow.size).arg(dimRow.spanText)
                    color: dimRow.crossNodeGroups > 0 ? Theme.warning : Theme.mutedText
                    font.pixelSize: Theme.fontSmall
                    wrapMode: Text.Wrap
                }
            }
        }

        Label {
            Layout.topMargin: 6
            text: root.view.warnings.length > 0 ? qsTr("Warnings") : qsTr("No placement warnings")
            color: Theme.mutedText
            font.bold: true
            font.pixelSize: Theme.fontSmall
        }

        Repeater {
            objectName: "warnings"
            model: root.view.warnings

            delegate: Label {
                id: warningLabel

                required property string modelData

                Layout.fillWidth: true
                text: "⚠ " + warningLabel.modelData
                color: Theme.warning
                wrapMode: Text.Wrap
                font.pixelSize: Theme.fontSmall
            }
        }
    }
}
