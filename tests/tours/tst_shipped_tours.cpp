// Every shipped tour (meshscope_tours, resources/tours): parses, is the tour list's, each view builds (a live
// step's job is one the simulator accepts), and every task is solvable: some answer is right and some is wrong.
// The search also runs on tours built to be unsolvable, so a tour a learner cannot finish fails this test.
#include <QTest>

#include "hang_jobs.h"
#include "meshscope/mesh/peer_layout.h"
#include "meshscope/mesh/placement.h"
#include "meshscope/tour/tour.h"
#include "shipped_tours.h"
#include "simulation.h"
#include "tour_test_support.h"

using namespace meshscope;

namespace {
// What the search found for one task.
struct Search {
    bool right = false;
    bool wrong = false;
    std::string error;  // a ValueError from check_answer
};

// The findings a live step's job shows: the simulator's injected faults, as the monitor names them; for a records
// job, what the diagnosis of its shipped dumps finds (the findings `meshscope import` would send).
Expected<TourContext> job_context(const Tour& tour, const TourStep& step) {
    TourContext context;
    if (!step.job) return context;
    if (!step.job->records.empty()) {
        auto records = hang_job_import(*step.job);
        if (!records) return records.error();
        context.findings = records->findings;
        return context;
    }
    auto faults = sim::parse_faults(step.job->faults);
    if (!faults) return faults.error();
    auto scenario = sim::make_scenario({.dp = step.job->dp,
                                        .cp = step.job->cp,
                                        .ep = step.job->ep,
                                        .gpus_per_node = step.job->gpus_per_node,
                                        .job = "tour-" + tour.name,
                                        .faults = *faults});
    if (!scenario) return scenario.error();
    for (const auto& [kind, ranks] : scenario->injected) {
        Finding f;
        f.kind = kind;
        f.ranks = ranks;
        context.findings.push_back(f);
    }
    return context;
}

// Sandbox histories up to four calls over the calls the singleton tour asks for.
std::vector<nlohmann::json> sandbox_histories() {
    const std::vector<nlohmann::json> calls = {{{"op", "initialize"}, {"dp", 16}, {"cp", 1}, {"ep", 2}},
                                               {{"op", "initialize"}, {"dp", 16}, {"cp", 1}, {"ep", 4}},
                                               {{"op", "initialize"}, {"dp", 16}, {"cp", 1}, {"ep", 3}},
                                               {{"op", "reset"}},
                                               {{"op", "relaunch"}}};
    std::vector<nlohmann::json> out = {nlohmann::json::array()};
    std::vector<nlohmann::json> frontier = out;
    for (int length = 1; length <= 4; ++length) {
        std::vector<nlohmann::json> next;
        for (const auto& h : frontier)
            for (const auto& c : calls) {
                auto longer = h;
                longer.push_back(c);
                next.push_back(longer);
            }
        out.insert(out.end(), next.begin(), next.end());
        frontier = std::move(next);
    }
    return out;
}

Search search(const TourStep& step, const TourContext& context) {
    Search s;
    auto judge = [&](const nlohmann::json& answer) {
        const auto verdict = check_answer(step, answer, context);
        if (!verdict) {
            s.error = verdict.error().message();
            return;
        }
        (verdict->correct ? s.right : s.wrong) = true;
    };
    const std::string kind = step.task->check.at("kind").get<std::string>();
    if (kind == "rank_in_group" || kind == "rank_leaves_node" || kind == "peer_group" || kind == "finding_rank") {
        const std::int64_t world = kind == "peer_group"     ? step.peers.world
                                   : kind == "finding_rank" ? step.job->dp * step.job->cp
                                                            : step.planner.dp_size() * step.planner.cp;
        for (std::int64_t r = 0; r < world && s.error.empty(); ++r) judge({{"rank", r}});
    } else if (kind == "count" || kind == "creation_index") {
        for (std::int64_t n = 0; n <= 1000 && s.error.empty(); ++n) judge({{"number", n}});
    } else if (kind == "choice") {
        for (std::size_t i = 0; i < step.task->check.at("options").size(); ++i) judge({{"choice", i}});
    } else if (kind == "layout") {
        for (std::int64_t dp = 1; dp <= 64; ++dp)
            for (std::int64_t cp = 1; cp <= 16 && dp * cp <= 256; ++cp)
                for (std::int64_t ep = 1; ep <= dp; ++ep)
                    if (dp % ep == 0) judge({{"layout", {{"dp", dp}, {"cp", cp}, {"ep", ep}}}});
    } else if (kind == "sandbox") {
        for (const auto& h : sandbox_histories()) judge({{"calls", h}});
    }
    return s;
}

// "" when every task of the tour is solvable, else what is wrong with the first one that is not.
std::string unsolvable(const Tour& tour) {
    for (std::size_t i = 0; i < tour.steps.size(); ++i) {
        const TourStep& step = tour.steps[i];
        if (!step.task) continue;
        const std::string where = tour.name + " step " + std::to_string(i + 1) + ": ";
        const auto context = job_context(tour, step);
        if (!context) return where + "the job does not build: " + context.error().message();
        const Search s = search(step, *context);
        if (!s.error.empty()) return where + s.error;
        if (!s.right) return where + "no answer is right";
        if (!s.wrong) return where + "no answer is wrong";
    }
    return {};
}

Tour parsed(const std::string& steps) {
    return parse_tour(test::tour_json(steps)).value();
}
}  // namespace

