pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope.Style

// A labelled integer input. Any integer may be typed (the core judges it); `edited` reports each change.
RowLayout {
    id: root

    required property string label
    required property int value
    property string hint: ""
    property bool invalid: false
    property alias input: field

    signal edited(int value)

    spacing: Theme.spacing

    Label {
        Layout.preferredWidth: 112
        text: root.label
        color: Theme.text
        font.pixelSize: Theme.fontNormal
    }

    TextField {
        id: field

        Layout.fillWidth: true
        text: String(root.value)
        placeholderText: root.hint
        selectByMouse: true
        inputMethodHints: Qt.ImhFormattedNumbersOnly
        validator: IntValidator {
            bottom: -999999
            top: 99999999
        }
        color: root.invalid ? Theme.error : Theme.text
        Accessible.name: root.label
        onTextEdited: {
            if (field.acceptableInput)
                root.edited(Number(field.text));
        }

        background: Rectangle {
            implicitHeight: 28
            radius: 3
            color: Theme.panel
            border.width: root.invalid || field.activeFocus ? 2 : 1
            border.color: root.invalid ? Theme.error : (field.activeFocus ? Theme.accent : Theme.panelBorder)
        }
    }
}
