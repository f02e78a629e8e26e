// parse_tour: one row per rule of docs/tours.md, each refusal's exact text (the step from 1 and the field), and
// how a step's planner, peers and job state carry over from the steps before it.
#include <QTest>

#include "meshscope/tour/tour.h"
#include "tour_test_support.h"

using namespace meshscope;

namespace {
// A planner reading step, valid on its own.
const std::string planner_step =
    R"({"title": "A", "text": "B", "view": {"page": "planner", "dp": 8, "cp": 2, "ep": 2}})";

std::string step_with(const std::string& view, const std::string& rest = "") {
    return R"({"title": "A", "text": "B", "view": )" + view + rest + "}";
}
std::string planner_task(const std::string& check,
                         const std::string& view = R"({"page": "planner", "dp": 8, "cp": 2, "ep": 2})") {
    return step_with(view, R"(, "task": {"prompt": "P", "check": )" + check + "}");
}
}  // namespace

class TourParseTest : public QObject {
    Q_OBJECT
private slots:
    void refuses_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        auto row = [](const char* name, const std::string& text, const char* message) {
            QTest::addRow("%s", name) << QString::fromStdString(text) << QString(message);
        };
        auto steps = [](const std::string& s) { return test::tour_json(s); };

        // The file as a whole.
        row("not json", R"({"schema": })", "not JSON: syntax error at byte 12");
        row("not an object", "[]", "expected a JSON object");
        row("nested 65 deep", R"({"schema": )" + std::string(64, '[') + std::string(64, ']') + "}",
            "invalid JSON: nested deeper than 64 levels");
        row("unknown top key", R"({"schema": "meshscope.tour/1", "author": "x"})", "unknown key \"author\"");
        row("schema", R"({"schema": "meshscope.tour/2", "name": "t", "title": "T", "summary": "S", "steps": []})",
            "schema: expected \"meshscope.tour/1\", got \"meshscope.tour/2\"");
        row("name missing", R"({"schema": "meshscope.tour/1", "title": "T", "summary": "S", "steps": []})",
            "name: missing");
        row("name characters", R"({"schema": "meshscope.tour/1", "name": "Mesh Basics", "title": "T", "summary": "S"})",
            "name: \"Mesh Basics\" may hold only a-z, 0-9 and -");
        row("title type", R"({"schema": "meshscope.tour/1", "name": "t", "title": 3, "summary": "S", "steps": []})",
            "title: expected a string");
        row("steps empty", steps(""), "steps: expected a non-empty array");

        // A step's own fields.
        row("step not object", steps("3"), "step 1: expected an object");
        row("unknown step key",
            steps(R"({"title": "A", "text": "B", "anchr": "planner.grid", "view": {"page": "planner"}})"),
            "step 1: unknown key \"anchr\"");
        row("title missing", steps(R"({"text": "B", "view": {"page": "planner"}})"), "step 1: title: missing");
        row("text type", steps(R"({"title": "A", "text": ["B"], "view": {"page": "planner"}})"),
            "step 1: text: expected a string");
        row("view missing", steps(R"({"title": "A", "text": "B"})"), "step 1: view: missing");
        row("numbered from 1", steps(planner_step + "," + planner_step + R"(, {"title": "A", "text": "B"})"),
            "step 3: view: missing");