class ShippedToursTest : public QObject {
    Q_OBJECT
private slots:
    void the_list() {
        // docs/tours.md's table, in its order.
        const std::vector<std::string_view> expected = {
            "mesh-basics", "expert-mesh", "creation-order", "singleton-pitfall", "live-job", "read-a-hang", "peers"};
        std::vector<std::string_view> names;
        for (const auto& t : shipped_tours()) names.push_back(t.name);
        QCOMPARE(names, expected);
        QVERIFY(find_shipped_tour("live-job"));
        QCOMPARE(find_shipped_tour("live-job")->name, std::string_view("live-job"));
        QVERIFY(!find_shipped_tour("live"));
    }

    // "read-a-hang": each records job's culprit is the rank its real torch job injected the fault into
    // (resources/hang-jobs/*/facts.json): rank 13 skipped an all_to_all, rank 2 died, rank 9 hung in host code.
    void read_a_hang_culprits_data() {
        QTest::addColumn<int>("step");  // from 0
        QTest::addColumn<qint64>("culprit");
        QTest::addColumn<qint64>("waiting");  // a rank stuck because of it, not the culprit
        QTest::addRow("skip") << 1 << qint64{13} << qint64{12};
        QTest::addRow("die") << 3 << qint64{2} << qint64{6};
        QTest::addRow("host") << 4 << qint64{9} << qint64{13};
    }
    void read_a_hang_culprits() {
        QFETCH(int, step);
        QFETCH(qint64, culprit);
        QFETCH(qint64, waiting);
        const auto tour = parse_tour(find_shipped_tour("read-a-hang")->json).value();
        const TourStep& s = tour.steps.at(static_cast<std::size_t>(step));
        const auto context = job_context(tour, s);
        QVERIFY2(context, context ? "" : context.error().what());
        QVERIFY(check_answer(s, {{"rank", culprit}}, *context).value().correct);
        QVERIFY(!check_answer(s, {{"rank", waiting}}, *context).value().correct);
    }

    void tour_data() {
        QTest::addColumn<QString>("name");
        for (const auto& t : shipped_tours())
            QTest::addRow("%s", std::string(t.name).c_str()) << QString::fromUtf8(t.name.data(), t.name.size());
    }
    void tour() {
        QFETCH(QString, name);
        const ShippedTour* shipped = find_shipped_tour(name.toStdString());
        QVERIFY(shipped);
        const auto tour = parse_tour(shipped->json);
        QVERIFY2(tour, tour ? "" : tour.error().what());
        QCOMPARE(QString::fromStdString(tour->name), name);
        QVERIFY2(tour->steps.size() >= 5 && tour->steps.size() <= 9, "a tour has 5 to 9 steps");
        std::size_t tasks = 0;
        for (const TourStep& step : tour->steps) {
            tasks += step.task.has_value();
            // At most four paragraphs a step.
            std::size_t paragraphs = 1;
            for (std::size_t p = step.text.find("\n\n"); p != std::string::npos; p = step.text.find("\n\n", p + 2))
                ++paragraphs;
            QVERIFY2(paragraphs <= 4, step.title.c_str());
            if (step.job) {
                const auto faults = sim::parse_faults(step.job->faults);
                QVERIFY2(faults, faults ? "" : faults.error().what());
            }
        }
        QVERIFY2(tasks * 2 > tour->steps.size(), "a task in most steps");
        const std::string problem = unsolvable(*tour);
        QVERIFY2(problem.empty(), problem.c_str());
    }

