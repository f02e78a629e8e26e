pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope.Style
import MeshScope.Planner

// The planner's inputs: the cluster (nodes x GPUs per node, or a world size), cp, ep, LlamaFactory's model mesh
// (mp_replicate, mp_shard), the model's experts and the group-creation order. Invalid values stay typed; the field the error is about turns red.
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
        spacing: Theme.spacing

        SectionHeader {
            text: qsTr("Layout")
        }

        RowLayout {
            spacing: Theme.spacing

            RadioButton {
                objectName: "clusterByNodes"
                text: qsTr("Nodes × GPUs")
                checked: !root.form.useWorld
                onClicked: root.form.useWorld = false
            }

            RadioButton {
                objectName: "clusterByWorld"
                text: qsTr("World size")
                checked: root.form.useWorld
                onClicked: root.form.useWorld = true
            }
        }

        IntField {
            objectName: "nodesField"
            Layout.fillWidth: true
            visible: !root.form.useWorld
            label: qsTr("Nodes")
            value: root.form.nodes
            invalid: root.form.errorField === PlanInput.Nodes
            onEdited: value => root.form.nodes = value
        }

        IntField {
            objectName: "worldField"
            Layout.fillWidth: true
            visible: root.form.useWorld
            label: qsTr("World size")
            value: root.form.world
            invalid: root.form.errorField === PlanInput.World
            onEdited: value => root.form.world = value
        }

        IntField {
            objectName: "gpusPerNodeField"
            Layout.fillWidth: true
            label: qsTr("GPUs per node")
            value: root.form.gpusPerNode
            invalid: root.form.errorField === PlanInput.GpusPerNode
            onEdited: value => root.form.gpusPerNode = value
        }

        IntField {
            objectName: "cpField"
            Layout.fillWidth: true
            label: qsTr("cp (context)")
            value: root.form.cp
            invalid: root.form.errorField === PlanInput.Cp
            onEdited: value => root.form.cp = value
        }

        IntField {
            objectName: "epField"
            Layout.fillWidth: true
            label: qsTr("ep (expert)")
            value: root.form.ep
            invalid: root.form.errorField === PlanInput.Ep
            onEdited: value => root.form.ep = value
        }

        Label {
            objectName: "dpLabel"
            Layout.fillWidth: true
            text: qsTr("dp = world / cp = %1 / %2 = %3").arg(root.view.planWorld).arg(root.view.planCp)
                  .arg(root.view.planDp)
            color: Theme.mutedText
            font.pixelSize: Theme.fontSmall
        }

        IntField {
            objectName: "mpReplicateField"
            Layout.fillWidth: true
            label: qsTr("mp_replicate")
            value: root.form.mpReplicate
            invalid: root.form.errorField === PlanInput.MpReplicate
            onEdited: value => root.form.mpReplicate = value
        }

        IntField {
            objectName: "mpShardField"
            Layout.fillWidth: true
            label: qsTr("mp_shard")
            value: root.form.mpShard
            hint: qsTr("0: world / mp_replicate")
            invalid: root.form.errorField === PlanInput.MpShard
            onEdited: value => root.form.mpShard = value
        }

        IntField {
            objectName: "expertsField"
            Layout.fillWidth: true
            label: qsTr("Experts (model)")
            value: root.form.experts
            hint: qsTr("0: not given")
            invalid: !root.form.expertsValid
            onEdited: value => root.form.experts = value
        }

        RowLayout {
            objectName: "planner.order"
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
                model: root.form.orderNames  // core's names; entry i is CreationOrder value i
                currentIndex: root.form.order
                displayText: orderBox.currentIndex === CreationOrder.Torch28 ? qsTr("PyTorch ≤ 2.8") : qsTr("PyTorch ≥ 2.9")
                onActivated: index => root.form.order = index
            }
        }
    }
}
