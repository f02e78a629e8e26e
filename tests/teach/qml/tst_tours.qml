pragma ComponentBehavior: Bound

import QtQuick
import QtQuick.Controls
import QtTest
import MeshScope
import MeshScope.Demo
import MeshScope.Planner
import MeshScope.Live
import MeshScope.Teach
import "tour_answers.js" as TourAnswers

// Every shipped tour walked to its end through the real dashboard (the Dashboard item of the window: planner,
// Live page, sandbox, peers view, the tour panel), doing each task as a learner would: clicking the grid's cell,
// the peers view's rank, typing into the planner or the answer field, pressing the sandbox's buttons. A wrong
// answer shows core's message and the hint, and Next stays disabled until the right one. The answers are worked
// by hand from the tours' texts and ../shared/docs/domain.md, never read from the code under test.
TestCase {
    id: testCase

    name: "Tours"
    width: 1440
    height: 900
    when: windowShown
    visible: true  // TestCase is invisible by default: mouse events would reach nothing

    // The controllers and the session outlive their test's dashboard (temporary objects go in creation order,
    // and a page whose session went first would read null): they are destroyed at the start of the next test.
    property PlanController planner: null
    property Preferences preferences: null
    property LiveSession session: null
    property TourController tours: null

    function init() {
        for (const object of [testCase.tours, testCase.session, testCase.preferences, testCase.planner])
            if (object !== null)
                object.destroy();
        testCase.tours = null;
        testCase.session = null;
        testCase.preferences = null;
        testCase.planner = null;
    }

    function cleanupTestCase() {
        init();
    }

    Component {
        id: plannerComponent

        PlanController {}
    }

    Component {
        id: preferencesComponent

        Preferences {}
    }

    Component {
        id: sessionComponent

        LiveSession {
            inputs.settleMs: 300
        }
    }

    Component {
        id: toursComponent

        TourController {
            jobs: DemoTourJobs {}  // a live step's job in a collector of its own, as the dashboard runs it
        }
    }

    Component {
        id: dashboardComponent

        Dashboard {
            width: testCase.width
            height: testCase.height
        }
    }

    function createDashboard(): Dashboard {
        testCase.planner = plannerComponent.createObject(testCase);
        testCase.session = sessionComponent.createObject(testCase);
        testCase.tours = toursComponent.createObject(testCase, {planner: testCase.planner, liveSession: testCase.session});
        testCase.preferences = preferencesComponent.createObject(testCase);
        const dashboard = createTemporaryObject(dashboardComponent, testCase, {
            controller: testCase.planner, preferences: testCase.preferences, liveSession: testCase.session,
            tours: testCase.tours});
        verify(dashboard !== null);
        waitForRendering(dashboard);
        return dashboard;
    }

    function typeInto(field: TextField, text: string) {
        mouseClick(field);
        field.selectAll();
        keyClick(Qt.Key_Backspace);
        for (let i = 0; i < text.length; ++i)
            keyClick(text[i]);
    }

    function typeIntField(dashboard: Dashboard, name: string, value: int) {
        const field = findChild(dashboard, name);
        verify(field !== null, name);
        typeInto(field.input, String(value));
    }

    function click(dashboard: Dashboard, name: string) {
        const item = findChild(dashboard, name);
        verify(item !== null, name);
        verify(item.visible && item.enabled, name + " can be clicked");
        mouseClick(item);
    }

    // A rank's cell on a grid item (the planner's or the Live page's), clicked at its centre.
    function clickCell(dashboard: Dashboard, gridName: string, rank: int) {
        const grid = findChild(dashboard, gridName);
        verify(grid !== null, gridName);
        waitForRendering(grid);
        const cell = grid.cellRect(rank);
        verify(cell.width > 0, "rank " + rank + " is drawn");
        mouseClick(grid, cell.x + cell.width / 2, cell.y + cell.height / 2);
    }

    // The ranks of the Live page's findings of `kind` (what a learner reads in the findings list).
    function findingRanks(tours: TourController, kind: string): var {
        const findings = tours.liveSession.view.findings;
        for (let i = 0; i < findings.count; ++i)
            if (findings.kindAt(i) === kind)
                return findings.data(findings.index(i, 0), FindingsModel.RanksRole);
        return [];
    }

    // One answer, as a learner gives it. {rank} on the planner grid, {liveFinding: kind} on the Live grid (a rank
    // of that finding, read from the findings list), {peerRank}, {number}, {choice}, {layout: {world, cp, ep,
    // gpusPerNode}} typed into the planner, {calls: [[dp, cp, ep] | "reset" | "relaunch", ...]} on the sandbox.
    // Returns the rank clicked, when the answer is a click (-1 otherwise).
    function answer(dashboard: Dashboard, given: var): int {
        const tours = dashboard.tours;
        let clicked = -1;
        if (given.rank !== undefined) {
            clicked = given.rank;
            clickCell(dashboard, "meshGrid", given.rank);
        } else if (given.liveFinding !== undefined) {
            if (given.waitFor !== undefined)  // the finding the task asks about, before a wrong click
                tryVerify(() => findingRanks(tours, given.waitFor).length > 0, 30000, "the job shows its " + given.waitFor);
            tryVerify(() => findingRanks(tours, given.liveFinding).length > 0, 30000,
                      "the job shows its " + given.liveFinding);
            clicked = findingRanks(tours, given.liveFinding)[0];
            clickCell(dashboard, "liveGrid", clicked);
        } else if (given.peerRank !== undefined) {
            clicked = given.peerRank;
            click(dashboard, "peerRank_" + given.peerRank);
        } else if (given.number !== undefined) {
            typeInto(findChild(dashboard, "tourNumber"), String(given.number));
            click(dashboard, "tourCheckNumber");
        } else if (given.choice !== undefined) {
            const options = findChild(dashboard, "tourOptions");
            mouseClick(options.itemAt(given.choice));
            click(dashboard, "tourCheckChoice");
        } else if (given.layout !== undefined) {
            mouseClick(findChild(dashboard, "clusterByWorld"));
            typeIntField(dashboard, "gpusPerNodeField", given.layout.gpusPerNode);
            typeIntField(dashboard, "cpField", given.layout.cp);
            typeIntField(dashboard, "epField", given.layout.ep);
            typeIntField(dashboard, "worldField", given.layout.world);
            click(dashboard, "tourCheckLayout");
        } else if (given.calls !== undefined) {
            for (const call of given.calls) {
                if (call === "reset" || call === "relaunch") {
                    click(dashboard, call === "reset" ? "sandboxReset" : "sandboxRelaunch");
                    continue;
                }
                typeIntField(dashboard, "sandboxDp", call[0]);
                typeIntField(dashboard, "sandboxCp", call[1]);
                typeIntField(dashboard, "sandboxEp", call[2]);
                click(dashboard, "sandboxInitialize");
            }
        } else {
            fail("unknown answer " + JSON.stringify(given));
        }
        return clicked;
    }

    // Each tour's steps in order: null for a reading step, else the right answer (see answer()).
    function test_walk_each_tour_to_its_end_data() {
        return TourAnswers.walks;
    }

    function test_walk_each_tour_to_its_end(data) {
        const dashboard = createDashboard();
        const tours = dashboard.tours;
        click(dashboard, "toursTab");
        click(dashboard, "tourStart_" + data.tour);
        compare(tours.step.tourName, data.tour);
        compare(tours.step.count, data.answers.length);
        const highlight = findChild(dashboard, "tourHighlight");
        for (let k = 0; k < data.answers.length; ++k) {
            compare(tours.step.index, k + 1);
            // The step's page is shown, and its anchor framed.
            compare(findChild(dashboard, "pageTabs").currentIndex, dashboard.pageIndex(tours.step.page));
            if (tours.step.anchor !== "") {
                waitForRendering(dashboard);
                verify(highlight.shown, "step " + (k + 1) + " frames " + tours.step.anchor);
                compare(highlight.target.objectName, tours.step.anchor);
            }
            const given = data.answers[k];
            compare(tours.step.hasTask, given !== null, "step " + (k + 1) + " has a task");
            if (given !== null) {
                verify(!findChild(dashboard, "tourNext").enabled, "Next waits for the answer");
                answer(dashboard, given);
                tryVerify(() => tours.answer.solved, 5000, "step " + (k + 1) + ": " + tours.answer.message);
                verify(findChild(dashboard, "tourMessage").visible);
            }
            click(dashboard, "tourNext");
        }
        verify(!tours.step.active, "the tour ended");
        verify(!findChild(dashboard, "tourPanel").visible);
        // The Tours page says so.
        click(dashboard, "toursTab");
        compare(findChild(dashboard, "tourStart_" + data.tour).text, "Start again");
    }

    // A wrong answer: core's message (the reason, not the answer) and the hint; Next stays disabled.
    function test_a_wrong_answer_is_told_so_data() {
        return TourAnswers.wrongs;
    }

    function test_a_wrong_answer_is_told_so(data) {
        const dashboard = createDashboard();
        const tours = dashboard.tours;
        verify(tours.start(data.tour, data.step));
        waitForRendering(dashboard);
        const clicked = answer(dashboard, data.answer);
        tryVerify(() => tours.answer.wrong, 5000, "judged wrong");
        verify(!tours.answer.solved);
        const message = findChild(dashboard, "tourMessage");
        verify(message.visible);
        compare(message.text, data.message.replace("RANK", String(clicked)));
        compare(findChild(dashboard, "tourHint").visible, tours.step.hint !== "");
        verify(!findChild(dashboard, "tourNext").enabled);
    }

    // Leave a tour and resume it: the Tours page offers the step where it was left.
    function test_leave_and_resume() {
        const dashboard = createDashboard();
        const tours = dashboard.tours;
        verify(tours.start("peers", 2));
        click(dashboard, "tourLeave");
        verify(!tours.step.active);
        click(dashboard, "toursTab");
        const resume = findChild(dashboard, "tourStart_peers");
        compare(resume.text, "Resume at step 2");
        mouseClick(resume);
        compare(tours.step.tourName, "peers");
        compare(tours.step.index, 2);
        click(dashboard, "tourBack");
        compare(tours.step.index, 1);
    }

    // The tour panel floats over the page: opening a tour leaves every page and the planner's grid as wide as
    // before, and the panel sits on the side away from the step's anchor (the inputs are on the page's left, the
    // inspector on its right: ui/planner/qml/PlannerPage.qml).
    function test_the_panel_keeps_the_pages_width() {
        const dashboard = createDashboard();
        const pageNames = ["plannerPage", "livePage", "sandboxPage", "peersPage"];
        const widths = pageNames.map(name => findChild(dashboard, name).width);
        for (let i = 0; i < widths.length; ++i)
            compare(widths[i], dashboard.width, pageNames[i] + " fills the window");
        const grid = findChild(dashboard, "meshGrid");
        const gridWidth = grid.width;
        verify(gridWidth > 0);
        const panel = findChild(dashboard, "tourPanel");
        verify(!panel.visible);

        verify(dashboard.tours.start("mesh-basics", 1));  // anchor planner.inputs
        waitForRendering(dashboard);
        verify(panel.visible);
        for (let i = 0; i < widths.length; ++i)
            compare(findChild(dashboard, pageNames[i]).width, widths[i], pageNames[i] + " keeps its width");
        compare(grid.width, gridWidth, "the grid keeps its width");
        compare(panel.x + panel.width, dashboard.width, "the panel is on the right, away from the inputs");

        verify(dashboard.tours.start("mesh-basics", 4));  // anchor planner.inspector
        waitForRendering(dashboard);
        compare(panel.x, 0, "the panel is on the left, away from the inspector");
        const inspector = findChild(dashboard, "planner.inspector");
        verify(inspector.mapToItem(dashboard, 0, 0).x >= panel.width, "the inspector is not under the panel");
        compare(grid.width, gridWidth, "the grid keeps its width");
    }

    // Every anchor of docs/tours.md is an item's objectName on its page.
    function test_every_anchor_exists_data() {
        return [
            {tag: "planner.inputs", page: 0}, {tag: "planner.mesh", page: 0}, {tag: "planner.order", page: 0},
            {tag: "planner.grid", page: 0}, {tag: "planner.inspector", page: 0}, {tag: "live.progress", page: 1},
            {tag: "live.grid", page: 1}, {tag: "live.findings", page: 1}, {tag: "live.rank", page: 1},
            {tag: "sandbox.calls", page: 2}, {tag: "sandbox.state", page: 2}, {tag: "peers.layouts", page: 3},
        ];
    }

    function test_every_anchor_exists(data) {
        const dashboard = createDashboard();
        findChild(dashboard, "pageTabs").currentIndex = data.page;
        waitForRendering(dashboard);
        const item = dashboard.findAnchor(dashboard, data.tag);
        verify(item !== null, data.tag);
        verify(item.visible && item.width > 0 && item.height > 0, data.tag + " is on screen");
    }
}