    // The peers tour's last question is a choice its author worked by hand (docs/domain.md, section 3: FSDPTurbo's
    // ep groups are strided by cp; TorchTitan and Megatron-Core take consecutive ranks): with world 16, cp 2 and
    // ep 8 on nodes of 8 GPUs only FSDPTurbo's ep groups leave a node. core's peer layouts must agree.
    void peers_choice_holds() {
        const auto tour = parse_tour(find_shipped_tour("peers")->json).value();
        const TourStep& last = tour.steps.back();
        QCOMPARE(last.peers.world, std::int64_t{16});
        QCOMPARE(last.peers.cp, std::int64_t{2});
        QCOMPARE(last.peers.ep, std::int64_t{8});
        QCOMPARE(last.task->check.at("correct").get<int>(), 1);  // "TorchTitan and Megatron-Core"
        const Placement placement = Placement::make(16, 8).value();
        for (const Framework framework : all_frameworks) {
            const auto layout = peer_layout(framework, {.world = 16, .cp = 2, .ep = 8, .gpus_per_node = 8}).value();
            bool leaves = false;
            for (const auto& group : layout.dim("ep")->groups) leaves = leaves || leaves_node(group, placement);
            QCOMPARE(leaves, framework == Framework::fsdpturbo);
        }
    }

    // The search must catch a task no answer satisfies, and one every answer satisfies.
    void catches_unsolvable_data() {
        QTest::addColumn<QString>("steps");
        QTest::addColumn<QString>("problem");
        // dp 8, cp 2 on nodes of 8: every cp pair stays on its node.
        QTest::addRow("no rank leaves") << R"({"title": "A", "text": "B", "view": {"page": "planner", "dp": 8, "cp": 2},
            "task": {"prompt": "P", "check": {"kind": "rank_leaves_node", "mesh": "data", "dim": "cp"}}})"
                                        << "t step 1: no answer is right";
        // ... and every dp group leaves it.
        QTest::addRow("every rank leaves")
            << R"({"title": "A", "text": "B", "view": {"page": "planner", "dp": 8, "cp": 2},
            "task": {"prompt": "P", "check": {"kind": "rank_leaves_node", "mesh": "data", "dim": "dp"}}})"
            << "t step 1: no answer is wrong";
        // One GPU per node: no ep group of 8 fits.
        QTest::addRow("no layout") << R"({"title": "A", "text": "B", "view": {"page": "planner", "dp": 8, "ep": 2},
            "task": {"prompt": "P", "check": {"kind": "layout", "ep": 8, "gpus_per_node": 1, "inside_node": "ep"}}})"
                                   << "t step 1: no answer is right";
        QTest::addRow("fault not injected")
            << R"({"title": "A", "text": "B", "view": {"page": "live", "simulate": {"dp": 16, "faults": "straggler=1"}},
            "task": {"prompt": "P", "check": {"kind": "finding_rank", "finding": "missing_rank"}}})"
            << "t step 1: no answer is right";
        QTest::addRow("job refused")
            << R"({"title": "A", "text": "B", "view": {"page": "live", "simulate": {"dp": 2, "faults": "straggler=1"}},
            "task": {"prompt": "P", "check": {"kind": "finding_rank", "finding": "straggler"}}})"
            << "t step 1: the job does not build: --faults: 1 faulty ranks need a world of at least 10, got 2";
    }
    void catches_unsolvable() {
        QFETCH(QString, steps);
        QFETCH(QString, problem);
        QCOMPARE(QString::fromStdString(unsolvable(parsed(steps.toStdString()))), problem);
    }
};

QTEST_GUILESS_MAIN(ShippedToursTest)
#include "tst_shipped_tours.moc"
