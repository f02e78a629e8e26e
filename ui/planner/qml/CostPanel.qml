pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope.Style
import MeshScope.Planner

// What the layout on screen costs one GPU: its memory by part as one stacked bar against the usable memory (the
// mark), each mesh dim's communication per step, inside a node or between nodes (docs/cost-model.md), and the
// constants a cluster profile can set, each from the user's cluster profile or a preset (docs/calibrate.md).
Frame {
    id: root

    required property PlanCost cost

    background: Rectangle {
        color: Theme.panel
        border.color: Theme.panelBorder
        radius: 4
    }

    // The widest pair of times a dim's row prints (times from one second on print as seconds), so that every row's
    // text fits whole and every bar keeps the same width: the bars share one scale.
    TextMetrics {
        id: commTextMetrics

        font.pixelSize: Theme.fontSmall
        text: "999.99 ms · 999.99 ms exposed"
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 4

        SectionHeader {
            text: qsTr("Cost per GPU")
        }

        Label {
            objectName: "costModelText"
            Layout.fillWidth: true
            text: root.cost.modelText
            color: Theme.mutedText
            font.pixelSize: Theme.fontSmall
            elide: Text.ElideRight
        }

        Label {
            objectName: "memoryTotalText"
            Layout.fillWidth: true
            text: qsTr("Memory: %1 · %2").arg(root.cost.memory.totalText).arg(root.cost.memory.fitText)
            color: root.cost.memory.fits ? Theme.text : Theme.error
            font.bold: !root.cost.memory.fits
            wrapMode: Text.Wrap
        }

        // The stacked bar: its full width is the larger of the total and the usable memory.
        Item {
            id: memoryBar

            objectName: "memoryBar"
            Layout.fillWidth: true
            Layout.topMargin: 3
            Layout.bottomMargin: 3
            implicitHeight: 18

            Rectangle {
                anchors.fill: parent
                color: Theme.window
                border.color: Theme.panelBorder
            }

            Repeater {
                objectName: "memorySegments"
                model: root.cost.memory

                delegate: Rectangle {
                    id: segment

                    required property int part
                    required property real start
                    required property real fraction

                    x: segment.start * memoryBar.width
                    width: segment.fraction * memoryBar.width
                    height: memoryBar.height
                    color: Theme.colors.memoryColors[segment.part]
                }
            }

            Rectangle {
                objectName: "usableMark"
                x: root.cost.memory.usableFraction * memoryBar.width - 1
                y: -3
                width: 2
                height: memoryBar.height + 6
                color: Theme.text
            }
        }

        Flow {
            Layout.fillWidth: true
            spacing: 10

            Repeater {
                model: root.cost.memory

                delegate: Row {
                    id: memoryEntry

                    required property int part
                    required property string name
                    required property string text

                    spacing: 4

                    Rectangle {
                        anchors.verticalCenter: parent.verticalCenter
                        width: 10
                        height: 10
                        color: Theme.colors.memoryColors[memoryEntry.part]
                    }

                    Label {
                        text: qsTr("%1 %2").arg(memoryEntry.name).arg(memoryEntry.text)
                        color: Theme.text
                        font.pixelSize: Theme.fontSmall
                    }
                }
            }
        }

        Label {
            Layout.topMargin: 6
            text: qsTr("Step: compute and exposed communication")
            color: Theme.mutedText
            font.bold: true
            font.pixelSize: Theme.fontSmall
        }

        Label {
            objectName: "stepText"
            Layout.fillWidth: true
            text: root.cost.comm.stepText
            color: Theme.text
            font.bold: true
            wrapMode: Text.Wrap
        }

        Label {
            objectName: "commTotalText"
            Layout.fillWidth: true
            text: root.cost.comm.totalText
            color: Theme.text
            wrapMode: Text.Wrap
        }

        Repeater {
            objectName: "commRows"
            model: root.cost.comm

            delegate: RowLayout {
                id: commRow

                required property string dim
                required property int size
                required property real intraFraction
                required property real interFraction
                required property string timeText
                required property string exposedText
                required property string linkText
                required property string collectivesText

                Layout.fillWidth: true
                spacing: 6

                Label {
                    Layout.preferredWidth: 84
                    text: qsTr("%1 %2").arg(commRow.dim).arg(commRow.size)
                    color: Theme.text
                    font.family: Theme.monospace
                    font.pixelSize: Theme.fontSmall
                }

                Item {
                    id: commBar

                    Layout.fillWidth: true
                    implicitHeight: 12
                    ToolTip.visible: commHover.hovered
                    ToolTip.text: qsTr("%1 · %2").arg(commRow.linkText).arg(commRow.collectivesText)

                    HoverHandler {
                        id: commHover
                    }

                    Rectangle {
                        width: commRow.intraFraction * commBar.width
                        height: commBar.height
                        color: Theme.commIntraNode
                    }

                    Rectangle {
                        x: commRow.intraFraction * commBar.width
                        width: commRow.interFraction * commBar.width
                        height: commBar.height
                        color: Theme.commInterNode
                    }
                }

                Label {
                    Layout.preferredWidth: Math.ceil(commTextMetrics.advanceWidth) + 2
                    text: qsTr("%1 · %2").arg(commRow.timeText).arg(commRow.exposedText)
                    elide: Text.ElideRight
                    color: Theme.text
                    font.pixelSize: Theme.fontSmall
                }
            }
        }

        Row {
            spacing: 4

            Rectangle {
                anchors.verticalCenter: parent.verticalCenter
                width: 10
                height: 10
                color: Theme.commIntraNode
            }

            Label {
                text: qsTr("inside a node (NVLink)  ")
                color: Theme.mutedText
                font.pixelSize: Theme.fontSmall
            }

            Rectangle {
                anchors.verticalCenter: parent.verticalCenter
                width: 10
                height: 10
                color: Theme.commInterNode
            }

            Label {
                text: qsTr("between nodes (network)")
                color: Theme.mutedText
                font.pixelSize: Theme.fontSmall
            }
        }

        Label {
            Layout.topMargin: 6
            text: qsTr("Constants: your cluster profile or presets")
            color: Theme.mutedText
            font.bold: true
            font.pixelSize: Theme.fontSmall
        }

        Label {
            objectName: "clusterProfileText"
            Layout.fillWidth: true
            visible: root.cost.constants.clusterProfileText !== ""
            text: root.cost.constants.clusterProfileText
            color: Theme.text
            font.pixelSize: Theme.fontSmall
            wrapMode: Text.Wrap
        }

        Repeater {
            objectName: "constantRows"
            model: root.cost.constants

            delegate: RowLayout {
                id: constantRow

                required property string name
                required property string label
                required property string valueText
                required property bool fromClusterProfile
                required property string sourceText
                required property string sourceName

                objectName: "constantRow_" + constantRow.name
                Layout.fillWidth: true
                spacing: 6
                ToolTip.visible: constantHover.hovered
                ToolTip.text: constantRow.sourceText

                HoverHandler {
                    id: constantHover
                }

                Label {
                    Layout.preferredWidth: 130
                    text: constantRow.label
                    color: Theme.text
                    font.pixelSize: Theme.fontSmall
                }

                Label {
                    Layout.preferredWidth: 70
                    text: constantRow.valueText
                    color: Theme.text
                    font.bold: constantRow.fromClusterProfile
                    font.pixelSize: Theme.fontSmall
                }

                // The short form; the whole source (file and what it was fitted on) is the row's tooltip.
                Label {
                    objectName: "constantSource"
                    Layout.fillWidth: true
                    text: constantRow.sourceName
                    elide: Text.ElideRight
                    color: constantRow.fromClusterProfile ? Theme.accent : Theme.mutedText
                    font.bold: constantRow.fromClusterProfile
                    font.pixelSize: Theme.fontSmall
                }
            }
        }

        Label {
            objectName: "layoutProblemText"
            Layout.fillWidth: true
            visible: root.cost.layoutProblem !== ""
            text: qsTr("This layout is left out: %1").arg(root.cost.layoutProblem)
            color: Theme.error
            wrapMode: Text.Wrap
        }

        Item {  // the rest of the panel's height, so the rows above keep together
            Layout.fillHeight: true
        }
    }
}
