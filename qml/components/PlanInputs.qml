pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope
import MeshScope.Planner

// The planner's inputs: the cluster (nodes x GPUs per node, or a world size), cp, ep, the model's experts
// and the group-creation order. Invalid values stay typed; the field the error is about turns red.
Frame {
    id: root

    required property PlanController controller

    background: Rectangle {
        color: Theme.panel
        border.color: Theme.panelBorder
        radius: 4
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: Theme.spacing

        SectionHeader {
            text: qsTr("Layout")
        }

        RowLayout {
            spacing: Theme.spacing

            RadioButton {
                objectName: "clusterByNodes"
                text: qsTr("Nodes × GPUs")
                checked: !root.controller.useWorld
                onClicked: root.controller.useWorld = false
            }

            RadioButton {
                objectName: "clusterByWorld"
                text: qsTr("World size")
                checked: root.controller.useWorld
                onClicked: root.controller.useWorld = true
            }
        }

        IntField {
            objectName: "nodesField"
            Layout.fillWidth: true
            visible: !root.controller.useWorld
            label: qsTr("Nodes")
            value: root.controller.nodes
            invalid: root.controller.errorField === PlanInput.Nodes
            onEdited: value => root.controller.nodes = value
        }

        IntField {
            objectName: "worldField"
            Layout.fillWidth: true
            visible: root.controller.useWorld
            label: qsTr("World size")
            value: root.controller.world
            invalid: root.controller.errorField === PlanInput.World
            onEdited: value => root.controller.world = value
        }

        IntField {
            objectName: "gpusPerNodeField"
            Layout.fillWidth: true
            label: qsTr("GPUs per node")
            value: root.controller.gpusPerNode
            invalid: root.controller.errorField === PlanInput.GpusPerNode
            onEdited: value => root.controller.gpusPerNode = value
        }

        IntField {
            objectName: "cpField"
            Layout.fillWidth: true
            label: qsTr("cp (context)")
            value: root.controller.cp
            invalid: root.controller.errorField === PlanInput.Cp
            onEdited: value => root.controller.cp = value
        }

        IntField {
            objectName: "epField"
            Layout.fillWidth: true
            label: qsTr("ep (expert)")
            value: root.controller.ep
            invalid: root.controller.errorField === PlanInput.Ep
            onEdited: value => root.controller.ep = value
        }

        Label {
            objectName: "dpLabel"
            Layout.fillWidth: true
            text: qsTr("dp = world / cp = %1 / %2 = %3").arg(root.controller.planWorld).arg(root.controller.planCp)
                  .arg(root.controller.planDp)
            color: Theme.mutedText
            font.pixelSize: Theme.fontSmall
        }

        IntField {
            objectName: "expertsField"
            Layout.fillWidth: true
            label: qsTr("Experts (model)")
            value: root.controller.experts
            hint: qsTr("0: not given")
            invalid: !root.controller.expertsValid
            onEdited: value => root.controller.experts = value
        }

        RowLayout {
            spacing: Theme.spacing

            Label {
                Layout.preferredWidth: 112
                text: qsTr("Group order")
                color: Theme.text
            }

            ComboBox {
                id: orderBox

                objectName: "orderBox"
                Layout.fillWidth: true
                model: root.controller.orderNames  // core's names; entry i is CreationOrder value i
                currentIndex: root.controller.order
                displayText: orderBox.currentIndex === CreationOrder.Torch28 ? qsTr("PyTorch ≤ 2.8") : qsTr("PyTorch ≥ 2.9")
                onActivated: index => root.controller.order = index
            }
        }
    }
}
