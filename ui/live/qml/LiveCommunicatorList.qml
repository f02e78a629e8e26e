pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope.Style
import MeshScope.Live

// meshscope-probe's bandwidth: per dim (the median group's bus bandwidth, with the slowest and fastest) and
// per group. A slow group (a slow_group finding) is marked; a group that never formed shows its state.
LivePanel {
    id: root

    required property CommunicatorsModel model

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: 8
        spacing: 4

        SectionHeader {
            text: qsTr("Bus bandwidth (%1 dims, %2 groups)").arg(root.model.dimCount).arg(root.model.count - root.model.dimCount)
        }

        ListView {
            id: communicatorList

            objectName: "liveCommunicatorList"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            spacing: 2
            model: root.model
            ScrollBar.vertical: ScrollBar {}

            delegate: RowLayout {
                id: row

                required property bool isDim
                required property string label
                required property string busbwText
                required property double minBusbw
                required property double maxBusbw
                required property string state
                required property bool slow
                required property string detail

                width: ListView.view.width
                spacing: 6

                Label {
                    Layout.fillWidth: true
                    text: row.label
                    color: row.slow || (row.state !== "" && row.state !== "formed") ? Theme.error : Theme.text
                    font.bold: row.isDim
                    font.family: Theme.monospace
                    font.pixelSize: Theme.fontSmall
                    elide: Text.ElideRight
                }

                Label {
                    text: row.state !== "" && row.state !== "formed" ? row.state
                                                                       : row.busbwText + (row.slow ? qsTr(" slow") : "")
                    color: row.slow || (row.state !== "" && row.state !== "formed") ? Theme.error : Theme.text
                    font.family: Theme.monospace
                    font.pixelSize: Theme.fontSmall
                }

                Label {
                    Layout.preferredWidth: 130
                    text: row.detail
                    color: Theme.mutedText
                    font.pixelSize: Theme.fontSmall
                    elide: Text.ElideRight
                }
            }
        }
    }
}
