pragma ComponentBehavior: Bound

import QtQuick
import QtTest
import MeshScope
import MeshScope.Live
import MeshScope.LiveTest

// The Live page against a real collector on loopback (LiveTestCollector), fed by posting the 16-rank job of
// live_test_support.h (topology_mismatch [5], rank_error [9], missing_rank [15]) or by the built-in demo.
TestCase {
    id: testCase

    name: "LivePage"
    width: 1440
    height: 900
    when: windowShown
    visible: true  // TestCase is invisible by default: mouse events would reach nothing

    // The collector the latest createPage() started, for tests that post more events.
    property LiveTestCollector collector: null
    // Sessions outlive their test's page (temporary objects go in creation order, and a page whose session
    // went first would read null): they are destroyed at the start of the next test.
    property list<QtObject> oldSessions

    function init() {
        for (let i = 0; i < testCase.oldSessions.length; ++i)
            testCase.oldSessions[i].destroy();
        testCase.oldSessions = [];
    }

    function cleanupTestCase() {
        init();
    }

    function createSession(url: string): LiveSession {
        const session = sessionComponent.createObject(testCase);
        testCase.watch(session, url);
        testCase.oldSessions.push(session);
        return session;
    }

    function watch(session: LiveSession, url: string) {
        session.inputs.url = url;
    }

    Component {
        id: collectorComponent

        LiveTestCollector {}
    }

    Component {
        id: sessionComponent

        LiveSession {
            inputs.settleMs: 300
        }
    }

    Component {
        id: pageComponent

        LivePage {
            width: testCase.width
            height: testCase.height
        }
    }

    function createPage(): LivePage {
        const collector = createTemporaryObject(collectorComponent, testCase);
        verify(collector.start(0.5));
        compare(collector.postStandardJob(collector.standardJob), 200);
        testCase.collector = collector;
        const session = createSession(collector.url);
        const page = createTemporaryObject(pageComponent, testCase, {session: session});
        verify(page !== null);
        tryVerify(() => session.view.settled && session.view.findings.count === 3, 10000, "the job's three findings");
        waitForRendering(page);
        return page;
    }

    // How far two colours are apart, 0..3.
    function distance(a: color, b: color): real {
        return Math.abs(a.r - b.r) + Math.abs(a.g - b.g) + Math.abs(a.b - b.b);
    }

    // The colour at a point of the grid. grabImage() on Qt 6.4 offscreen crops the window from its origin,
    // so grab the page (which sits there) and map grid coordinates into it.
    function gridPixel(page: LivePage, grid: LiveGridItem, image: var, x: real, y: real): color {
        const p = grid.mapToItem(page, x, y);
        return image.pixel(Math.floor(p.x), Math.floor(p.y));
    }

    function findingRow(page: LivePage, kind: string): int {
        for (let i = 0; i < page.session.view.findings.count; ++i)
            if (page.session.view.findings.kindAt(i) === kind)
                return i;
        return -1;
    }

    function test_progress_shows_ready_over_world() {
        const page = createPage();
        const bar = findChild(page, "readyBar");
        compare(bar.to, 16);
        compare(bar.value, 14);
        compare(findChild(page, "progressLabel").text, "14 / 16 ready · 15 seen");
        compare(page.session.view.jobs.count, 1);
        compare(findChild(page, "liveJobList").count, 1);
    }

    // A finding put in by meshscope import shows the collector's "From: ..." line under it, as text; the hook's
    // findings of the same job show none.
    function test_imported_finding_names_its_sources() {
        const page = createPage();
        const records = {format: "meshscope.records/1", findings: [{kind: "collective_stuck", ranks: [6],
            message: "the ep group 1 [4, 5, 6, 7] is stuck at seq 2 (all_reduce): rank 6 never entered", fix: "look",
            sources: ["fr/nccl_trace_rank_4.json", "fr/nccl_trace_rank_6.json", "<b>x</b>.log:3", "node1.41006:4"]}]};
        compare(testCase.collector.postRecords(testCase.collector.standardJob, JSON.stringify(records)), 200);
        tryVerify(() => page.session.view.findings.count === 4, 10000, "the three hook findings and the import's");
        const list = findChild(page, "liveFindingList");
        const row = findingRow(page, "collective_stuck");
        verify(row >= 0);
        list.positionViewAtIndex(row, ListView.Contain);
        const item = list.itemAtIndex(row);
        verify(item !== null);
        const from = findChild(item, "findingFrom");
        verify(from.visible);
        compare(from.text, "From: fr/nccl_trace_rank_4.json, fr/nccl_trace_rank_6.json, <b>x</b>.log:3 and 1 more");
        compare(from.textFormat, Text.PlainText);
        const hooked = list.itemAtIndex(findingRow(page, "rank_error"));
        verify(!findChild(hooked, "findingFrom").visible);
    }

    // A job the collector reads from NCCL RAS itself (meshscope serve --ras) is live with no hook: each of RAS's
    // three faults (tests/records/fixtures/ras/README.md) shows "From: " and the RAS address; when the job's RAS
    // goes away, the one finding that says so replaces them.
    function test_ras_polled_job_is_live() {
        const collector = createTemporaryObject(collectorComponent, testCase);
        verify(collector.start(0.5));
        const where = collector.pollFakeRas("rasjob");
        verify(where !== "");
        const session = createSession(collector.url);
        const page = createTemporaryObject(pageComponent, testCase, {session: session});
        tryVerify(() => session.view.findings.count === 4, 10000, "RAS's three findings and their verdict");
        const list = findChild(page, "liveFindingList");
        const kinds = [];
        compare(session.view.findings.kindAt(0), "verdict");  // the dead rank 6, first
        for (let row = 0; row < 4; ++row) {
            kinds.push(session.view.findings.kindAt(row));
            list.positionViewAtIndex(row, ListView.Contain);
            const item = list.itemAtIndex(row);
            verify(item !== null);
            compare(findChild(item, "findingFrom").text, "From: " + where);
        }
        compare(kinds.sort(), ["collective_stuck", "communicator_not_formed", "peer_unreachable", "verdict"]);
        collector.stopFakeRas();
        tryVerify(() => session.view.findings.count === 1, 10000, "the finding that RAS cannot be read");
        compare(session.view.findings.kindAt(0), "peer_unreachable");
        list.positionViewAtIndex(0, ListView.Contain);
        compare(findChild(list.itemAtIndex(0), "findingFrom").text, "From: " + where);
    }

    function test_selecting_a_finding_highlights_its_ranks_data() {
        return [
            {tag: "topology_mismatch", kind: "topology_mismatch", ranks: [5]},
            {tag: "rank_error", kind: "rank_error", ranks: [9]},
            {tag: "missing_rank", kind: "missing_rank", ranks: [15]},
        ];
    }

    function test_selecting_a_finding_highlights_its_ranks(data) {
        const page = createPage();
        const session = page.session;
        const list = findChild(page, "liveFindingList");
        const grid = findChild(page, "liveGrid");
        const row = findingRow(page, data.kind);
        verify(row >= 0);
        list.positionViewAtIndex(row, ListView.Contain);
        const item = list.itemAtIndex(row);
        verify(item !== null);
        mouseClick(item);
        compare(session.selection.selectedFinding, row);
        compare(session.selection.highlightedRanks, data.ranks);
        waitForRendering(grid);
        const image = grabImage(page);
        for (let rank = 0; rank < 16; ++rank) {
            const cell = grid.cellRect(rank);
            // Just outside the cell's left edge: the highlight outline, or the grid's background.
            const edge = gridPixel(page, grid, image, cell.x - 1.5, cell.y + cell.height / 2);
            compare(distance(edge, Qt.rgba(0x09 / 255, 0x69 / 255, 0xda / 255, 1)) < 0.35, data.ranks.includes(rank),  // the light theme's accent
                    "outline of rank " + rank);
        }
        // Ranks outside the finding fade: a ready rank's cell is no longer its full state colour.
        const other = data.ranks.includes(0) ? 1 : 0;
        const cell = grid.cellRect(other);
        const fill = gridPixel(page, grid, image, cell.x + 4, cell.y + cell.height - 4);
        verify(distance(fill, Qt.rgba(0x5c / 255, 0xb1 / 255, 0x76 / 255, 1)) > 0.2, "rank " + other + " fades");  // ready, light theme
        // Clicking the finding again clears the highlight.
        mouseClick(item);
        compare(session.selection.selectedFinding, -1);
        compare(session.selection.highlightedRanks, []);
    }

    function test_filters_data() {
        return [
            {tag: "failed", state: RankState.Failed, name: "failed", host: "", ranks: [9]},
            {tag: "pending", state: RankState.Pending, name: "pending", host: "", ranks: [15]},
            {tag: "ready on node-1", state: RankState.Ready, name: "ready", host: "node-1", ranks: [8, 10, 11, 12, 13, 14]},
        ];
    }

    function test_filters(data) {
        const page = createPage();
        const session = page.session;
        const stateBox = findChild(page, "stateFilter");
        const hostBox = findChild(page, "hostFilter");
        stateBox.activated(session.view.stateNames.indexOf(data.name) + 1);  // entry 0 is "any state"
        hostBox.activated(data.host === "" ? 0 : session.view.hosts.indexOf(data.host) + 1);
        compare(session.selection.stateFilter, data.state);
        compare(session.view.stateNames[data.state], data.name);
        compare(session.selection.hostFilter, data.host);
        compare(stateBox.currentText, data.name);
        const list = findChild(page, "liveRankList");
        compare(list.count, data.ranks.length);
        compare(session.view.filteredRanks.count, data.ranks.length);
        // The grid fades what the filter hides.
        const grid = findChild(page, "liveGrid");
        waitForRendering(grid);
        const image = grabImage(page);
        const hidden = data.ranks.includes(0) ? 1 : 0;
        const cell = grid.cellRect(hidden);
        const fill = gridPixel(page, grid, image, cell.x + 4, cell.y + cell.height - 4);
        const stateColor = Theme.colors.stateColors[session.view.stateOf(hidden)];
        verify(distance(fill, stateColor) > 0.3, "rank " + hidden + " fades");
        mouseClick(findChild(page, "clearFilters"));
        compare(session.view.filteredRanks.count, 16);
        compare(stateBox.currentText, "any state");
        compare(session.selection.stateFilter, -1);
    }

    // The rank list: one kind of fact per column, a host under "host" and findings under "findings" on every row.
    function test_rank_list_columns_data() {
        return [
            {tag: "ready rank", rank: 2, host: "node-0", hasFindings: false},
            {tag: "rank with an error", rank: 9, host: "node-1", hasFindings: true},
            {tag: "missing rank (no host)", rank: 15, host: "", hasFindings: true},
        ];
    }

    function test_rank_list_columns(data) {
        const page = createPage();
        const list = findChild(page, "liveRankList");
        compare(list.count, 16);
        list.positionViewAtIndex(data.rank, ListView.Contain);
        let row = null;
        tryVerify(() => {
            row = list.itemAtIndex(data.rank);
            return row !== null && row.rank === data.rank;
        }, 5000, "rank " + data.rank + "'s row");
        compare(findChild(row, "rankHost").text, data.host);
        compare(findChild(row, "rankFindings").text !== "", data.hasFindings);
    }

    function test_clicking_a_rank_shows_its_timeline() {
        const page = createPage();
        const grid = findChild(page, "liveGrid");
        const cell = grid.cellRect(9);
        mouseClick(grid, cell.x + cell.width / 2, cell.y + cell.height / 2);
        compare(page.session.selection.selectedRank, 9);
        const timeline = findChild(page, "liveTimeline");
        compare(timeline.count, 4);
        verify(findChild(page, "selectedRankText").text.indexOf("RuntimeError") >= 0);
        compare(grid.rankAt(cell.x - 200000, cell.y), -1);
    }

    function test_late_rank_updates_the_page() {
        const page = createPage();
        const session = page.session;
        // Rank 15 finally reports ready.
        const events = ["launch", "ready"].map(phase => JSON.stringify({
            job: "job-16", rank: 15, world_size: 16, phase: phase, status: "done", ts: 2000, host: "node-1",
            local_rank: 7, topology: {dp: 8, cp: 2, ep: 2}
        })).join("\n");
        compare(testCase.collector.post(events), 200);
        tryCompare(session.view, "readyCount", 15, 5000);
        tryVerify(() => findingRow(page, "missing_rank") < 0, 5000);
        compare(findChild(page, "progressLabel").text, "15 / 16 ready · 16 seen");
    }

    function test_the_builtin_demo() {
        const collector = createTemporaryObject(collectorComponent, testCase);
        verify(collector.startDemo());
        const session = createSession(collector.url);
        const page = createTemporaryObject(pageComponent, testCase, {session: session});
        tryCompare(session.view, "worldSize", 64, 10000);
        tryVerify(() => findingRow(page, "missing_rank") >= 0 && findingRow(page, "straggler") >= 0
                  && findingRow(page, "topology_mismatch") >= 0, 20000, "the demo's three faults");
        compare(session.view.topologyText, "dp 32 · cp 2 · ep 8");
        compare(session.view.hosts.length, 8);
        tryCompare(session.view, "seenCount", 63, 10000);
    }
}
