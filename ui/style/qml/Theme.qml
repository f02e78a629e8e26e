pragma Singleton

import QtQuick
import MeshScope.Style

// Colours and sizes of the window, light and dark. Every colour comes from the one palette table in C++
// (core/include/meshscope/monitor/palette.h, as MeshPalette), which also colours the grids' painters, their PNG and SVG
// exports and the web page's CSS; `dark` is set from the application's Preferences.
QtObject {
    id: theme

    property bool dark: false
    // the whole scheme; rank states: theme.colors.stateColors[RankState.Ready]
    readonly property PaletteColors colors: theme.dark ? MeshPalette.dark : MeshPalette.light

    readonly property color window: theme.colors.window
    readonly property color panel: theme.colors.panel
    readonly property color panelBorder: theme.colors.panelBorder
    readonly property color gridBackground: theme.colors.gridBackground
    readonly property color text: theme.colors.text
    readonly property color mutedText: theme.colors.mutedText
    readonly property color accent: theme.colors.accent
    readonly property color accentText: theme.colors.accentText
    readonly property color error: theme.colors.error
    readonly property color errorBackground: theme.colors.errorBackground
    readonly property color warning: theme.colors.warning
    readonly property color warningBackground: theme.colors.warningBackground
    readonly property color button: theme.colors.button
    readonly property color selection: theme.colors.selection  // the planner's selected cell
    readonly property color finding: theme.colors.finding      // the Live grid's mark on ranks a finding names
    // the Cost panel's communication bars; a memory part's colour: theme.colors.memoryColors[part]
    readonly property color commIntraNode: theme.colors.commIntraNode
    readonly property color commInterNode: theme.colors.commInterNode
    // the teaching mode: the frame around a tour step's anchor, a right answer
    readonly property color tourHighlight: theme.colors.tourHighlight
    readonly property color success: theme.colors.success
    readonly property color successBackground: theme.colors.successBackground
    // the hang map: the ring around a root cause's ranks; a standing's colour: theme.colors.standingColor(standing, dim)
    readonly property color rootCause: theme.colors.rootCause

    readonly property int spacing: 8
    readonly property int panelWidth: 310
    readonly property int fontSmall: 11
    readonly property int fontNormal: 13
    readonly property int fontTitle: 15
    readonly property string monospace: "DejaVu Sans Mono"
}
