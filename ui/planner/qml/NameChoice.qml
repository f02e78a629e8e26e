pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope.Style

// A labelled choice among names (core's: model presets, hardware, networks); `chosen` reports the name picked.
RowLayout {
    id: root

    required property string label
    required property var names  // a list of strings
    required property string value
    property alias box: box

    signal chosen(string name)

    spacing: Theme.spacing

    Label {
        Layout.preferredWidth: 112
        text: root.label
        color: Theme.text
        font.pixelSize: Theme.fontNormal
    }

    ComboBox {
        id: box

        Layout.fillWidth: true
        model: root.names
        currentIndex: root.names.indexOf(root.value)
        Accessible.name: root.label
        onActivated: index => root.chosen(root.names[index])
    }
}
