pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope.Style
import MeshScope.Planner

// The planner: inputs, the model to price it for, summary and exports on the left; the grid with its legend in
// the middle, under it (once a model is chosen) the layout's cost and core's ranked layouts; the selected rank on
// the right. Everything it shows comes from the PlanController's three parts: its form (inputs
// and verdict), its view (the plan shown and what the grid draws) and its selection.
Page {
    id: root

    required property PlanController controller

    // A rank's cell clicked on the grid (a tour's answer; the selection follows the click anyway).
    signal rankClicked(int rank)

    background: Rectangle {
        color: Theme.window
    }

    RowLayout {
        anchors.fill: parent
        anchors.margins: Theme.spacing
        spacing: Theme.spacing

        ScrollView {
            id: leftPanel

            Layout.preferredWidth: Theme.panelWidth
            Layout.fillHeight: true
            contentWidth: availableWidth
            clip: true

            ColumnLayout {
                width: leftPanel.availableWidth
                spacing: Theme.spacing

                PlanInputs {
                    objectName: "planner.inputs"
                    Layout.fillWidth: true
                    form: root.controller.form
                    view: root.controller.view
                }

                CostInputs {
                    Layout.fillWidth: true
                    form: root.controller.costForm
                }

                ErrorPanel {
                    Layout.fillWidth: true
                    form: root.controller.form
                    view: root.controller.view
                    visible: !root.controller.form.valid
                }

                PlanSummary {
                    Layout.fillWidth: true
                    form: root.controller.form
                    view: root.controller.view
                }

                ExportPanel {
                    Layout.fillWidth: true
                    view: root.controller.view
                    grid: meshGrid
                }
            }
        }

        ColumnLayout {
            Layout.fillWidth: true
            Layout.fillHeight: true
            spacing: Theme.spacing

            GridToolbar {
                Layout.fillWidth: true
                view: root.controller.view
                grid: meshGrid
            }

            Label {
                objectName: "noExpertMeshNote"
                Layout.fillWidth: true
                visible: !root.controller.view.hasExpertMesh && root.controller.view.shownMesh !== MeshView.Model
                text: qsTr("ep = 1: FSDPTurbo builds no expert mesh (efsdp = edp = 1). Showing the data mesh, dp × cp.")
                color: Theme.warning
                wrapMode: Text.WordWrap
                padding: 6
                background: Rectangle {
                    color: Theme.warningBackground
                    radius: 4
                }
            }

            Rectangle {
                objectName: "planner.grid"
                Layout.fillWidth: true
                Layout.fillHeight: true
                color: Theme.gridBackground
                border.color: meshGrid.activeFocus ? Theme.accent : Theme.panelBorder
                border.width: meshGrid.activeFocus ? 2 : 1
                radius: 4

                MeshGridItem {
                    id: meshGrid

                    objectName: "meshGrid"
                    anchors.fill: parent
                    anchors.margins: 2
                    controller: root.controller
                    dark: Theme.dark
                    focus: true
                    onRankClicked: rank => root.rankClicked(rank)
                }
            }

            GridLegend {
                // A Flow's implicit width follows the width it gets; ignoring it keeps the row's layout from
                // chasing it (a polish loop while the page is hidden behind the Live page).
                Layout.fillWidth: true
                Layout.preferredWidth: 0
                view: root.controller.view
            }

            RowLayout {
                objectName: "costStrip"
                Layout.fillWidth: true
                Layout.fillHeight: false  // its panels fill it; the grid takes the rest of the column
                // As tall as the cost needs (more mesh dims, more rows), the ranked layouts alongside.
                Layout.preferredHeight: Math.max(280, costPanel.implicitHeight)
                visible: root.controller.cost.shown
                spacing: Theme.spacing

                CostPanel {
                    id: costPanel

                    Layout.preferredWidth: 370
                    Layout.fillHeight: true
                    cost: root.controller.cost
                }

                RankedLayouts {
                    Layout.fillWidth: true
                    Layout.fillHeight: true
                    cost: root.controller.cost
                }
            }

            Label {
                objectName: "statusLine"
                Layout.fillWidth: true
                color: Theme.mutedText
                font.pixelSize: Theme.fontSmall
                elide: Text.ElideRight
                text: meshGrid.hoverText !== ""
                      ? meshGrid.hoverText + qsTr(" — click to select")
                      : (root.controller.view.statusText !== "" ? root.controller.view.statusText
                        : qsTr("Click a rank to see its groups · arrow keys move the selection · wheel zooms · drag pans · 0 fits"))
            }
        }

        RankInspector {
            objectName: "planner.inspector"
            Layout.preferredWidth: Theme.panelWidth
            Layout.fillHeight: true
            selection: root.controller.selection
        }
    }
}
