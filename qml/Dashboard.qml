pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope.Style
import MeshScope.Planner
import MeshScope.Live
import MeshScope.Teach

// The window's content: the header with the page tabs and the theme switch, one page per tab, and while a tour
// is open its panel over the page and a frame around the part of the page its step points at. The panel floats
// over the page's right side, or its left side when it would hide most of the step's anchor on the right, so
// the pages keep the window's whole width (nothing reflows when a tour opens). A tour step opens its page; a rank clicked on that page's grid is the learner's answer when the step's
// task wants one.
// A new page is one TabButton, one entry in `pages` and its name in pageIndex.
Page {
    id: root

    required property PlanController controller
    required property Preferences preferences
    required property LiveSession liveSession
    required property TourController tours
    // "planner", "live", "sandbox", "peers" or "tours"
    property string initialPage: "planner"

    // A page's tab from its name (tab order); a tour step's page is one of the first four. -1: none.
    function pageIndex(name: string): int {
        switch (name) {
        case "planner":
            return 0;
        case "live":
            return 1;
        case "sandbox":
            return 2;
        case "peers":
            return 3;
        case "tours":
            return 4;
        }
        return -1;
    }

    // A rank clicked on the grid of `page`: the answer of a step of that page that asks for a rank.
    function rankClicked(page: string, rank: int) {
        if (root.tours.step.active && root.tours.step.page === page)
            root.tours.submitRank(rank);
    }

    // The item whose objectName is `name` under `item` (depth first); null when there is none.
    function findAnchor(item: Item, name: string): Item {
        if (item.objectName === name)
            return item;
        for (let i = 0; i < item.children.length; ++i) {
            const found = root.findAnchor(item.children[i], name);
            if (found !== null)
                return found;
        }
        return null;
    }

    function showStep() {
        if (!root.tours.step.active) {
            highlight.target = null;
            return;
        }
        pageTabs.currentIndex = root.pageIndex(root.tours.step.page);
        highlight.target = root.tours.step.anchor === "" ? null : root.findAnchor(pages, root.tours.step.anchor);
    }

    background: Rectangle {
        color: Theme.window
    }

    header: ToolBar {
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
                currentIndex: Math.max(0, root.pageIndex(root.initialPage))
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

                TabButton {
                    objectName: "sandboxTab"
                    text: qsTr("Sandbox")
                    width: implicitWidth + 24
                }

                TabButton {
                    objectName: "peersTab"
                    text: qsTr("Peers")
                    width: implicitWidth + 24
                }

                TabButton {
                    objectName: "toursTab"
                    text: qsTr("Tours")
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

    Connections {
        target: root.tours

        function onStepOpened() {
            root.showStep();
        }
    }

    Connections {
        target: root.tours.step

        function onChanged() {
            if (!root.tours.step.active)
                highlight.target = null;
        }
    }

    Component.onCompleted: root.showStep()  // a tour opened before the window (--tour)

    Item {
        id: pageArea

        anchors.fill: parent

        StackLayout {
            id: pages

            anchors.fill: parent
            currentIndex: pageTabs.currentIndex

            // StackLayout sizes only its current page; a page never shown would stay 0 x 0 and its margins
            // would make its layouts negative (a polish loop). Every page starts at the stack's size.
            PlannerPage {
                objectName: "plannerPage"
                width: pages.width
                height: pages.height
                controller: root.controller
                onRankClicked: rank => root.rankClicked("planner", rank)
            }

            LivePage {
                objectName: "livePage"
                width: pages.width
                height: pages.height
                session: root.liveSession
                onRankClicked: rank => root.rankClicked("live", rank)
            }

            SandboxPage {
                objectName: "sandboxPage"
                width: pages.width
                height: pages.height
                sandbox: root.tours.sandbox
            }

            PeersPage {
                objectName: "peersPage"
                width: pages.width
                height: pages.height
                peers: root.tours.peers
                onRankClicked: rank => root.rankClicked("peers", rank)
            }

            ToursPage {
                width: pages.width
                height: pages.height
                tours: root.tours
            }
        }

        TourHighlight {
            id: highlight

            objectName: "tourHighlight"
            anchors.fill: parent
        }

        TourPanel {
            id: tourPanel

            // On the right, unless it would hide most of the step's anchor there (the planner's inspector, the
            // Live page's findings): then on the left.
            readonly property bool onLeft: highlight.target !== null
                                           && highlight.overlap(pageArea.width - tourPanel.width, pageArea.width)
                                              > highlight.frameWidth / 2

            objectName: "tourPanel"
            width: 360
            x: tourPanel.onLeft ? 0 : pageArea.width - tourPanel.width
            height: pageArea.height
            visible: root.tours.step.active
            tours: root.tours
        }
    }
}
