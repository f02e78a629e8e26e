pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope.Style
import MeshScope.Planner

// The core's exact message for the typed values, and the values that would fix them as buttons. The grid
// keeps the last valid plan meanwhile, and says so.
Frame {
    id: root

    required property PlanForm form
    required property PlanView view

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
            text: root.form.errorText
            color: Theme.error
            font.bold: true
            wrapMode: Text.Wrap
        }

        Label {
            objectName: "suggestionTitle"
            Layout.fillWidth: true
            visible: root.form.suggestions.count > 0
            text: root.form.suggestionTitle
            color: Theme.text
            font.pixelSize: Theme.fontSmall
        }

        Flow {
            Layout.fillWidth: true
            spacing: 4
            visible: root.form.suggestions.count > 0

            Repeater {
                id: suggestionRepeater

                objectName: "suggestions"
                model: root.form.suggestions

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
                    onClicked: root.form.applySuggestion(suggestion.index)
                }
            }
        }

        Label {
            Layout.fillWidth: true
            text: qsTr("The grid still shows the last valid plan, %1.").arg(root.view.topologyText)
            color: Theme.mutedText
            font.pixelSize: Theme.fontSmall
            wrapMode: Text.Wrap
        }
    }
}
