pragma ComponentBehavior: Bound

import QtQuick
import QtTest
import MeshScope
import MeshScope.Planner

// The planner page against a real PlanController: typing, suggestions, selection, legend, keyboard, the model mesh.
TestCase {
    id: testCase

    name: "PlannerPage"
    width: 1100
    height: 640
    when: windowShown
    visible: true

    // The controller lives and dies with the page it feeds.
    Component {
        id: pageComponent

        Item {
            id: holder

            readonly property PlannerPage page: plannerPage

            width: testCase.width
            height: testCase.height

            PlanController {
                id: planController
            }

            PlannerPage {
                id: plannerPage

                anchors.fill: parent
                controller: planController
            }
        }
    }

    function createPage(): PlannerPage {
        const holder = createTemporaryObject(pageComponent, testCase);
        verify(holder !== null);
        waitForRendering(holder);
        return holder.page;
    }

    function typeInto(field: IntField, text: string) {
        mouseClick(field.input);
        field.input.selectAll();
        keyClick(Qt.Key_Backspace);
        for (let i = 0; i < text.length; ++i)
            keyClick(text[i]);
    }

    function test_invalid_ep_shows_exact_message_and_suggestions() {
        const page = createPage();
        const controller = page.controller;
        const revision = controller.view.planRevision;
        typeInto(findChild(page, "epField"), "3");
        compare(controller.form.ep, 3);
        verify(!controller.form.valid);
        const error = findChild(page, "errorText");
        verify(error.visible);
        compare(error.text, "dp_size must be divisible by ep_size, got 16 % 3 != 0.");
        compare(findChild(page, "suggestionTitle").text, "valid ep (divides dp = 16):");
        const suggestions = findChild(page, "suggestions");
        compare(suggestions.count, 5);
        const labels = [];
        for (let i = 0; i < suggestions.count; ++i)
            labels.push(suggestions.itemAt(i).text);
        compare(labels, ["1", "2", "4", "8", "16"]);
        // The grid keeps the last valid plan meanwhile.
        compare(controller.view.planEp, 8);
        compare(controller.view.planRevision, revision);
    }

    function test_clicking_a_suggestion_fixes_the_plan() {
        const page = createPage();
        const controller = page.controller;
        typeInto(findChild(page, "epField"), "3");
        verify(!controller.form.valid);
        const four = findChild(page, "suggestion_4");
        verify(four !== null);
        // The suggestions reflow when they appear: click only once their row has been laid out.
        waitForItemPolished(four.parent);
        tryVerify(() => four.visible && four.width > 0 && four.mapToItem(page, 0, 0).x >= 0);
        waitForRendering(page);
        mouseClick(four);
        verify(controller.form.valid);
        compare(controller.form.ep, 4);
        compare(controller.view.planEp, 4);
        compare(controller.view.planEfsdp, 4);
        compare(findChild(page, "epField").input.text, "4");
        verify(!findChild(page, "errorText").visible);
    }

    function test_invalid_cp_offers_divisors_of_the_world() {
        const page = createPage();
        const controller = page.controller;
        typeInto(findChild(page, "cpField"), "5");
        compare(findChild(page, "errorText").text, "world_size (16) must be divisible by cp_size (5).");
        waitForRendering(page);
        const two = findChild(page, "suggestions").itemAt(1);
        compare(two.text, "2");
        mouseClick(two);
        verify(controller.form.valid);
        compare(controller.view.planCp, 2);
    }

    function test_selecting_a_rank_fills_the_inspector() {
        const page = createPage();
        const controller = page.controller;
        const grid = findChild(page, "meshGrid");
        verify(!controller.selection.inspector.hasSelection);
        const cell = grid.cellRect(13);
        verify(cell.width > 4);
        mouseClick(grid, cell.x + cell.width / 2, cell.y + cell.height / 2);
        compare(controller.selection.selectedRank, 13);
        compare(findChild(page, "inspectorTitle").text, "Rank 13");
        compare(findChild(page, "inspectorNode").text, "1");
        compare(findChild(page, "inspectorLocalRank").text, "5");
        compare(findChild(page, "inspectorExpertCoordinate").text, "(edp 0, efsdp 1, ep 5, expert_cp 0)");
        compare(findChild(page, "inspectorDataCoordinate").text, "(dp 13, cp 0)");
        const groups = findChild(page, "inspectorGroups");
        compare(groups.count, 8);  // mp_replicate, mp_shard, dp, cp, edp, efsdp, ep, expert_cp
        // Arrow keys move the selection to the neighbouring cell on screen.
        verify(grid.activeFocus);
        keyClick(Qt.Key_Right);
        compare(controller.selection.selectedRank, 14);
        keyClick(Qt.Key_Left);
        compare(controller.selection.selectedRank, 13);
    }

    function test_legend_shows_all_groups_of_a_dim() {
        const page = createPage();
        const controller = page.controller;
        const grid = findChild(page, "meshGrid");
        const before = grabImage(grid);
        const legend = findChild(page, "legend");
        verify(legend !== null);
        compare(legend.count, 4);
        const ep = legend.itemAt(2);
        compare(ep.objectName, "legend_ep");
        verify(ep !== null);
        verify(!ep.checked);
        const center = ep.mapToItem(page, ep.width / 2, ep.height / 2);
        mouseClick(page, center.x, center.y);
        compare(controller.view.shownDim, "ep");
        verify(ep.checked);
        waitForRendering(grid);
        const after = grabImage(grid);
        verify(!before.equals(after), "the grid redraws with every ep group outlined");
        mouseClick(page, center.x, center.y);
        compare(controller.view.shownDim, "");
        verify(!ep.checked);
    }

    function test_model_mesh_inputs_and_grid() {
        const page = createPage();
        const controller = page.controller;
        typeInto(findChild(page, "mpReplicateField"), "3");
        verify(!controller.form.valid);
        compare(controller.form.errorField, PlanInput.MpReplicate);
        compare(findChild(page, "errorText").text, "world_size (16) must be divisible by mp_replicate_size (3).");
        typeInto(findChild(page, "mpReplicateField"), "2");
        verify(controller.form.valid);
        compare(controller.view.planMpShard, 8);
        compare(findChild(page, "modelMeshText").text, "Model mesh: mp_replicate 2 × mp_shard 8");
        const grid = findChild(page, "meshGrid");
        const before = grabImage(grid);
        mouseClick(findChild(page, "modelMeshButton"));
        compare(controller.view.shownMesh, MeshView.Model);
        compare(findChild(page, "axesText").text, "columns mp_shard (8 per block) · blocks mp_replicate × mp_shard");
        verify(findChild(page, "legend_mp_shard") !== null);
        waitForRendering(grid);
        verify(!before.equals(grabImage(grid)), "the grid redraws the model mesh");
        // Rank 13 sits at (mp_replicate 1, mp_shard 5): rank = 1 * 8 + 5.
        const cell = grid.cellRect(13);
        mouseClick(grid, cell.x + cell.width / 2, cell.y + cell.height / 2);
        compare(findChild(page, "inspectorModelCoordinate").text, "(mp_replicate 1, mp_shard 5)");
        // The inspector's first group rows are the model mesh's, under their own heading.
        const groups = findChild(page, "inspectorGroups");
        compare(groups.itemAtIndex(0).heading, "Model mesh groups");
    }

    function test_ep_one_says_there_is_no_expert_mesh() {
        const page = createPage();
        const controller = page.controller;
        typeInto(findChild(page, "epField"), "1");
        verify(controller.form.valid);
        verify(!controller.view.hasExpertMesh);
        verify(!controller.view.showingExpertMesh);
        verify(findChild(page, "noExpertMeshNote").visible);
        verify(!findChild(page, "expertMeshButton").enabled);
        compare(findChild(page, "legend_dp").text.indexOf("dp"), 0);
    }
}
