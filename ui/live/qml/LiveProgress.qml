pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope.Style
import MeshScope.Live

// How far the job got: ranks ready out of its world, ranks by state, and how many ranks are in each phase. For a
// job whose records show a hang, a post-mortem instead: core's sentence, and where the ranks stand, place by place,
// in the grid's colours (the job summary's "hang": session.view.hang).
LivePanel {
    id: root

    required property LiveSession session
    required property LiveGridItem grid
    readonly property bool postMortem: root.session.view.hang.active

    implicitHeight: column.implicitHeight + 16

    ColumnLayout {
        id: column

        anchors.fill: parent
        anchors.margins: 8
        spacing: 6

        SectionHeader {
            text: root.postMortem ? qsTr("Where the ranks stand") : qsTr("Progress")
        }

        Label {
            visible: root.session.view.topologyText !== ""
            text: root.session.view.topologyText + qsTr(" · world %1").arg(root.session.view.worldSize)
            color: Theme.mutedText
            font.pixelSize: Theme.fontSmall
        }

        Label {
            objectName: "hangText"
            Layout.fillWidth: true
            visible: root.postMortem
            text: root.session.view.hang.text
            color: Theme.text
            wrapMode: Text.WordWrap
            textFormat: Text.PlainText
        }

        // In a Column, not the layout: Qt 6.4's layouts crash on Repeater items destroyed by a model reset.
        Column {
            id: places

            Layout.fillWidth: true
            visible: root.postMortem
            spacing: 4

            Repeater {
                objectName: "hangPlaces"
                model: root.session.view.hang

                // A button: a click keeps that place's ranks (as the legend's entry does), a second click any place.
                // An Item around it: the model's "text" is a required property, and a button has a text of its own.
                delegate: Item {
                    id: place

                    required property string standing
                    required property string dim
                    required property string text
                    required property int ranks

                    width: places.width
                    implicitHeight: placeButton.implicitHeight

                    AbstractButton {
                        id: placeButton

                        objectName: "placeButton"
                        anchors.fill: parent
                        padding: 2
                        hoverEnabled: true
                        checked: root.session.selection.placeFilter === place.text
                        Accessible.name: qsTr("%1: %n rank(s)", "", place.ranks).arg(place.text)
                        Accessible.checkable: true
                        onClicked: root.session.selection.togglePlace(place.text)

                        background: Rectangle {
                            radius: 3
                            color: placeButton.checked ? Qt.rgba(Theme.accent.r, Theme.accent.g, Theme.accent.b, 0.14)
                                                       : (placeButton.hovered ? Theme.button : "transparent")
                            border.color: placeButton.checked || placeButton.visualFocus ? Theme.accent : "transparent"
                        }

                        contentItem: RowLayout {
                            spacing: 6

                            Rectangle {
                                objectName: "placeSwatch"
                                Layout.preferredWidth: 12
                                Layout.preferredHeight: 12
                                radius: 2
                                color: Theme.colors.standingColor(place.standing, place.dim)
                            }

                            Label {
                                objectName: "placeText"
                                Layout.fillWidth: true
                                text: place.text
                                color: Theme.text
                                font.pixelSize: Theme.fontSmall
                                elide: Text.ElideRight
                            }

                            Label {
                                objectName: "placeCount"
                                text: place.ranks
                                color: Theme.text
                                font.pixelSize: Theme.fontSmall
                            }
                        }
                    }
                }
            }
        }

        ProgressBar {
            id: readyBar

            objectName: "readyBar"
            visible: !root.postMortem
            Layout.fillWidth: true
            from: 0
            to: Math.max(1, root.session.view.worldSize)
            value: root.session.view.readyCount
        }

        Label {
            objectName: "progressLabel"
            visible: !root.postMortem
            text: root.session.view.progressText
            color: Theme.text
        }

        Flow {
            objectName: "stateCounts"
            visible: !root.postMortem
            Layout.fillWidth: true
            spacing: 8

            Repeater {
                model: root.session.view.stateNames

                delegate: Row {
                    id: stateCount

                    required property int index
                    required property string modelData

                    spacing: 4
                    visible: root.session.view.stateCounts[stateCount.index] > 0

                    Rectangle {
                        width: 10
                        height: 10
                        radius: 2
                        anchors.verticalCenter: parent.verticalCenter
                        color: Theme.colors.stateColors[stateCount.index]
                    }

                    Label {
                        text: qsTr("%1 %2").arg(root.session.view.stateCounts[stateCount.index]).arg(stateCount.modelData)
                        color: Theme.text
                        font.pixelSize: Theme.fontSmall
                    }
                }
            }
        }

        Label {
            objectName: "phaseHeading"
            visible: !root.postMortem
            text: qsTr("Ranks by phase")
            color: Theme.mutedText
            font.pixelSize: Theme.fontSmall
            Layout.topMargin: 4
        }

        Repeater {
            objectName: "phaseHistogram"
            model: root.session.view.phaseHistogram

            delegate: RowLayout {
                id: bar

                required property string label
                required property int count
                required property double fraction

                visible: !root.postMortem
                Layout.fillWidth: true
                spacing: 6

                Label {
                    Layout.preferredWidth: 96
                    text: bar.label
                    color: bar.count > 0 ? Theme.text : Theme.mutedText
                    font.pixelSize: Theme.fontSmall
                    horizontalAlignment: Text.AlignRight
                }

                Item {
                    Layout.fillWidth: true
                    implicitHeight: 12

                    Rectangle {
                        width: Math.max(bar.count > 0 ? 2 : 0, parent.width * bar.fraction)
                        height: parent.height
                        radius: 2
                        color: Theme.accent
                        opacity: 0.75
                    }
                }

                Label {
                    Layout.preferredWidth: 34
                    text: bar.count
                    color: bar.count > 0 ? Theme.text : Theme.mutedText
                    font.pixelSize: Theme.fontSmall
                }
            }
        }
    }
}
