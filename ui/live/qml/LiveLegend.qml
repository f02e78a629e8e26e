pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import MeshScope.Style
import MeshScope.Live

// What the grid's colours and marks mean, in the grid's own colours (one palette: Theme). For a job whose records
// show a hang, the places its ranks stand in (core's words) and the root cause's ring, each a button: a click keeps
// that place's ranks (the place filter: the list keeps them, the grid fades the rest), a second click any place; the
// states only of ranks that have no position.
Flow {
    id: root

    required property LiveSession session
    required property LiveGridItem grid
    readonly property bool postMortem: root.session.view.hang.active

    spacing: 14

    Repeater {
        objectName: "legendPlaces"
        model: root.postMortem ? root.session.view.hang : null

        // An Item around the button: the model's "text" is a required property, and a button has a text of its own.
        delegate: Item {
            id: place

            required property string standing
            required property string dim
            required property string text
            required property int ranks

            implicitWidth: placeButton.implicitWidth
            implicitHeight: placeButton.implicitHeight

            AbstractButton {
                id: placeButton

                objectName: "placeButton"
                anchors.fill: parent
                checked: root.session.selection.placeFilter === place.text
                padding: 2
                hoverEnabled: true
                Accessible.name: qsTr("%1: %n rank(s)", "", place.ranks).arg(place.text)
                Accessible.checkable: true
                onClicked: root.session.selection.togglePlace(place.text)

                background: Rectangle {
                    radius: 3
                    color: placeButton.checked ? Qt.rgba(Theme.accent.r, Theme.accent.g, Theme.accent.b, 0.14)
                                               : (placeButton.hovered ? Theme.button : "transparent")
                    border.color: placeButton.checked || placeButton.visualFocus ? Theme.accent : "transparent"
                }

                contentItem: Row {
                    spacing: 5

                    Rectangle {
                        width: 14
                        height: 14
                        radius: 3
                        anchors.verticalCenter: parent.verticalCenter
                        color: Theme.colors.standingColor(place.standing, place.dim)
                    }

                    Label {
                        text: qsTr("%1: %2").arg(place.text).arg(place.ranks)
                        color: Theme.text
                        font.pixelSize: Theme.fontSmall
                    }
                }
            }
        }
    }

    AbstractButton {
        id: rootCauseEntry

        objectName: "legendRootCause"
        visible: root.postMortem && root.session.view.hang.rootCause.length > 0
        checked: root.session.selection.placeFilter === "root cause"
        padding: 2
        hoverEnabled: true
        Accessible.name: qsTr("root cause")
        Accessible.checkable: true
        onClicked: root.session.selection.togglePlace("root cause")

        background: Rectangle {
            radius: 3
            color: rootCauseEntry.checked ? Qt.rgba(Theme.accent.r, Theme.accent.g, Theme.accent.b, 0.14)
                                          : (rootCauseEntry.hovered ? Theme.button : "transparent")
            border.color: rootCauseEntry.checked || rootCauseEntry.visualFocus ? Theme.accent : "transparent"
        }

        contentItem: Row {
            spacing: 5

            Rectangle {
                width: 14
                height: 14
                radius: 3
                anchors.verticalCenter: parent.verticalCenter
                color: "transparent"
                border.color: Theme.rootCause
                border.width: 3
            }

            Label {
                text: qsTr("root cause")
                color: Theme.text
                font.pixelSize: Theme.fontSmall
            }
        }
    }

    Repeater {
        model: root.session.view.stateNames

        delegate: Row {
            id: entry

            required property int index  // the RankState value
            required property string modelData

            spacing: 5
            visible: !root.postMortem || root.session.view.unplacedStateCounts[entry.index] > 0

            Rectangle {
                width: 14
                height: 14
                radius: 3
                anchors.verticalCenter: parent.verticalCenter
                color: Theme.colors.stateColors[entry.index]
            }

            Label {
                text: entry.modelData
                color: Theme.text
                font.pixelSize: Theme.fontSmall
            }
        }
    }

    Row {
        spacing: 5

        Canvas {
            id: findingMark

            width: 14
            height: 14
            anchors.verticalCenter: parent.verticalCenter
            onPaint: {
                const ctx = findingMark.getContext("2d")
                ctx.reset()
                ctx.fillStyle = Theme.panelBorder
                ctx.fillRect(0, 0, 14, 14)
                ctx.fillStyle = Theme.finding
                ctx.beginPath()
                ctx.moveTo(14, 0)
                ctx.lineTo(7, 0)
                ctx.lineTo(14, 7)
                ctx.closePath()
                ctx.fill()
            }

            Connections {
                target: root.grid

                function onDarkChanged() {
                    findingMark.requestPaint()
                }
            }
        }

        Label {
            text: qsTr("named by a finding")
            color: Theme.text
            font.pixelSize: Theme.fontSmall
        }
    }

    Row {
        spacing: 5

        Rectangle {
            width: 14
            height: 14
            radius: 3
            anchors.verticalCenter: parent.verticalCenter
            color: "transparent"
            border.color: Theme.accent
            border.width: 2
        }

        Label {
            text: qsTr("ranks of the selected finding")
            color: Theme.text
            font.pixelSize: Theme.fontSmall
        }
    }
}
