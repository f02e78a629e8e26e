import QtQuick
import QtQuick.Controls
import MeshScope.Style

// The title of one panel section.
Label {
    font.pixelSize: Theme.fontTitle
    font.bold: true
    color: Theme.text
}