        // Views.
        row("page unknown", steps(step_with(R"({"page": "plan"})")), "step 1: view.page: unknown page \"plan\"");
        row("view key", steps(step_with(R"({"page": "planner", "dpp": 8})")), "step 1: view: unknown key \"dpp\"");
        row("dp zero", steps(step_with(R"({"page": "planner", "dp": 0})")),
            "step 1: view.dp: expected a positive integer");
        row("dp and world", steps(step_with(R"({"page": "planner", "dp": 8, "world": 16})")),
            "step 1: view: give dp or world, not both");
        row("order", steps(step_with(R"({"page": "planner", "order": "torch27"})")),
            "step 1: view.order: unknown order \"torch27\"");
        row("core refuses", steps(step_with(R"({"page": "planner", "dp": 8, "ep": 3})")),
            "step 1: view: dp_size must be divisible by ep_size, got 8 % 3 != 0.");
        // Step 2 leaves dp out: it is still 8 from step 1, and ep = 3 does not divide it.
        row("carried over", steps(planner_step + "," + step_with(R"({"page": "planner", "ep": 3})")),
            "step 2: view: dp_size must be divisible by ep_size, got 8 % 3 != 0.");
        row("world and cp", steps(step_with(R"({"page": "planner", "world": 16, "cp": 3})")),
            "step 1: view: world_size (16) must be divisible by cp_size (3).");
        row("rank outside", steps(step_with(R"({"page": "planner", "dp": 8, "cp": 2, "rank": 16})")),
            "step 1: view.rank: rank 16 is outside the world of 16 ranks");
        row("world bound", steps(step_with(R"({"page": "planner", "dp": 8192})")),
            "step 1: view: a tour's world is at most 4096 ranks, got 8192");
        row("simulate key", steps(step_with(R"({"page": "live", "simulate": {"dp": 8, "fault": "x"}})")),
            "step 1: view.simulate: unknown key \"fault\"");
        row("simulate dp", steps(step_with(R"({"page": "live", "simulate": {"cp": 2}})")),
            "step 1: view.simulate.dp: missing");
        row("simulate refused", steps(step_with(R"({"page": "live", "simulate": {"dp": 8, "ep": 3}})")),
            "step 1: view.simulate: dp_size must be divisible by ep_size, got 8 % 3 != 0.");
        row("records and simulate",
            steps(step_with(R"({"page": "live", "simulate": {"dp": 8}, "records": {"job": "skip", "dp": 16}})")),
            "step 1: view.records: a live view shows a simulated job or a job's records, not both");
        row("records job name", steps(step_with(R"({"page": "live", "records": {"job": "../skip", "dp": 16}})")),
            "step 1: view.records.job: expected a shipped job's name (a-z, 0-9 and -)");
        row("records key", steps(step_with(R"({"page": "live", "records": {"job": "skip", "dp": 16, "x": 1}})")),
            "step 1: view.records: unknown key \"x\"");
        row("records plan refused",
            steps(step_with(R"({"page": "live", "records": {"job": "skip", "dp": 16, "ep": 3}})")),
            "step 1: view.records: dp_size must be divisible by ep_size, got 16 % 3 != 0.");
        row("fresh type", steps(step_with(R"({"page": "sandbox", "fresh": 1})")),
            "step 1: view.fresh: expected true or false");
        row("peers refused", steps(step_with(R"({"page": "peers", "world": 16, "cp": 3})")),
            "step 1: view: FSDPTurbo: world_size (16) must be divisible by cp_size (3).");

        // Anchors and finding texts.
        row("anchor unknown", steps(step_with(R"({"page": "planner"}, "anchor": "planner.gird")")),
            "step 1: anchor: unknown anchor \"planner.gird\"");
        row("anchor page", steps(step_with(R"({"page": "planner"}, "anchor": "live.grid")")),
            "step 1: anchor: \"live.grid\" is not on the planner page");
        row("finding_text", steps(step_with(R"({"page": "planner"}, "finding_text": "stragler")")),
            "step 1: finding_text: unknown finding kind \"stragler\"");

