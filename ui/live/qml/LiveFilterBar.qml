pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope.Style
import MeshScope.Live

// Filters by state, host and, for a job whose records show a hang, the place its ranks stand in (the summary's places
// and the root cause): the rank list keeps the ranks that match, the grid fades the others.
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
        Layout.preferredWidth: 130
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
        Layout.preferredWidth: 140
        model: [qsTr("any host")].concat(root.session.view.hosts)
        currentIndex: root.session.selection.hostFilter === ""
                      ? 0 : root.session.view.hosts.indexOf(root.session.selection.hostFilter) + 1
        onActivated: index => root.session.selection.hostFilter = index === 0 ? "" : root.session.view.hosts[index - 1]
    }

    Label {
        visible: placeBox.visible
        text: qsTr("Place")
        color: Theme.text
    }

    ComboBox {
        id: placeBox

        objectName: "placeFilter"
        visible: root.session.view.filteredRanks.placeChoices.length > 0
        // Wide enough for core's longest words where the bar has room ("waiting in efsdp seq 4 (all_reduce)"),
        // never wider than the bar leaves: the side panels keep their width.
        Layout.fillWidth: true
        Layout.minimumWidth: 150
        Layout.preferredWidth: 150
        Layout.maximumWidth: 260
        model: [qsTr("any place")].concat(root.session.view.filteredRanks.placeChoices)
        currentIndex: root.session.view.filteredRanks.placeChoices.indexOf(root.session.selection.placeFilter) + 1
        onActivated: index => root.session.selection.placeFilter = index === 0 ? "" : root.session.view.filteredRanks.placeChoices[index - 1]
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

    // What is left of the bar, right-aligned: the filters never give way to it.
    Label {
        text: root.grid.axesText
        color: Theme.mutedText
        font.pixelSize: Theme.fontSmall
        elide: Text.ElideLeft
        horizontalAlignment: Text.AlignRight
        Layout.fillWidth: true
        Layout.preferredWidth: 0
    }
}
