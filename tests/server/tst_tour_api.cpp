// The teaching mode's routes over real HTTP on loopback (docs/tours.md): the resolved tours and steps,
// core's verdict on answers (a right one, a wrong one with its reason, a refused shape with core's message),
// the sandbox with FSDPTurbo's exact errors, a tour's simulated job inside the collector and a finding_rank
// check against that job's findings; every 4xx with its exact text. Expected values come from docs/tours.md's
// table and domain.md's worked examples (dp 8, cp 2, ep 2: rank 5's ep group is [5, 7]; FSDPTurbo's
// re-initialization RuntimeError), never from the code under test.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QTest>

#include "collector_fixture.h"
#include "collector_tour_jobs.h"
#include "server_test_support.h"

namespace {
const QByteArray token = "tour-token";

QJsonObject parse(const QByteArray& text) {
    QJsonParseError error;
    const auto doc = QJsonDocument::fromJson(text, &error);
    if (error.error != QJsonParseError::NoError) qWarning() << error.errorString() << text.left(200);
    return doc.object();
}

QByteArray shipped(const QString& name) {
    QFile file(QStringLiteral(MESHSCOPE_SOURCE_DIR "/resources/tours/%1.json").arg(name));
    if (!file.open(QIODevice::ReadOnly)) qWarning() << "cannot read" << file.fileName();
    return file.readAll();
}

// The first step (from 1) of a shipped tour whose task checks `kind`, or 0.
int step_with_check(const QString& tour, const QString& kind) {
    const QJsonArray steps = parse(shipped(tour))["steps"].toArray();
    for (int i = 0; i < steps.size(); ++i)
        if (steps[i].toObject()["task"].toObject()["check"].toObject()["kind"].toString() == kind) return i + 1;
    return 0;
}

// The step (from 1) of the live tour whose finding_rank check asks for `kind`, or 0.
int step_with_finding(const QString& tour, const QString& kind) {
    const QJsonArray steps = parse(shipped(tour))["steps"].toArray();
    for (int i = 0; i < steps.size(); ++i)
        if (steps[i].toObject()["task"].toObject()["check"].toObject()["finding"].toString() == kind) return i + 1;
    return 0;
}

QByteArray sandbox_body(const QByteArray& calls) {
    return R"({"calls": [)" + calls + "]}";
}
}  // namespace

class TourApiTest : public QObject {
    Q_OBJECT
    std::unique_ptr<test::RunningCollector> collector_;
    QNetworkAccessManager nam_;

    test::HttpReply get(const QString& target, const QByteArray& with_token = token) {
        return test::http(nam_, "GET", collector_->url + target, {}, with_token);
    }
    test::HttpReply post(const QString& target, const QByteArray& body, const QByteArray& with_token = token) {
        return test::http(nam_, "POST", collector_->url + target, body, with_token);
    }

private slots:
    void initTestCase() {
        test::CollectorConfig config;
        config.token = token;
        config.tour_jobs = meshscope::demo::CollectorTourJobs::factory();  // as `meshscope serve` gives it
        collector_ = test::start_collector(config);
        QVERIFY(collector_);
    }

    // docs/tours.md's table: seven tours, in the collector's order (by name), each with its title.
    void lists_the_shipped_tours() {
        const auto reply = get("/api/v1/tours");
        QCOMPARE(reply.status, 200);
        const QJsonArray tours = parse(reply.body)["tours"].toArray();
        QMap<QString, QString> titles;
        for (const auto& t : tours) {
            const QJsonObject tour = t.toObject();
            titles[tour["name"].toString()] = tour["title"].toString();
            QVERIFY(!tour["summary"].toString().isEmpty());
            QCOMPARE(tour["steps"].toInt(), parse(shipped(tour["name"].toString()))["steps"].toArray().size());
        }
        const QMap<QString, QString> expected{
            {"mesh-basics", "dp, cp and the data mesh"},
            {"expert-mesh", "From (dp, cp, ep) to (edp, efsdp, ep, expert_cp)"},
            {"creation-order", "Creation order: same groups, same order, on every rank"},
            {"singleton-pitfall", "The singleton pitfall: initialized with (16, 1, 2), got (16, 1, 4)"},
            {"live-job", "Reading a live job"},
            {"read-a-hang", "Reading a hang"},
            {"peers", "Peers side by side: FSDPTurbo, TorchTitan and Megatron-Core"}};
        QCOMPARE(titles, expected);
    }