        // Tasks and checks.
        row("prompt missing", steps(step_with(R"({"page": "planner"}, "task": {"check": {"kind": "choice"}})")),
            "step 1: task.prompt: missing");
        row("task key", steps(step_with(R"({"page": "planner"}, "task": {"prompt": "P", "answer": 1})")),
            "step 1: task: unknown key \"answer\"");
        row("check missing", steps(step_with(R"({"page": "planner"}, "task": {"prompt": "P"})")),
            "step 1: task.check: missing");
        row("kind unknown",
            steps(planner_step + "," + planner_step + "," + planner_task(R"({"kind": "rank_in_grup"})")),
            "step 3: task.check: unknown kind \"rank_in_grup\"");
        row("check field missing", steps(planner_task(R"({"kind": "rank_in_group", "mesh": "expert", "dim": "ep"})")),
            "step 1: task.check.of: missing");
        row("check key", steps(planner_task(R"({"kind": "rank_leaves_node", "mesh": "data", "dim": "cp", "of": 1})")),
            "step 1: task.check: unknown key \"of\"");
        row("mesh unknown", steps(planner_task(R"({"kind": "rank_leaves_node", "mesh": "moe", "dim": "ep"})")),
            "step 1: task.check.mesh: unknown mesh \"moe\"");
        row("dim of mesh", steps(planner_task(R"({"kind": "rank_leaves_node", "mesh": "data", "dim": "ep"})")),
            "step 1: task.check.dim: \"ep\" is not a dim of the data mesh (dp, cp)");
        row("expert mesh ep 1",
            steps(planner_task(R"({"kind": "rank_leaves_node", "mesh": "expert", "dim": "ep"})",
                               R"({"page": "planner", "dp": 8, "ep": 1})")),
            "step 1: task.check.mesh: the expert mesh needs ep > 1 (this step has ep = 1)");
        row("of outside", steps(planner_task(R"({"kind": "rank_in_group", "mesh": "data", "dim": "dp", "of": 16})")),
            "step 1: task.check.of: rank 16 is outside the world of 16 ranks");
        row("not_self type",
            steps(planner_task(R"({"kind": "rank_in_group", "mesh": "data", "dim": "dp", "of": 1, "not_self": "no"})")),
            "step 1: task.check.not_self: expected true or false");
        row("count what", steps(planner_task(R"({"kind": "count", "mesh": "data", "dim": "dp", "what": "ranks"})")),
            "step 1: task.check.what: unknown count \"ranks\"");
        row("layout empty", steps(planner_task(R"({"kind": "layout", "inside_node": "ep"})")),
            "step 1: task.check: a layout check needs world, cp or ep");
        row("layout inside_node", steps(planner_task(R"({"kind": "layout", "ep": 2, "inside_node": "cp"})")),
            "step 1: task.check.inside_node: unknown expert mesh dim \"cp\"");
        row("creation order",
            steps(planner_task(
                R"({"kind": "creation_index", "mesh": "expert", "dim": "efsdp", "of": 5, "order": "2.9"})")),
            "step 1: task.check.order: unknown order \"2.9\"");
        row("wrong page", steps(planner_task(R"({"kind": "finding_rank", "finding": "straggler"})")),
            "step 1: task.check: finding_rank needs a live view, not planner");
        row("finding unknown",
            steps(step_with(R"({"page": "live", "simulate": {"dp": 8}})",
                            R"(, "task": {"prompt": "P", "check": {"kind": "finding_rank", "finding": "stragler"}})")),
            "step 1: task.check.finding: unknown finding kind \"stragler\"");
        row("finding without job",
            steps(step_with(R"({"page": "live"})",
                            R"(, "task": {"prompt": "P", "check": {"kind": "finding_rank", "finding": "straggler"}})")),
            "step 1: task.check: finding_rank needs a live job (view.simulate or view.records)");
        row("sandbox expect",
            steps(step_with(R"({"page": "sandbox"})",
                            R"(, "task": {"prompt": "P", "check": {"kind": "sandbox", "expect": "KeyError"}})")),
            "step 1: task.check.expect: unknown outcome \"KeyError\"");
        row("sandbox after",
            steps(step_with(
                R"({"page": "sandbox"})",
                R"(, "task": {"prompt": "P", "check": {"kind": "sandbox", "expect": "initialized", "after": "restart"}})")),
            "step 1: task.check.after: unknown op \"restart\"");
        row("framework",
            steps(step_with(
                R"({"page": "peers"})",
                R"(, "task": {"prompt": "P", "check": {"kind": "peer_group", "framework": "deepspeed", "of": 1}})")),
            "step 1: task.check.framework: unknown framework \"deepspeed\"");
        row("peer of outside",
            steps(step_with(
                R"({"page": "peers", "world": 8})",
                R"(, "task": {"prompt": "P", "check": {"kind": "peer_group", "framework": "megatron", "of": 8}})")),
            "step 1: task.check.of: rank 8 is outside the world of 8 ranks");
        row("choice options", steps(planner_task(R"({"kind": "choice", "options": ["only one"], "correct": 0})")),
            "step 1: task.check.options: expected at least two texts");
        row("choice correct", steps(planner_task(R"({"kind": "choice", "options": ["a", "b"], "correct": 2})")),
            "step 1: task.check.correct: index 2 is past the last option (1)");
    }
    void refuses() {
        QFETCH(QString, text);
        QFETCH(QString, message);
        const auto tour = parse_tour(text.toStdString());
        QVERIFY(!tour);
        QCOMPARE(tour.error().type(), ErrorType::value_error);
        QCOMPARE(QString::fromStdString(tour.error().message()), message);
    }

    void reads_a_tour() {
        const auto tour = parse_tour(test::tour_json(
            planner_step + "," +
            step_with(R"({"page": "planner", "world": 32, "order": "torch28", "mesh": "data", "rank": 3})",
                      R"(, "anchor": "planner.grid", "finding_text": "straggler", "task": {"prompt": "P", "hint": "H",
                           "check": {"kind": "count", "mesh": "data", "dim": "dp", "what": "groups"}})") +
            "," + step_with(R"({"page": "live", "simulate": {"dp": 8, "faults": "straggler=1"}})") + "," +
            step_with(R"({"page": "peers", "ep": 4})")));
        QVERIFY2(tour, tour ? "" : tour.error().what());
        QCOMPARE(tour->name, std::string("t"));
        QCOMPARE(tour->steps.size(), std::size_t{4});
        const TourStep& first = tour->steps[0];
        QCOMPARE(first.page, TourPage::planner);
        QCOMPARE(first.planner.dp, std::optional<std::int64_t>(8));
        QVERIFY(!first.task);
        QVERIFY(first.anchor.empty());
        // Step 2 gives world: dp clears, cp and ep carry over from step 1.
        const TourStep& second = tour->steps[1];
        QCOMPARE(second.planner.world, std::optional<std::int64_t>(32));
        QVERIFY(!second.planner.dp);
        QCOMPARE(second.planner.dp_size(), std::int64_t{16});
        QCOMPARE(second.planner.cp, std::int64_t{2});
        QCOMPARE(second.planner.ep, std::int64_t{2});
        QCOMPARE(second.planner.order, CreationOrder::torch28);
        QCOMPARE(second.planner.mesh, std::string("data"));
        QCOMPARE(second.planner.rank, std::optional<std::int64_t>(3));
        QCOMPARE(second.anchor, std::string("planner.grid"));
        QCOMPARE(second.finding_text, std::string("straggler"));
        QCOMPARE(second.task->prompt, std::string("P"));
        QCOMPARE(second.task->hint, std::string("H"));
        QCOMPARE(second.task->check.at("kind").get<std::string>(), std::string("count"));
        // The live step's job, kept by the steps after it; the planner state too.
        QCOMPARE(tour->steps[2].page, TourPage::live);
        QCOMPARE(tour->steps[2].job->dp, std::int64_t{8});
        QCOMPARE(tour->steps[2].job->faults, std::string("straggler=1"));
        QCOMPARE(tour->steps[3].job->dp, std::int64_t{8});
        QCOMPARE(tour->steps[3].planner.world, std::optional<std::int64_t>(32));
        QCOMPARE(tour->steps[3].peers.ep, std::int64_t{4});
        QCOMPARE(tour->steps[3].peers.world, std::int64_t{16});
        QCOMPARE(tour->steps[3].view.at("page").get<std::string>(), std::string("peers"));
    }

    void resolved_json() {
        const auto tour = parse_tour(test::tour_json(
            planner_step + "," + step_with(R"({"page": "sandbox"})", R"(, "finding_text": "reinit_mismatch")")));
        QVERIFY(tour);
        const nlohmann::json j = to_json(*tour);
        QCOMPARE(test::dump(j.at("schema")), test::dump(nlohmann::json("meshscope.tour/1")));
        QCOMPARE(j.at("steps").size(), std::size_t{2});
        // Step 2 shows the planner state step 1 left.
        QCOMPARE(test::dump(j.at("steps")[1].at("planner")),
                 test::dump(nlohmann::json::parse(R"({"dp": 8, "cp": 2, "ep": 2, "gpus_per_node": 8,
                                                                           "order": "torch29", "mesh": "expert"})")));
        QCOMPARE(test::dump(j.at("steps")[1].at("page")), test::dump(nlohmann::json("sandbox")));
        QCOMPARE(test::dump(j.at("steps")[1].at("finding").at("kind")), test::dump(nlohmann::json("reinit_mismatch")));
        QVERIFY(!j.at("steps")[0].contains("task"));
        QVERIFY(!j.at("steps")[0].contains("job"));
    }

    void anchors() {
        // docs/tours.md's table, in its order.
        const std::vector<std::string_view> expected = {
            "planner.inputs", "planner.mesh",  "planner.order", "planner.grid",  "planner.inspector", "live.progress",
            "live.grid",      "live.findings", "live.rank",     "sandbox.calls", "sandbox.state",     "peers.layouts"};
        const auto anchors = tour_anchors();
        QCOMPARE(std::vector<std::string_view>(anchors.begin(), anchors.end()), expected);
        QCOMPARE(to_string(TourPage::sandbox), std::string_view("sandbox"));
    }
};

QTEST_GUILESS_MAIN(TourParseTest)
#include "tst_tour_parse.moc"
