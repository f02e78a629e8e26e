pragma ComponentBehavior: Bound

import QtQuick
import QtTest
import MeshScope
import MeshScope.Live
import MeshScope.LiveTest

// The hang map on the Live page: real torch fault jobs (tests/records/fixtures/fr-verdict: Flight Recorder dumps of
// 16 gloo ranks on LlamaFactory's meshes dp 16, ep 4) put into a real collector by `meshscope import --dp 16 --ep 4`,
// as a user does. What is expected comes from the fault each job injected (its facts.json) and from the collector's
// own JSON (GET /api/v1/jobs/{job}); the colours are the light theme's, written out here.
TestCase {
    id: testCase

    name: "LiveHangMap"
    width: 1440
    height: 900
    when: windowShown
    visible: true  // mouse events must reach the page

    // The light theme's colours (core/src/monitor/palette.cpp), copied by hand: the palette is under test.
    readonly property color epColour: "#f57c00"
    readonly property color noRecordColour: "#2d2d2d"
    readonly property color outsideColour: "#b8c7d3"
    readonly property color rootCauseColour: "#d32f2f"
    // The collector the latest createPage() started.
    property LiveTestCollector collector: null
    property list<QtObject> oldSessions

    function init() {
        for (let i = 0; i < testCase.oldSessions.length; ++i)
            testCase.oldSessions[i].destroy();
        testCase.oldSessions = [];
    }

    function cleanupTestCase() {
        init();
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

    // The collector's JSON at `url`, as any client reads it.
    function getJson(url: string): var {
        const answer = {done: false, value: null};
        const request = new XMLHttpRequest();
        request.onreadystatechange = () => {
            if (request.readyState === XMLHttpRequest.DONE) {
                answer.value = request.status === 200 ? JSON.parse(request.responseText) : null;
                answer.done = true;
            }
        };
        request.open("GET", url);
        request.send();
        tryVerify(() => answer.done, 5000, "GET " + url);
        verify(answer.value !== null, "GET " + url);
        return answer.value;
    }

    // A collector with the fixture imported as job `fixture`, and the page watching it once its hang summary and all
    // 16 ranks are in.
    function createPage(fixture: string): LivePage {
        const collector = createTemporaryObject(collectorComponent, testCase);
        verify(collector.start(0.5));
        compare(collector.importFaultJob(fixture, fixture, 16, 4), 0);
        const session = sessionComponent.createObject(testCase);
        testCase.oldSessions.push(session);
        session.inputs.url = collector.url;
        const page = createTemporaryObject(pageComponent, testCase, {session: session});
        verify(page !== null);
        tryVerify(() => session.view.settled && session.view.hang.active && session.view.ranks.count === 16, 10000,
                  "the imported job's hang summary and its 16 ranks");
        testCase.collector = collector;
        return page;
    }

    function distance(a: color, b: color): real {
        return Math.abs(a.r - b.r) + Math.abs(a.g - b.g) + Math.abs(a.b - b.b);
    }

    // The colour at a point of the grid: grab the page (grabImage crops the window from its origin on Qt 6.4
    // offscreen) and map grid coordinates into it.
    function gridPixel(page: LivePage, grid: LiveGridItem, image: var, x: real, y: real): color {
        const p = grid.mapToItem(page, x, y);
        return image.pixel(Math.floor(p.x), Math.floor(p.y));
    }

    function fill(page: LivePage, grid: LiveGridItem, image: var, rank: int): color {
        const cell = grid.cellRect(rank);
        return gridPixel(page, grid, image, cell.x + 4, cell.y + cell.height - 4);
    }

    function ringed(page: LivePage, grid: LiveGridItem, image: var, rank: int): bool {
        const cell = grid.cellRect(rank);
        return distance(gridPixel(page, grid, image, cell.x - 5, cell.y + cell.height / 2), testCase.rootCauseColour) < 0.3;
    }

    // The grid is drawn on the import's plan: dp 16, ep 4, LlamaFactory's expert mesh (an ep group of 4 on a row),
    // not the job's ranks in rows of a node.
    function test_drawn_on_the_imports_plan() {
        const page = createPage("skip");
        const facts = testCase.collector.faultFacts("skip");
        compare(page.session.view.topologyText, "dp %1 · cp %2 · ep %3".arg(facts.dp).arg(facts.cp).arg(facts.ep));
        const grid = findChild(page, "liveGrid");
        verify(grid.axesText.indexOf("ep") >= 0, grid.axesText);
        // ep group g = [4g .. 4g+3]: one row each, the next group below.
        const first = grid.cellRect(0);
        for (let r = 1; r < facts.ep; ++r) {
            compare(grid.cellRect(r).y, first.y, "rank " + r + " beside rank 0");
            verify(grid.cellRect(r).x > grid.cellRect(r - 1).x);
        }
        verify(grid.cellRect(facts.ep).y !== first.y || grid.cellRect(facts.ep).x < grid.cellRect(facts.ep - 1).x,
               "rank " + facts.ep + " starts the next ep group");
    }

    function test_post_mortem_replaces_start_up_words_data() {
        return [{tag: "skip"}, {tag: "die"}, {tag: "host"}];
    }

    // The summary is the collector's words: its sentence as the headline, one legend entry per place with its count;
    // no "0 / 16 ready", "16 pending" or "not seen" any more.
    function test_post_mortem_replaces_start_up_words(data) {
        const page = createPage(data.tag);
        const summary = getJson(page.session.inputs.url + "/api/v1/jobs/" + data.tag);
        verify(summary.hang !== undefined);
        compare(findChild(page, "hangText").text, summary.hang.text);
        verify(findChild(page, "hangText").visible);
        for (const name of ["readyBar", "progressLabel", "stateCounts", "phaseHeading"])
            verify(!findChild(page, name).visible, name + " is hidden");
        const bars = findChild(page, "phaseHistogram");
        for (let i = 0; i < bars.count; ++i)
            verify(!bars.itemAt(i).visible, "phase bar " + i + " is hidden");
        const places = findChild(page, "hangPlaces");
        compare(places.count, summary.hang.places.length);
        for (let i = 0; i < places.count; ++i) {
            const row = places.itemAt(i);
            compare(findChild(row, "placeText").text, summary.hang.places[i].text);
            compare(findChild(row, "placeCount").text, String(summary.hang.places[i].ranks));
            compare(findChild(row, "placeSwatch").color,
                    Theme.colors.standingColor(summary.hang.places[i].standing, summary.hang.places[i].dim ?? ""));
        }
        compare(findChild(page, "legendPlaces").count, summary.hang.places.length);
        // The job list and the rank list say what the records say, not how far start-up got.
        const job = findChild(findChild(page, "liveJobList").itemAtIndex(0), "jobProgress");
        compare(job.text, "post-mortem · 16 ranks");
        const fault = testCase.collector.faultFacts(data.tag).fault;
        const list = findChild(page, "liveRankList");
        list.positionViewAtIndex(fault.rank, ListView.Contain);
        let row = null;
        tryVerify(() => {
            row = list.itemAtIndex(fault.rank);
            return row !== null && row.rank === fault.rank;
        }, 5000, "rank " + fault.rank + "'s row");
        const ranks = getJson(page.session.inputs.url + "/api/v1/jobs/" + data.tag + "/ranks").ranks;
        const standing = ranks[fault.rank].position.standing;
        compare(findChild(row, "rankState").text,
                standing.replace(/_/g, " ") + (standing === "waiting" ? " " + ranks[fault.rank].position.dim : ""));
        compare(findChild(page, "legendRootCause").visible, summary.hang.root_cause.length > 0);
    }

    // skip: the rank that skipped its ep group's all_to_all is ringed as the root cause, the rest of its ep group
    // waits in it (the ep colour); no other rank is ringed.
    function test_skip_colours_and_ring() {
        const page = createPage("skip");
        const fault = testCase.collector.faultFacts("skip").fault;
        compare(fault.dim, "ep");
        const grid = findChild(page, "liveGrid");
        waitForRendering(grid);
        const image = grabImage(page);
        for (let rank = 0; rank < 16; ++rank)
            compare(ringed(page, grid, image, rank), rank === fault.rank, "root-cause ring of rank " + rank);
        for (let rank = 4 * fault.group; rank < 4 * fault.group + 4; ++rank) {
            if (rank === fault.rank)
                continue;
            verify(distance(fill(page, grid, image, rank), testCase.epColour) < 0.1, "rank " + rank + " waits in ep");
        }
        compare(page.session.view.hang.rootCause, [fault.rank]);
    }

    function test_standing_colour_of_the_faulty_rank_data() {
        return [
            {tag: "die", colour: testCase.noRecordColour},
            {tag: "host", colour: testCase.outsideColour},
        ];
    }

    // die: the rank that died before its dump has no record; host: the rank stuck in host code is outside collectives.
    function test_standing_colour_of_the_faulty_rank(data) {
        const page = createPage(data.tag);
        const fault = testCase.collector.faultFacts(data.tag).fault;
        const grid = findChild(page, "liveGrid");
        waitForRendering(grid);
        const image = grabImage(page);
        verify(distance(fill(page, grid, image, fault.rank), data.colour) < 0.1,
               "rank " + fault.rank + " is " + fault.cause + ": " + fill(page, grid, image, fault.rank));
        const ranks = getJson(page.session.inputs.url + "/api/v1/jobs/" + data.tag + "/ranks").ranks;
        compare(ranks[fault.rank].position.standing, fault.cause);
    }

    // A click on a rank shows where it stands and its last collective on each group it called.
    function test_clicking_a_rank_shows_where_it_stands() {
        const page = createPage("skip");
        const fault = testCase.collector.faultFacts("skip").fault;
        const grid = findChild(page, "liveGrid");
        const waiter = 4 * fault.group + (fault.rank === 4 * fault.group ? 1 : 0);  // another rank of its ep group
        const ranks = getJson(page.session.inputs.url + "/api/v1/jobs/skip/ranks").ranks;
        const expected = ranks[waiter].position;
        let cell = grid.cellRect(waiter);
        mouseClick(grid, cell.x + cell.width / 2, cell.y + cell.height / 2);
        compare(page.session.selection.selectedRank, waiter);
        const position = page.session.view.position;
        tryCompare(position, "rank", waiter);
        compare(position.standing, "waiting");
        compare(position.dim, fault.dim);
        compare(position.seq, fault.seq);
        compare(position.op, fault.op);
        compare(position.label, expected.label);
        verify(!position.rootCause);
        compare(findChild(page, "rankPosition").text,
                "waiting · %1 · seq %2 · %3".arg(expected.label).arg(fault.seq).arg(fault.op));
        const calls = findChild(page, "lastCollectives");
        compare(calls.count, expected.last.length);
        verify(calls.count > 0);
        const top = calls.itemAtIndex(0);
        compare(findChild(top, "callText").text, "%1 group %2 · seq %3 · %4".arg(expected.last[0].dim)
                .arg(expected.last[0].group).arg(expected.last[0].seq).arg(expected.last[0].op));
        compare(findChild(top, "callState").text, expected.last[0].completed ? "completed" : "waiting");
        compare(expected.last[0].dim, fault.dim);
        compare(expected.last[0].completed, false);

        cell = grid.cellRect(fault.rank);
        mouseClick(grid, cell.x + cell.width / 2, cell.y + cell.height / 2);
        tryCompare(position, "rank", fault.rank);
        verify(position.rootCause);
        verify(findChild(page, "rankPosition").text.endsWith(" · root cause"), findChild(page, "rankPosition").text);
        // No hook reported it: no start-up state is claimed for it.
        verify(page.session.selection.selectedRankText.startsWith("rank %1 · from the records".arg(fault.rank)),
               page.session.selection.selectedRankText);
    }

    // The ranks the rank list shows, in its order.
    function listedRanks(page: LivePage): var {
        const list = findChild(page, "liveRankList");
        const ranks = [];
        for (let i = 0; i < list.count; ++i) {
            list.positionViewAtIndex(i, ListView.Contain);
            let row = null;
            tryVerify(() => (row = list.itemAtIndex(i)) !== null, 5000, "row " + i + " of the rank list");
            ranks.push(row.rank);
        }
        return ranks;
    }

    // The ranks each fault keeps in one place, worked out from the fault the job injected (facts.json), never from the
    // collector: skip: the rest of the skipped ep group waits in its all_to_all, and the rank that skipped it is the
    // root cause; die: the rank that died has no record; host: the rank in host code stands outside collectives.
    function faultPlace(tag: string): var {
        const facts = testCase.collector.faultFacts(tag);
        const fault = facts.fault;
        const summary = getJson(testCase.collector.url + "/api/v1/jobs/" + tag).hang;
        if (tag === "skip") {
            const place = summary.places.find(p => p.standing === "waiting" && p.dim === fault.dim && p.seq === fault.seq);
            verify(place !== undefined, "a place waiting in " + fault.dim + " seq " + fault.seq);
            const ranks = [];
            for (let r = facts.ep * fault.group; r < facts.ep * (fault.group + 1); ++r)
                if (r !== fault.rank)
                    ranks.push(r);
            return {text: place.text, index: summary.places.indexOf(place), ranks: ranks};
        }
        const place = summary.places.find(p => p.standing === fault.cause);
        verify(place !== undefined, "a place " + fault.cause);
        return {text: place.text, index: summary.places.indexOf(place), ranks: [fault.rank]};
    }

    // The grid keeps the chosen ranks as they were and fades every other one.
    function verifyGridKeeps(page: LivePage, before: var, ranks: var) {
        const grid = findChild(page, "liveGrid");
        waitForRendering(grid);
        const after = grabImage(page);
        for (let rank = 0; rank < 16; ++rank) {
            const change = distance(fill(page, grid, before, rank), fill(page, grid, after, rank));
            if (ranks.indexOf(rank) >= 0)
                verify(change < 0.05, "rank " + rank + " is kept as it was: " + change);
            else
                verify(change > 0.15, "rank " + rank + " is faded: " + change);
        }
    }

    function test_place_filter_keeps_its_ranks_data() {
        return [{tag: "skip"}, {tag: "die"}, {tag: "host"}];
    }

    // Choosing a place in the filter bar (by keyboard, as a user can) leaves exactly its ranks in the list; the grid
    // fades the others; "any place" brings all 16 back.
    function test_place_filter_keeps_its_ranks(data) {
        const page = createPage(data.tag);
        const expected = faultPlace(data.tag);
        const grid = findChild(page, "liveGrid");
        waitForRendering(grid);
        const before = grabImage(page);
        const box = findChild(page, "placeFilter");
        verify(box.visible);
        compare(box.displayText, "any place");
        const choice = box.model.indexOf(expected.text);
        verify(choice > 0, expected.text + " is a choice of " + box.model);
        box.forceActiveFocus();
        for (let i = 0; i < choice; ++i)
            keyClick(Qt.Key_Down);
        compare(box.displayText, expected.text);
        compare(page.session.selection.placeFilter, expected.text);
        compare(listedRanks(page), expected.ranks);
        verifyGridKeeps(page, before, expected.ranks);
        verify(findChild(page, "clearFilters").enabled);
        for (let i = 0; i < choice; ++i)
            keyClick(Qt.Key_Up);
        compare(page.session.selection.placeFilter, "");
        compare(page.session.view.filteredRanks.count, 16);
    }

    // A click on a place of the legend keeps its ranks (and checks the entry and the filter bar's choice); a second
    // click brings all back. The summary's entries do the same; Clear drops the choice.
    function test_clicking_a_place_keeps_its_ranks() {
        const page = createPage("skip");
        const expected = faultPlace("skip");
        const legendEntry = findChild(page, "legendPlaces").itemAt(expected.index);
        compare(legendEntry.text, expected.text);
        const entry = findChild(legendEntry, "placeButton");
        mouseClick(entry);
        compare(page.session.selection.placeFilter, expected.text);
        verify(entry.checked);
        compare(findChild(page, "placeFilter").displayText, expected.text);
        compare(listedRanks(page), expected.ranks);
        mouseClick(entry);
        compare(page.session.selection.placeFilter, "");
        verify(!entry.checked);
        compare(page.session.view.filteredRanks.count, 16);

        const summaryEntry = findChild(findChild(page, "hangPlaces").itemAt(expected.index), "placeButton");
        mouseClick(summaryEntry);
        compare(page.session.selection.placeFilter, expected.text);
        verify(summaryEntry.checked && entry.checked);
        compare(listedRanks(page), expected.ranks);
        mouseClick(findChild(page, "clearFilters"));
        compare(page.session.selection.placeFilter, "");
        compare(page.session.view.filteredRanks.count, 16);
    }

    // The root cause's entry of the legend keeps the rank that skipped its collective, and the filter bar offers the
    // same choice.
    function test_root_cause_keeps_the_culprit() {
        const page = createPage("skip");
        const fault = testCase.collector.faultFacts("skip").fault;
        const grid = findChild(page, "liveGrid");
        waitForRendering(grid);
        const before = grabImage(page);
        verify(findChild(page, "placeFilter").model.indexOf("root cause") > 0);
        mouseClick(findChild(page, "legendRootCause"));
        compare(page.session.selection.placeFilter, "root cause");
        compare(listedRanks(page), [fault.rank]);
        verifyGridKeeps(page, before, [fault.rank]);
        compare(findChild(page, "placeFilter").displayText, "root cause");
    }

    // A job without records has no place to choose.
    function test_no_place_without_records() {
        const collector = createTemporaryObject(collectorComponent, testCase);
        verify(collector.start(0.5));
        const session = sessionComponent.createObject(testCase);
        testCase.oldSessions.push(session);
        session.inputs.url = collector.url;
        const page = createTemporaryObject(pageComponent, testCase, {session: session});
        compare(collector.postStandardJob("train"), 200);
        tryVerify(() => session.view.settled && session.view.ranks.count > 0, 10000, "the job's ranks");
        verify(!session.view.hang.active);
        verify(!findChild(page, "placeFilter").visible);
        compare(session.view.filteredRanks.placeChoices.length, 0);
    }
}
