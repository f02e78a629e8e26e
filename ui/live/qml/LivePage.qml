pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import MeshScope.Style
import MeshScope.Live

// Live mode: the jobs, progress and phases on the left; the rank grid with its filters and legend in the
// middle; the findings and the selected rank's timeline on the right. Everything comes from the LiveSession.
Page {
    id: root

    required property LiveSession session

    // A rank's cell clicked on the grid (a tour's answer; the selection follows the click anyway).
    signal rankClicked(int rank)

    background: Rectangle {
        color: Theme.window
    }

    RowLayout {
        anchors.fill: parent
        anchors.margins: Theme.spacing
        spacing: Theme.spacing

        // The side columns keep their width; the middle one (filter bar, grid, legend) takes what is left.
        ColumnLayout {
            Layout.preferredWidth: Theme.panelWidth
            Layout.minimumWidth: Theme.panelWidth
            Layout.maximumWidth: Theme.panelWidth
            Layout.fillHeight: true
            spacing: Theme.spacing

            LiveJobList {
                Layout.fillWidth: true
                Layout.preferredHeight: Math.min(implicitHeight, 180)
                session: root.session
            }

            LiveProgress {
                objectName: "live.progress"
                Layout.fillWidth: true
                session: root.session
                grid: liveGrid
            }

            LiveRankList {
                Layout.fillWidth: true
                Layout.fillHeight: true
                session: root.session
            }
        }

        ColumnLayout {
            Layout.fillWidth: true
            Layout.fillHeight: true
            spacing: Theme.spacing

            LiveFilterBar {
                Layout.fillWidth: true
                session: root.session
                grid: liveGrid
            }

            Rectangle {
                objectName: "live.grid"
                Layout.fillWidth: true
                Layout.fillHeight: true
                color: Theme.gridBackground
                border.color: Theme.panelBorder
                radius: 4

                LiveGridItem {
                    id: liveGrid

                    objectName: "liveGrid"
                    anchors.fill: parent
                    anchors.margins: 2
                    session: root.session
                    dark: Theme.dark
                    onRankClicked: rank => root.rankClicked(rank)
                }

                Label {
                    anchors.centerIn: parent
                    visible: root.session.view.worldSize === 0
                    width: parent.width * 0.7
                    horizontalAlignment: Text.AlignHCenter
                    wrapMode: Text.WordWrap
                    color: Theme.mutedText
                    text: root.session.inputs.url === ""
                          ? qsTr("No collector. Run `meshscope` for the built-in demo, or `meshscope --connect http://host:7077` to watch `meshscope serve`.")
                          : qsTr("Waiting for a job to report to %1 …").arg(root.session.inputs.url)
                }
            }

            LiveLegend {
                Layout.fillWidth: true
                session: root.session
                grid: liveGrid
            }

            Label {
                objectName: "liveStatusLine"
                Layout.fillWidth: true
                color: root.session.view.connected || root.session.inputs.url === "" ? Theme.mutedText : Theme.error
                font.pixelSize: Theme.fontSmall
                elide: Text.ElideRight
                text: liveGrid.hoverText !== "" ? liveGrid.hoverText + qsTr(" — click for its timeline")
                                                : root.session.view.statusText
            }
        }

        ColumnLayout {
            Layout.preferredWidth: Theme.panelWidth + 50
            Layout.minimumWidth: Theme.panelWidth + 50
            Layout.maximumWidth: Theme.panelWidth + 50
            Layout.fillHeight: true
            spacing: Theme.spacing

            LiveFindingList {
                objectName: "live.findings"
                Layout.fillWidth: true
                Layout.fillHeight: true
                session: root.session
            }

            // meshscope-probe jobs only: bandwidth per dim and per group.
            LiveCommunicatorList {
                Layout.fillWidth: true
                Layout.preferredHeight: 220
                visible: communicators.count > 0
                model: communicators
            }

            CommunicatorsModel {
                id: communicators

                url: root.session.inputs.url
                token: root.session.inputs.token
                job: root.session.inputs.currentJob
            }

            LiveRankPanel {
                objectName: "live.rank"
                Layout.fillWidth: true
                Layout.preferredHeight: 300
                session: root.session
            }
        }
    }
}
