pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope.Style
import MeshScope.Planner

// What the Cost panel prices the plan for: a model preset ("none": no cost shown), the GPUs and network, and one
// optimizer step (core's names and checks: docs/cost-model.md). Invalid values stay typed; core's message shows.
Frame {
    id: root

    required property CostForm form

    background: Rectangle {
        color: Theme.panel
        border.color: Theme.panelBorder
        radius: 4
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: Theme.spacing

        SectionHeader {
            text: qsTr("Model and cost")
        }

        NameChoice {
            objectName: "modelChoice"
            Layout.fillWidth: true
            label: qsTr("Model")
            names: root.form.modelNames
            value: root.form.model
            onChosen: name => root.form.model = name
        }

        NameChoice {
            objectName: "hardwareChoice"
            Layout.fillWidth: true
            visible: root.form.hasModel
            label: qsTr("GPU")
            names: root.form.hardwareNames
            value: root.form.hardware
            onChosen: name => root.form.hardware = name
        }

        NameChoice {
            objectName: "networkChoice"
            Layout.fillWidth: true
            visible: root.form.hasModel
            label: qsTr("Network")
            names: root.form.networkNames
            value: root.form.network
            onChosen: name => root.form.network = name
        }

        IntField {
            objectName: "seqField"
            Layout.fillWidth: true
            visible: root.form.hasModel
            label: qsTr("Sequence")
            value: root.form.seq
            invalid: root.form.errorField === "seq"
            onEdited: value => root.form.seq = value
        }

        IntField {
            objectName: "microBatchField"
            Layout.fillWidth: true
            visible: root.form.hasModel
            label: qsTr("Micro-batch")
            value: root.form.microBatch
            invalid: root.form.errorField === "micro_batch"
            onEdited: value => root.form.microBatch = value
        }

        IntField {
            objectName: "gradAccumField"
            Layout.fillWidth: true
            visible: root.form.hasModel
            label: qsTr("Grad. accum.")
            value: root.form.gradAccum
            // A global batch fixes each layout's micro-batches itself.
            enabled: root.form.globalBatch === 0
            invalid: root.form.errorField === "grad_accum"
            onEdited: value => root.form.gradAccum = value
        }

        IntField {
            objectName: "globalBatchField"
            Layout.fillWidth: true
            visible: root.form.hasModel
            label: qsTr("Global batch")
            value: root.form.globalBatch
            invalid: root.form.errorField === "global_batch"
            onEdited: value => root.form.globalBatch = value
        }

        NameChoice {
            objectName: "recomputeChoice"
            Layout.fillWidth: true
            visible: root.form.hasModel
            label: qsTr("Recompute")
            names: root.form.recomputeNames
            value: root.form.recompute
            onChosen: name => root.form.recompute = name
        }

        Label {
            objectName: "costErrorText"
            Layout.fillWidth: true
            visible: root.form.errorText !== ""
            text: root.form.errorText
            color: Theme.error
            font.bold: true
            wrapMode: Text.Wrap
        }
    }
}