    // The resolved tour (docs/tours.md): the file's own fields as they are, plus core's state per step.
    void answers_the_resolved_tour_data() {
        QTest::addColumn<QString>("name");
        for (const char* name :
             {"mesh-basics", "expert-mesh", "creation-order", "singleton-pitfall", "live-job", "read-a-hang", "peers"})
            QTest::addRow("%s", name) << QString::fromLatin1(name);
    }
    void answers_the_resolved_tour() {
        QFETCH(QString, name);
        const auto reply = get("/api/v1/tours/" + name);
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.header("Content-Type"), QByteArray("application/json"));
        const QJsonObject served = parse(reply.body);
        const QJsonObject file = parse(shipped(name));
        for (const char* key : {"schema", "name", "title", "summary"}) QCOMPARE(served[key], file[key]);
        const QJsonArray steps = served["steps"].toArray();
        QCOMPARE(steps.size(), file["steps"].toArray().size());
        for (int i = 0; i < steps.size(); ++i) {
            const QJsonObject got = steps[i].toObject();
            const QJsonObject want = file["steps"].toArray()[i].toObject();
            for (const char* key : {"title", "text", "view", "anchor", "finding_text"}) QCOMPARE(got[key], want[key]);
            const QJsonObject task = got["task"].toObject(), file_task = want["task"].toObject();
            for (const char* key : {"prompt", "check"}) QCOMPARE(task[key], file_task[key]);
            QCOMPARE(task["hint"].toString(), file_task["hint"].toString());  // absent: no hint
            QCOMPARE(got["page"], want["view"].toObject()["page"]);
            QVERIFY(got["planner"].isObject() && got["peers"].isObject());
        }
    }

    // expert-mesh's step 6 says only {"ep": 8, "rank": 5}: dp 8, cp 2, 8 GPUs a node carry over from step 1.
    void views_carry_over() {
        const QJsonArray steps = parse(get("/api/v1/tours/expert-mesh").body)["steps"].toArray();
        QCOMPARE(steps[5].toObject()["view"].toObject(), parse(R"({"page": "planner", "ep": 8, "rank": 5})"));
        QCOMPARE(steps[5].toObject()["planner"].toObject(),
                 parse(R"({"dp": 8, "cp": 2, "ep": 8, "gpus_per_node": 8, "order": "torch29", "mesh": "expert",
                           "rank": 5})"));
        const auto step = parse(get("/api/v1/tours/expert-mesh/steps/6").body);
        QCOMPARE(step["planner"], steps[5].toObject()["planner"]);
        QCOMPARE(step["step"].toInt(), 6);
        QVERIFY(step["finding"].isNull());
    }

    // Every refusal, with its exact text: the route, the tour, the step, the method, the body, core's shape check.
    void refusals_data() {
        QTest::addColumn<QByteArray>("method");
        QTest::addColumn<QString>("target");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("error");
        const int rank_step = step_with_check("expert-mesh", "rank_in_group");
        const int steps = parse(shipped("expert-mesh"))["steps"].toArray().size();
        const QString check = QStringLiteral("/api/v1/tours/expert-mesh/steps/%1/check").arg(rank_step);
        const QString range = QStringLiteral(" (steps 1 to %1)").arg(steps);
        QTest::addRow("unknown tour") << QByteArray("GET") << "/api/v1/tours/x" << QByteArray() << 404
                                      << R"(no tour named "x")";
        QTest::addRow("unknown tour, check") << QByteArray("POST") << "/api/v1/tours/nope/steps/1/check"
                                             << QByteArray(R"({"answer": {}})") << 404 << R"(no tour named "nope")";
        QTest::addRow("step 0") << QByteArray("GET") << "/api/v1/tours/expert-mesh/steps/0" << QByteArray() << 404
                                << R"(tour "expert-mesh" has no step 0)" + range;
        QTest::addRow("step past the end")
            << QByteArray("POST") << QStringLiteral("/api/v1/tours/expert-mesh/steps/%1/check").arg(steps + 1)
            << QByteArray(R"({"answer": {"rank": 1}})") << 404
            << QStringLiteral(R"(tour "expert-mesh" has no step %1)").arg(steps + 1) + range;
        QTest::addRow("step not a number") << QByteArray("GET") << "/api/v1/tours/expert-mesh/steps/two" << QByteArray()
                                           << 404 << R"(tour "expert-mesh" has no step "two")" + range;
        QTest::addRow("unknown route") << QByteArray("GET") << "/api/v1/tours/expert-mesh/answers" << QByteArray()
                                       << 404 << "no such endpoint";
        QTest::addRow("GET a check") << QByteArray("GET") << check << QByteArray() << 405 << "use POST";
        QTest::addRow("POST the list") << QByteArray("POST") << "/api/v1/tours" << QByteArray("{}") << 405 << "use GET";
        QTest::addRow("GET the sandbox") << QByteArray("GET") << "/api/v1/sandbox" << QByteArray() << 405 << "use POST";
        const QString body_shape = R"(the body must be {"answer": {...}} with an optional "job": "<name>")";
        QTest::addRow("body not JSON") << QByteArray("POST") << check << QByteArray("rank 5") << 400 << body_shape;
        QTest::addRow("no answer") << QByteArray("POST") << check << QByteArray(R"({"rank": 5})") << 400 << body_shape;
        QTest::addRow("job not a string")
            << QByteArray("POST") << check << QByteArray(R"({"answer": {"rank": 5}, "job": 3})") << 400 << body_shape;
        // core's own message for an answer of the wrong shape (tour.h)
        QTest::addRow("answer without a rank")
            << QByteArray("POST") << check << QByteArray(R"({"answer": {"number": 5}})") << 400
            << R"(answer needs "rank", a non-negative integer)";
        QTest::addRow("a negative rank") << QByteArray("POST") << check << QByteArray(R"({"answer": {"rank": -1}})")
                                         << 400 << R"(answer needs "rank", a non-negative integer)";
        QTest::addRow("a tour without a job") << QByteArray("POST") << "/api/v1/tours/expert-mesh/job" << QByteArray()
                                              << 400 << R"(tour "expert-mesh" runs no job)";
        QTest::addRow("job body") << QByteArray("POST") << "/api/v1/tours/live-job/job"
                                  << QByteArray(R"({"step": "1"})") << 400
                                  << R"(the body must be empty or {"step": K}, K from 1)";
        const QString sandbox_shape = R"(the body must be {"calls": [{"op": "initialize", ...}, ...]})";
        QTest::addRow("sandbox without calls")
            << QByteArray("POST") << "/api/v1/sandbox" << QByteArray(R"({"call": []})") << 400 << sandbox_shape;
        QTest::addRow("sandbox: unknown op")
            << QByteArray("POST") << "/api/v1/sandbox" << sandbox_body(R"({"op": "initialise"})") << 400
            << R"(calls[0]: unknown op "initialise")";
        QTest::addRow("sandbox: dp not an integer")
            << QByteArray("POST") << "/api/v1/sandbox"
            << sandbox_body(R"({"op": "reset"}, {"op": "initialize", "dp": "16", "cp": 1, "ep": 2})") << 400
            << "calls[1].dp: expected an integer";
    }
    void refusals() {
        QFETCH(QByteArray, method);
        QFETCH(QString, target);
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        QFETCH(QString, error);
        const auto reply = test::http(nam_, method, collector_->url + target, body, token);
        QCOMPARE(reply.status, status);
        QCOMPARE(parse(reply.body)["error"].toString(), error);
    }

    // Like every route, the tour routes need the token; a POST that starts a job most of all.
    void token_required_data() {
        QTest::addColumn<QByteArray>("method");
        QTest::addColumn<QString>("target");
        QTest::addRow("list") << QByteArray("GET") << "/api/v1/tours";
        QTest::addRow("job") << QByteArray("POST") << "/api/v1/tours/live-job/job";
        QTest::addRow("check") << QByteArray("POST") << "/api/v1/tours/expert-mesh/steps/1/check";
        QTest::addRow("sandbox") << QByteArray("POST") << "/api/v1/sandbox";
    }
    void token_required() {
        QFETCH(QByteArray, method);
        QFETCH(QString, target);
        const auto reply = test::http(nam_, method, collector_->url + target, "{}", "wrong");
        QCOMPARE(reply.status, 401);
        QCOMPARE(parse(reply.body)["error"].toString(), QString("missing or wrong bearer token"));
    }

    // domain.md: FSDPTurbo's singleton refuses a second topology with this exact RuntimeError; reset (ours) and
    // relaunch (a new process) are the ways out; the same (dp, cp, ep) again changes nothing.
    void sandbox_data() {
        QTest::addColumn<QByteArray>("calls");
        QTest::addColumn<QStringList>("outcomes");
        QTest::addColumn<QString>("last_error");
        QTest::addColumn<QString>("last_state");  // "dp cp ep efsdp edp", or empty: not initialized
        const QByteArray first = R"({"op": "initialize", "dp": 16, "cp": 1, "ep": 2})";
        const QByteArray second = R"({"op": "initialize", "dp": 16, "cp": 1, "ep": 4})";
        QTest::addRow("initialize") << first << QStringList{"initialized"} << QString() << "16 1 2 8 1";
        QTest::addRow("the pitfall") << first + "," + second << QStringList{"initialized", "error"}
                                     << "RuntimeError: FSDPTurbo parallel state is already initialized with "
                                        "(16, 1, 2), got (16, 1, 4)."
                                     << "16 1 2 8 1";
        QTest::addRow("one dist_config everywhere")
            << first + "," + first << QStringList{"initialized", "unchanged"} << QString() << "16 1 2 8 1";
        QTest::addRow("reset first") << first + R"(, {"op": "reset"}, )" + second
                                     << QStringList{"initialized", "reset", "initialized"} << QString() << "16 1 4 4 1";
        QTest::addRow("relaunch") << first + "," + second + R"(, {"op": "relaunch"}, )" + second
                                  << QStringList{"initialized", "error", "relaunched", "initialized"} << QString()
                                  << "16 1 4 4 1";
        QTest::addRow("ep must divide dp")
            << QByteArray(R"({"op": "initialize", "dp": 16, "cp": 1, "ep": 3})") << QStringList{"error"}
            << "ValueError: dp_size must be divisible by ep_size, got 16 % 3 != 0." << QString();
        QTest::addRow("reset alone") << QByteArray(R"({"op": "reset"})") << QStringList{"reset"} << QString()
                                     << QString();
    }
    void sandbox() {
        QFETCH(QByteArray, calls);
        QFETCH(QStringList, outcomes);
        QFETCH(QString, last_error);
        QFETCH(QString, last_state);
        const auto reply = post("/api/v1/sandbox", sandbox_body(calls));
        QCOMPARE(reply.status, 200);
        const QJsonArray results = parse(reply.body)["results"].toArray();
        QStringList got;
        for (const auto& r : results) got << r.toObject()["outcome"].toString();
        QCOMPARE(got, outcomes);
        const QJsonObject last = results.last().toObject();
        const QJsonObject error = last["error"].toObject();
        QCOMPARE(error.isEmpty() ? QString() : error["type"].toString() + ": " + error["message"].toString(),
                 last_error);
        const QJsonObject state = last["state"].toObject();
        QStringList sizes;
        for (const char* key : {"dp", "cp", "ep", "efsdp", "edp"})
            if (state.contains(key)) sizes << QString::number(state[key].toInt());
        QCOMPARE(sizes.join(' '), last_state);
    }

    // A step's planner as core resolved it, and a rank_in_group check judged both ways (domain.md: dp 8, cp 2,
    // ep 2 puts rank 5 in the ep group [5, 7]).
    void rank_in_group_check() {
        const int k = step_with_check("expert-mesh", "rank_in_group");
        QVERIFY(k > 0);
        const auto step = parse(get(QStringLiteral("/api/v1/tours/expert-mesh/steps/%1").arg(k)).body);
        QCOMPARE(step["page"].toString(), QString("planner"));
        const QJsonObject planner = step["planner"].toObject();
        const QJsonObject check =
            parse(shipped("expert-mesh"))["steps"].toArray()[k - 1].toObject()["task"].toObject()["check"].toObject();
        const QString target = QStringLiteral("/api/v1/tours/expert-mesh/steps/%1/check").arg(k);
        if (planner["cp"].toInt() == 2 && planner["ep"].toInt() == 2 && planner["dp"].toInt() == 8 &&
            check["dim"].toString() == "ep" && check["of"].toInt() == 5) {
            const auto right = parse(post(target, R"({"answer": {"rank": 7}})").body);
            QCOMPARE(right["correct"].toBool(), true);
            const auto wrong = parse(post(target, R"({"answer": {"rank": 4}})").body);
            QCOMPARE(wrong["correct"].toBool(), false);
            QVERIFY2(!wrong["message"].toString().isEmpty(), "a wrong answer says why");
            QVERIFY2(!wrong["message"].toString().contains("[5, 7]"), "without giving the answer away");
        } else {
            // Another worked case: the verdict must still be one of the two, with a reason.
            const auto verdict = parse(post(target, R"({"answer": {"rank": 0}})").body);
            QVERIFY(verdict.contains("correct"));
            QVERIFY(!verdict["message"].toString().isEmpty());
        }
    }

    // A collector embedded without a tour job runner (the collector has no simulator of its own) refuses the job
    // route and answers the rest.
    void a_collector_without_tour_jobs() {
        const auto bare = test::start_collector({});
        QVERIFY(bare);
        const auto started = test::http(nam_, "POST", bare->url + "/api/v1/tours/live-job/job", {}, {});
        QCOMPARE(started.status, 404);
        QCOMPARE(parse(started.body)["error"].toString(), QString("this collector runs no tour jobs"));
        QCOMPARE(test::http(nam_, "GET", bare->url + "/api/v1/tours/live-job", {}, {}).status, 200);
    }

    // The live tour's job runs inside this collector under "tour-live-job"; asking again leaves it running; a
    // finding_rank check is judged against that job's findings.
    void tour_job_and_finding_rank() {
        const auto started = post("/api/v1/tours/live-job/job", {});
        QCOMPARE(started.status, 200);
        const auto summary = parse(started.body);
        QCOMPARE(summary["job"].toString(), QString("tour-live-job"));
        QCOMPARE(summary["started"].toBool(), true);
        QCOMPARE(parse(post("/api/v1/tours/live-job/job", {}).body)["started"].toBool(), false);
        const int world = summary["world_size"].toInt();
        QVERIFY(world > 0);
        // Every rank reports but the ones the simulator keeps missing (what it says it injected).
        const int never_seen = summary["injected"].toObject()["missing_rank"].toArray().size();
        QVERIFY2(test::eventually(
                     [&] {
                         return parse(get("/api/v1/jobs/tour-live-job").body)["ranks_seen"].toInt() ==
                                world - never_seen;
                     },
                     30000),
                 get("/api/v1/jobs/tour-live-job").body.constData());

        // topology_mismatch: found as soon as the faulty rank reports (no waiting for missing_after).
        const QString kind = "topology_mismatch";
        const int k = step_with_finding("live-job", kind);
        QVERIFY(k > 0);
        // The ranks of that kind, as the job's own findings list them (the collector's monitor).
        QList<int> ranks;
        QVERIFY2(
            test::eventually(
                [&] {
                    ranks.clear();
                    for (const auto& f : parse(get("/api/v1/jobs/tour-live-job/findings").body)["findings"].toArray())
                        if (f.toObject()["kind"].toString() == kind)
                            for (const auto& r : f.toObject()["ranks"].toArray()) ranks << r.toInt();
                    return !ranks.isEmpty();
                },
                60000),
            qPrintable("no " + kind + " finding in tour-live-job"));
        int healthy = 0;
        while (ranks.contains(healthy)) ++healthy;
        const QString target = QStringLiteral("/api/v1/tours/live-job/steps/%1/check").arg(k);
        const auto right =
            parse(post(target, QStringLiteral(R"({"answer": {"rank": %1}})").arg(ranks.first()).toUtf8()).body);
        QCOMPARE(right["correct"].toBool(), true);
        const auto wrong =
            parse(post(target, QStringLiteral(R"({"answer": {"rank": %1}})").arg(healthy).toUtf8()).body);
        QCOMPARE(wrong["correct"].toBool(), false);
        // Another job's findings are asked for by name; an unknown one is a 404.
        const auto missing = post(target, R"({"answer": {"rank": 0}, "job": "nope"})");
        QCOMPARE(missing.status, 404);
        QCOMPARE(parse(missing.body)["error"].toString(), QString(R"(no job named "nope")"));
        // The resolved step names the job the page shows.
        const auto step = parse(get(QStringLiteral("/api/v1/tours/live-job/steps/%1").arg(k)).body);
        QCOMPARE(step["job"].toObject()["job"].toString(), QString("tour-live-job"));
    }

    // "read-a-hang"'s job is a real torch job's records, imported into this collector: the hang map's summary and
    // the verdict's rank are the fault the job injected (rank 13 skipped ep group 3's all_to_all,
    // resources/hang-jobs/skip/facts.json); a later step's job (rank 2 died) replaces it.
    void records_tour_job() {
        const auto started = post("/api/v1/tours/read-a-hang/job", R"({"step": 1})");
        QCOMPARE(started.status, 200);
        QCOMPARE(parse(started.body)["job"].toString(), QString("tour-read-a-hang"));
        QVERIFY2(test::eventually(
                     [&] {
                         const auto job = parse(get("/api/v1/jobs/tour-read-a-hang").body);
                         return job["hang"].toObject()["root_cause"].toArray() == QJsonArray{13};
                     },
                     30000),
                 get("/api/v1/jobs/tour-read-a-hang").body.constData());
        const auto job = parse(get("/api/v1/jobs/tour-read-a-hang").body);
        QCOMPARE(job["topology"].toObject()["ep"].toInt(), 4);
        QCOMPARE(job["world_size"].toInt(), 16);
        const auto right = parse(post("/api/v1/tours/read-a-hang/steps/2/check", R"({"answer": {"rank": 13}})").body);
        QCOMPARE(right["correct"].toBool(), true);
        const auto wrong = parse(post("/api/v1/tours/read-a-hang/steps/2/check", R"({"answer": {"rank": 12}})").body);
        QCOMPARE(wrong["correct"].toBool(), false);

        QCOMPARE(post("/api/v1/tours/read-a-hang/job", R"({"step": 4})").status, 200);
        QVERIFY(test::eventually(
            [&] {
                return parse(get("/api/v1/jobs/tour-read-a-hang").body)["hang"].toObject()["root_cause"].toArray() ==
                       QJsonArray{2};
            },
            30000));
    }
};

QTEST_MAIN(TourApiTest)
#include "tst_tour_api.moc"
