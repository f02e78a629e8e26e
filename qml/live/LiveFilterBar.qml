pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope
import MeshScope.Live

// Filters by state and host: the rank list keeps the ranks that match, the grid fades the others.
RowLayout {
    id: root

    required property LiveSession session
    required property LiveGridItem grid

    spacing: Theme.spacing

    Label {
        text: qsTr("State")
        color: Theme.text
    }

    ComboBox {
        id: stateBox

        objectName: "stateFilter"
        Layout.preferredWidth: 150
        model: [qsTr("any state")].concat(root.session.view.stateNames)
        // stateNames[i] is RankState value i; the filter's -1 is "any state", the box's first entry
        currentIndex: root.session.selection.stateFilter + 1
        onActivated: index => root.session.selection.stateFilter = index - 1
    }

    Label {
        text: qsTr("Host")
        color: Theme.text
    }

    ComboBox {
        id: hostBox

        objectName: "hostFilter"
        Layout.preferredWidth: 170
        model: [qsTr("any host")].concat(root.session.view.hosts)
        currentIndex: root.session.selection.hostFilter === ""
                      ? 0 : root.session.view.hosts.indexOf(root.session.selection.hostFilter) + 1
        onActivated: index => root.session.selection.hostFilter = index === 0 ? "" : root.session.view.hosts[index - 1]
    }

    Button {
        objectName: "clearFilters"
        text: qsTr("Clear")
        enabled: root.session.view.filteredRanks.active || root.session.selection.selectedFinding >= 0
        onClicked: {
            root.session.selection.clearFilters()
            root.session.selection.selectedFinding = -1
        }
    }

    Item {
        Layout.fillWidth: true
    }

    Label {
        text: root.grid.axesText
        color: Theme.mutedText
        font.pixelSize: Theme.fontSmall
        elide: Text.ElideLeft
        Layout.maximumWidth: 320
    }
}
