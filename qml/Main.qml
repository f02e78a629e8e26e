pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope
import MeshScope.Planner
import MeshScope.Live

// The dashboard window: a header with the page tabs and the theme switch, one page per tab. The Live page
// of later issues is one more TabButton and one more page in `pages`.
ApplicationWindow {
    id: root

    required property PlanController controller
    required property Preferences preferences
    // Live mode: the app passes the session it connected (embedded demo or --connect); without one the
    // Live page shows an idle session. initialPage: "planner" or "live" (--page).
    property LiveSession liveSession: idleLiveSession
    property string initialPage: "planner"

    width: 1440
    height: 900
    minimumWidth: 1000
    minimumHeight: 640
    visible: true
    title: qsTr("MeshScope")
    color: Theme.window

    palette.window: Theme.window
    palette.windowText: Theme.text
    palette.base: Theme.panel
    palette.alternateBase: Theme.window
    palette.text: Theme.text
    palette.button: Theme.button
    palette.buttonText: Theme.text
    palette.highlight: Theme.accent
    palette.highlightedText: Theme.accentText
    palette.placeholderText: Theme.mutedText
    palette.mid: Theme.panelBorder
    palette.dark: Theme.panelBorder
    palette.light: Theme.panel
    palette.midlight: Theme.panel
    palette.toolTipBase: Theme.panel
    palette.toolTipText: Theme.text

    Binding {
        target: Theme
        property: "dark"
        value: root.preferences.darkTheme
    }

    header: ToolBar {
        id: toolBar

        palette.button: Theme.panel
        palette.window: Theme.panel

        RowLayout {
            anchors.fill: parent
            anchors.leftMargin: 12
            anchors.rightMargin: 12
            spacing: 16

            Label {
                text: qsTr("MeshScope")
                font.pixelSize: 17
                font.bold: true
                color: Theme.text
            }

            TabBar {
                id: pageTabs

                objectName: "pageTabs"
                currentIndex: root.initialPage === "live" ? 1 : 0
                Layout.alignment: Qt.AlignBottom

                TabButton {
                    text: qsTr("Planner")
                    width: implicitWidth + 24
                }

                TabButton {
                    objectName: "liveTab"
                    text: qsTr("Live")
                    width: implicitWidth + 24
                }
            }

            Item {
                Layout.fillWidth: true
            }

            Switch {
                id: darkSwitch

                objectName: "darkSwitch"
                text: qsTr("Dark")
                checked: root.preferences.darkTheme
                onToggled: root.preferences.darkTheme = darkSwitch.checked
            }
        }
    }

    StackLayout {
        id: pages

        anchors.fill: parent
        currentIndex: pageTabs.currentIndex

        // StackLayout sizes only its current page; a page never shown would stay 0 x 0 and its margins
        // would make its layouts negative (a polish loop). Every page starts at the stack's size.
        PlannerPage {
            width: pages.width
            height: pages.height
            controller: root.controller
        }

        LivePage {
            width: pages.width
            height: pages.height
            session: root.liveSession
        }
    }

    LiveSession {
        id: idleLiveSession
    }
}
