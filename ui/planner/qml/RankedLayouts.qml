pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope.Style
import MeshScope.Planner

// Core's ranking of every (dp, cp, ep) of the plan's world: those that fit by communication per step, then the
// excluded ones with core's reason. Clicking a row puts its layout on screen; the plan's own row is highlighted.
Frame {
    id: root

    required property PlanCost cost

    // Column widths, shared by the header and the rows.
    readonly property int rankWidth: 24
    readonly property int sizeWidth: 32
    readonly property int timeWidth: 66

    background: Rectangle {
        color: Theme.panel
        border.color: Theme.panelBorder
        radius: 4
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 4

        SectionHeader {
            text: qsTr("Ranked layouts")
        }

        Label {
            objectName: "rankingText"
            Layout.fillWidth: true
            text: root.cost.rankingText + qsTr(" · click a row to show it")
            color: Theme.mutedText
            font.pixelSize: Theme.fontSmall
            wrapMode: Text.WordWrap
        }

        Label {
            objectName: "whyText"
            Layout.fillWidth: true
            visible: root.cost.whyText !== ""
            text: qsTr("Why: %1").arg(root.cost.whyText)
            color: Theme.text
            font.pixelSize: Theme.fontSmall
            wrapMode: Text.WordWrap
            maximumLineCount: 3
            elide: Text.ElideRight
            ToolTip.visible: whyHover.hovered && truncated
            ToolTip.text: text

            HoverHandler {
                id: whyHover
            }
        }

        Row {
            Layout.leftMargin: 6

            Repeater {
                model: [
                    [qsTr("#"), root.rankWidth], [qsTr("dp"), root.sizeWidth], [qsTr("cp"), root.sizeWidth],
                    [qsTr("ep"), root.sizeWidth], [qsTr("step"), root.timeWidth], [qsTr("tok/s/GPU"), root.timeWidth],
                    [qsTr("MFU"), root.timeWidth], [qsTr("memory"), root.timeWidth]
                ]

                delegate: Label {
                    id: heading

                    required property var modelData

                    width: heading.modelData[1]
                    text: heading.modelData[0]
                    color: Theme.mutedText
                    font.bold: true
                    font.pixelSize: Theme.fontSmall
                }
            }
        }

        ListView {
            id: rankingList

            objectName: "rankingList"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            model: root.cost.ranking
            currentIndex: root.cost.ranking.currentRow
            highlightFollowsCurrentItem: false
            boundsBehavior: Flickable.StopAtBounds
            ScrollBar.vertical: ScrollBar {}
            // The plan's row stays in sight when a layout is typed or clicked.
            onCurrentIndexChanged: rankingList.positionViewAtIndex(rankingList.currentIndex, ListView.Contain)

            delegate: ItemDelegate {
                id: layoutRow

                required property int index
                required property int rank
                required property int dp
                required property int cp
                required property int ep
                required property bool fits
                required property string timeText
                required property string tokensText
                required property string mfuText
                required property string memoryText
                required property string headroomText
                required property string reason
                required property bool current

                objectName: "rankedRow" + layoutRow.index
                width: rankingList.width
                implicitHeight: 22
                padding: 0
                leftPadding: 6
                highlighted: layoutRow.current
                ToolTip.visible: layoutRow.hovered
                ToolTip.text: layoutRow.fits ? qsTr("%1 headroom per GPU").arg(layoutRow.headroomText) : layoutRow.reason
                onClicked: root.cost.applyRanked(layoutRow.index)

                background: Rectangle {
                    color: layoutRow.current ? Theme.accent : (layoutRow.hovered ? Theme.button : "transparent")
                }

                // The cells are the row's own children: Repeater delegates (with ids) inside a deferred contentItem
                // would make qmllint's deferral warning.
                contentItem: Item {}

                Row {
                    x: layoutRow.leftPadding
                    anchors.verticalCenter: parent.verticalCenter

                    Label {
                        width: root.rankWidth
                        text: layoutRow.fits ? String(layoutRow.rank) : "–"
                        color: layoutRow.current ? Theme.accentText : Theme.mutedText
                        font.pixelSize: Theme.fontSmall
                    }

                    Repeater {
                        model: [layoutRow.dp, layoutRow.cp, layoutRow.ep]

                        delegate: Label {
                            id: sizeCell

                            required property int modelData

                            width: root.sizeWidth
                            text: String(sizeCell.modelData)
                            color: layoutRow.current ? Theme.accentText : Theme.text
                            font.family: Theme.monospace
                            font.pixelSize: Theme.fontSmall
                        }
                    }

                    Repeater {
                        model: layoutRow.fits ? [layoutRow.timeText, layoutRow.tokensText, layoutRow.mfuText,
                                                 layoutRow.memoryText] : []

                        delegate: Label {
                            id: valueCell

                            required property string modelData

                            width: root.timeWidth
                            text: valueCell.modelData
                            color: layoutRow.current ? Theme.accentText : Theme.text
                            font.pixelSize: Theme.fontSmall
                        }
                    }

                    Label {
                        visible: !layoutRow.fits
                        width: rankingList.width - root.rankWidth - 3 * root.sizeWidth - 12
                        text: layoutRow.reason
                        color: layoutRow.current ? Theme.accentText : Theme.error
                        elide: Text.ElideRight
                        font.pixelSize: Theme.fontSmall
                    }
                }
            }
        }
    }
}
