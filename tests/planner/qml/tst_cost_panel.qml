pragma ComponentBehavior: Bound

import QtQuick
import QtTest
import MeshScope
import MeshScope.Planner

// The Cost panel against a real PlanController: picking a model preset prices the plan, clicking a ranked layout
// puts it in the form and on the grid.
TestCase {
    id: testCase

    name: "CostPanel"
    width: 1300
    height: 900
    when: windowShown
    visible: true

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

    function test_no_model_shows_no_cost() {
        const page = createPage();
        compare(page.controller.costForm.model, "none");
        verify(!findChild(page, "costStrip").visible);
        verify(!findChild(page, "hardwareChoice").visible);
    }

    function test_preset_then_ranked_row_changes_the_form() {
        const page = createPage();
        const controller = page.controller;
        // The model box, by keyboard: the first preset after "none".
        const modelChoice = findChild(page, "modelChoice");
        modelChoice.box.forceActiveFocus();
        keyClick(Qt.Key_Down);
        compare(controller.costForm.model, "qwen3-30b-a3b");
        const strip = findChild(page, "costStrip");
        tryVerify(() => strip.visible);
        verify(findChild(page, "hardwareChoice").visible);
        compare(findChild(page, "memorySegments").count, 6);
        verify(findChild(page, "memoryTotalText").text.startsWith("Memory: "));
        verify(findChild(page, "commRows").count > 0);

        // World 16 has 15 layouts (cp 1: 5 ep, cp 2: 4, cp 4: 3, cp 8: 2, cp 16: 1).
        const list = findChild(page, "rankingList");
        compare(list.count, 15);
        compare(controller.form.cp, 1);
        compare(controller.form.ep, 8);
        // The first listed row that is not the plan's own layout.
        let rowIndex = 0;
        let row = findChild(page, "rankedRow0");
        if (row.current) {
            rowIndex = 1;
            row = findChild(page, "rankedRow1");
        }
        verify(row !== null);
        verify(!row.current);
        const cp = row.cp;
        const ep = row.ep;
        mouseClick(row);
        compare(controller.form.cp, cp);
        compare(controller.form.ep, ep);
        compare(controller.view.planCp, cp);
        compare(controller.view.planEp, ep);
        compare(findChild(page, "cpField").input.text, String(cp));
        compare(findChild(page, "epField").input.text, String(ep));
        tryVerify(() => findChild(page, "rankedRow" + rowIndex).current);
        compare(controller.cost.ranking.currentRow, rowIndex);
    }

    function test_bad_input_marks_its_field_data() {
        return [
            {tag: "seq", field: "seqField", text: "0", error: "seq must be positive, got 0."},
            {tag: "micro_batch", field: "microBatchField", text: "-2", error: "micro_batch must be positive, got -2."},
            {tag: "grad_accum", field: "gradAccumField", text: "0", error: "grad_accum must be positive, got 0."},
            {tag: "global_batch", field: "globalBatchField", text: "-5",
                error: "global_batch must be at least 0, got -5."}
        ];
    }

    // Typing a value core refuses marks that field, and only it, invalid, with core's text under the form.
    function test_bad_input_marks_its_field(data) {
        const page = createPage();
        page.controller.costForm.model = "qwen3-30b-a3b";
        const names = ["seqField", "microBatchField", "gradAccumField", "globalBatchField"];
        for (const name of names)
            verify(!findChild(page, name).invalid, name);
        const input = findChild(page, data.field).input;
        input.forceActiveFocus();
        input.selectAll();
        for (const ch of data.text)
            keyClick(ch === "-" ? Qt.Key_Minus : Qt.Key_0 + Number(ch));
        tryCompare(page.controller.costForm, "errorField", data.tag);
        compare(findChild(page, "costErrorText").text, data.error);
        for (const name of names)
            compare(findChild(page, name).invalid, name === data.field, name);
    }

    // Without a cluster profile every constant the panel lists is a preset, and no profile line shows.
    function test_constants_without_a_profile_are_presets() {
        const page = createPage();
        page.controller.costForm.model = "qwen3-30b-a3b";
        page.controller.costForm.hardware = "h200";
        tryVerify(() => findChild(page, "costStrip").visible);
        compare(findChild(page, "constantRows").count, 3);
        verify(!findChild(page, "clusterProfileText").visible);
        const nvlink = findChild(page, "constantRow_intra_node_gbps");
        verify(nvlink !== null);
        verify(!nvlink.fromClusterProfile);
        compare(nvlink.valueText, "450 GB/s");
        compare(nvlink.sourceText, "preset: h200 preset");
        compare(findChild(nvlink, "constantSource").text, "preset");
    }
}
