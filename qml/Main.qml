pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import MeshScope.Style
import MeshScope.Planner
import MeshScope.Live
import MeshScope.Teach

// The dashboard window: the Dashboard (tabs, pages, the tour panel) and the window's colours.
ApplicationWindow {
    id: root

    required property PlanController controller
    required property Preferences preferences
    // Live mode: the app passes the session it connected (embedded demo or --connect); without one the
    // Live page shows an idle session. The tours the same: the app's, or one of the window's own.
    // initialPage: "planner", "live", "sandbox", "peers" or "tours" (--page, --tour).
    property LiveSession liveSession: idleLiveSession
    property TourController tours: ownTours
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

    Dashboard {
        anchors.fill: parent
        controller: root.controller
        preferences: root.preferences
        liveSession: root.liveSession
        tours: root.tours
        initialPage: root.initialPage
    }

    LiveSession {
        id: idleLiveSession
    }

    TourController {
        id: ownTours

        planner: root.controller
        liveSession: root.liveSession
    }
}
