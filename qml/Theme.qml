pragma Singleton

import QtQuick

// Colours and sizes of the window, light and dark. The grid's own colours live in C++ (GridPalette) so
// that the PNG and SVG exports match the screen; `dark` is set from the application's Preferences.
QtObject {
    property bool dark: false

    readonly property color window: dark ? "#1b1c1f" : "#f3f4f6"
    readonly property color panel: dark ? "#25272b" : "#ffffff"
    readonly property color panelBorder: dark ? "#3a3d42" : "#d9dce1"
    readonly property color gridBackground: dark ? "#1e1f22" : "#fafafa"
    readonly property color text: dark ? "#eceff1" : "#1f2328"
    readonly property color mutedText: dark ? "#a9b1ba" : "#59636e"
    readonly property color accent: dark ? "#6cb6ff" : "#0969da"
    readonly property color accentText: dark ? "#0d1117" : "#ffffff"
    readonly property color error: dark ? "#ff7b72" : "#cf222e"
    readonly property color errorBackground: dark ? "#3d1f20" : "#ffebe9"
    readonly property color warning: dark ? "#e3b341" : "#9a6700"
    readonly property color warningBackground: dark ? "#3a2e12" : "#fff8c5"
    readonly property color button: dark ? "#2f3237" : "#f6f8fa"
    readonly property color selection: dark ? "#fafafa" : "#212121"  // GridPalette::selection_fill

    readonly property int spacing: 8
    readonly property int panelWidth: 310
    readonly property int fontSmall: 11
    readonly property int fontNormal: 13
    readonly property int fontTitle: 15
    readonly property string monospace: "DejaVu Sans Mono"
}
