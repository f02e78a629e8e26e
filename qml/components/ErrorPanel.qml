pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope
import MeshScope.Planner

// The core's exact message for the typed values, and the values that would fix them as buttons. The grid
// keeps the last valid plan meanwhile, and says so.
Frame {
    id: root

    required property PlanController controller

    background: Rectangle {
        color: Theme.errorBackground
        border.color: Theme.error
        radius: 4
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 6

        Label {
            objectName: "errorText"
            Layout.fillWidth: true
            text: root.controller.errorText
            color: Theme.error
            font.bold: true
            wrapMode: Text.Wrap
        }

        Label {
            objectName: "suggestionTitle"
            Layout.fillWidth: true
            visible: root.controller.suggestions.count > 0
            text: root.controller.suggestionTitle
            color: Theme.text
            font.pixelSize: Theme.fontSmall
        }

        Flow {
            Layout.fillWidth: true
            spacing: 4
            visible: root.controller.suggestions.count > 0

            Repeater {
                id: suggestionRepeater

                objectName: "suggestions"
                model: root.controller.suggestions

                delegate: Button {
                    id: suggestion

                    required property int index
                    required property string label
                    required property string field

                    objectName: "suggestion_" + suggestion.label
                    text: suggestion.label
                    implicitWidth: Math.max(36, implicitContentWidth + 16)
                    ToolTip.visible: suggestion.hovered
                    ToolTip.text: qsTr("Set %1 to %2").arg(suggestion.field).arg(suggestion.label)
                    onClicked: root.controller.applySuggestion(suggestion.index)
                }
            }
        }

        Label {
            Layout.fillWidth: true
            text: qsTr("The grid still shows the last valid plan, %1.").arg(root.controller.topologyText)
            color: Theme.mutedText
            font.pixelSize: Theme.fontSmall
            wrapMode: Text.Wrap
        }
    }
}
