// The plan API over real HTTP on loopback (docs/collector.md, "Plan API"): the full and compact forms, a
// rank's groups, the exports' bytes, and every rejection with its exact text, hint, field and suggestions; the
// plan worker's bound and stop, in-process.
// Expected values are worked out by hand (domain.md's worked example dp 8, cp 2, ep 2; plan_export_cases.h).
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QScopeGuard>
#include <QTest>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "collector_fixture.h"
#include "http/plan_worker.h"
#include "plan_export_cases.h"
#include "server_test_support.h"

namespace {
const QByteArray token = "plan-token";

QJsonObject parse(const QByteArray& text) {
    QJsonParseError error;
    const auto doc = QJsonDocument::fromJson(text, &error);
    if (error.error != QJsonParseError::NoError) qWarning() << error.errorString() << text.left(200);
    return doc.object();
}

QByteArray bytes(std::string_view text) {
    return {text.data(), static_cast<qsizetype>(text.size())};
}
}  // namespace

class PlanApiTest : public QObject {
    Q_OBJECT
    std::unique_ptr<test::RunningCollector> collector_;
    QNetworkAccessManager nam_;

    test::HttpReply get(const QString& target, const QByteArray& with_token = token) {
        return test::http(nam_, "GET", collector_->url + target, {}, with_token);
    }

private slots:
    void initTestCase() {
        test::CollectorConfig config;
        config.token = token;
        collector_ = test::start_collector(config);
        QVERIFY(collector_);
    }

    // A small plan is answered in full: the `meshscope plan --format json` document, byte for byte.
    void full_form_is_the_plan_json() {
        namespace c = plan_export_cases;
        const auto reply = get(QStringLiteral("/api/v1/plan?world=%1&ep=%2&gpus_per_node=%3")
                                   .arg(c::json_world)
                                   .arg(c::json_ep)
                                   .arg(c::json_gpus_per_node));
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.header("Content-Type"), QByteArray("application/json"));
        QCOMPARE(reply.body, bytes(c::json));
        // form=full asks for the same at any size up to the limit; dp instead of world gives the same plan.
        QCOMPARE(get("/api/v1/plan?dp=4&ep=2&gpus_per_node=2&form=full").body, bytes(c::json));
        QCOMPARE(get("/api/v1/plan?dp=4&world=4&ep=2&gpus_per_node=2").body, bytes(c::json));
    }

    void exports_data() {
        QTest::addColumn<QString>("query");
        QTest::addColumn<QByteArray>("expected");
        QTest::addColumn<QByteArray>("content_type");
        namespace c = plan_export_cases;
        QTest::addRow("json") << QStringLiteral("format=json&world=4&ep=2&gpus_per_node=2") << bytes(c::json)
                              << QByteArray("application/json");
        for (const auto& e : c::text_cases) {
            const QString plan = QStringLiteral("world=%1&cp=%2&ep=%3&gpus_per_node=%4")
                                     .arg(e.world)
                                     .arg(e.cp)
                                     .arg(e.ep)
                                     .arg(e.gpus_per_node);
            QTest::addRow("yaml: %s", e.name)
                << "format=yaml&" + plan << bytes(e.yaml) << QByteArray("application/yaml; charset=utf-8");
            QTest::addRow("torchrun: %s", e.name)
                << plan + "&format=torchrun" << bytes(e.torchrun) << QByteArray("text/plain; charset=utf-8");
        }
    }
    void exports() {
        QFETCH(QString, query);
        QFETCH(QByteArray, expected);
        QFETCH(QByteArray, content_type);
        const auto reply = get("/api/v1/plan/export?" + query);
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.body, expected);
        QCOMPARE(reply.header("Content-Type"), content_type);
    }

    // dp 8, cp 2, ep 2: expert mesh (1, 4, 2, 2), strides (16, 4, 2, 1). Group weights by hand from the
    // groups domain.md lists: torch29 efsdp [0,4,8,12] [1,5,9,13] [2,6,10,14] [3,7,11,15] -> index = 2 ep + cp;
    // torch28 efsdp [0,4,8,12] [2,6,10,14] [1,5,9,13] [3,7,11,15] -> index = ep + 2 cp. Size-1 dims weigh 0.
    void compact_form_data() {
        QTest::addColumn<QString>("order");
        QTest::addColumn<QByteArray>("expected");
        const QByteArray common_start = R"({"schema": "meshscope.plan.compact/1",
            "topology": {"world": 16, "dp": 8, "cp": 2, "ep": 2, "efsdp": 4, "edp": 1, "mp_replicate": 1, "mp_shard": 16},
            "cluster": {"gpus_per_node": 8, "nodes": 2}, "creation_order": )";
        // LlamaFactory's default model mesh (1, 16): mp_replicate's 16 singletons are indexed by the mp_shard
        // coordinate, its one mp_shard group [0..15] spans both nodes; a block is 8 ranks (the largest divisor of
        // 16 up to a node), one row.
        const QByteArray model_mesh = R"({"name": "model", "dim_names": ["mp_replicate", "mp_shard"], "shape": [1, 16],
             "strides": [16, 1], "group_weights": {"mp_replicate": [0, 1], "mp_shard": [0, 0]},
             "spans": {"mp_replicate": {"group_size": 1, "groups": 16, "cross_node_groups": 0, "max_nodes": 1},
                       "mp_shard": {"group_size": 16, "groups": 1, "cross_node_groups": 1, "max_nodes": 2}},
             "grid": {"blocks": 2, "columns": 8, "rows": 1}})";
        const QByteArray data_mesh = R"({"name": "data", "dim_names": ["dp", "cp"], "shape": [8, 2], "strides": [2, 1],
             "group_weights": {"dp": [0, 1], "cp": [1, 0]},
             "spans": {"dp": {"group_size": 8, "groups": 2, "cross_node_groups": 2, "max_nodes": 2},
                       "cp": {"group_size": 2, "groups": 8, "cross_node_groups": 0, "max_nodes": 1}},
             "grid": {"blocks": 4, "columns": 2, "rows": 2}})";
        const QByteArray expert_start = R"({"name": "expert", "dim_names": ["edp", "efsdp", "ep", "expert_cp"],
             "shape": [1, 4, 2, 2], "strides": [16, 4, 2, 1],
             "spans": {"edp": {"group_size": 1, "groups": 16, "cross_node_groups": 0, "max_nodes": 1},
                       "efsdp": {"group_size": 4, "groups": 4, "cross_node_groups": 4, "max_nodes": 2},
                       "ep": {"group_size": 2, "groups": 8, "cross_node_groups": 0, "max_nodes": 1},
                       "expert_cp": {"group_size": 2, "groups": 8, "cross_node_groups": 0, "max_nodes": 1}},
             "grid": {"blocks": 4, "columns": 2, "rows": 2}, )";
        QTest::addRow("torch29") << "torch29"
                                 << common_start + R"("torch29", "meshes": [)" + model_mesh + ", " + data_mesh + ", " +
                                        expert_start +
                                        R"("group_weights": {"edp": [0, 4, 2, 1], "efsdp": [0, 0, 2, 1],
                                             "ep": [0, 2, 0, 1], "expert_cp": [0, 2, 1, 0]}}], "warnings": []})";
        // torch28 lists edp as the rows of swapdims(-1, 0): (expert_cp, efsdp, ep) -> 8 cp + 2 efsdp + ep.
        QTest::addRow("torch28") << "torch28"
                                 << common_start + R"("torch28", "meshes": [)" + model_mesh + ", " + data_mesh + ", " +
                                        expert_start +
                                        R"("group_weights": {"edp": [0, 2, 1, 8], "efsdp": [0, 0, 1, 2],
                                             "ep": [0, 2, 0, 1], "expert_cp": [0, 2, 1, 0]}}], "warnings": []})";
    }
    void compact_form() {
        QFETCH(QString, order);
        QFETCH(QByteArray, expected);
        const auto reply = get("/api/v1/plan?dp=8&cp=2&ep=2&form=compact&order=" + order);
        QCOMPARE(reply.status, 200);
        QCOMPARE(parse(reply.body), parse(expected));
    }

    // Above 4,096 ranks the compact form is the default, and its size does not grow with the world.
    void compact_is_the_default_for_big_worlds() {
        const auto small = parse(get("/api/v1/plan?world=4096&ep=8&gpus_per_node=8").body);
        QCOMPARE(small["schema"].toString(), QStringLiteral("meshscope.plan/1"));
        const auto big = get("/api/v1/plan?world=131072&cp=2&ep=8");
        QCOMPARE(big.status, 200);
        QVERIFY2(big.body.size() < 4096, QByteArray::number(big.body.size()));
        const auto doc = parse(big.body);
        QCOMPARE(doc["schema"].toString(), QStringLiteral("meshscope.plan.compact/1"));
        const auto expert = doc["meshes"].toArray()[2].toObject();  // model, data, expert
        QCOMPARE(expert["grid"].toObject()["blocks"].toInt(), 8192);
        QCOMPARE(expert["strides"].toArray(), (QJsonArray{131072, 16, 2, 1}));
    }

    // domain.md: dp 8, cp 2, ep 2, rank 5 sits at expert [0, 1, 0, 1]; its ep group is [5, 7] (the 4th), its
    // expert_cp group [4, 5] (the 3rd), its efsdp group [1, 5, 9, 13] crosses to node 1 (8 GPUs a node).
    void rank_groups() {
        const auto reply = get("/api/v1/plan/rank?dp=8&cp=2&ep=2&rank=5");
        QCOMPARE(reply.status, 200);
        const auto expected = parse(R"({"rank": 5, "node": 0, "local_rank": 5, "meshes": [
            {"name": "model", "coords": [0, 5], "groups": [
              {"dim": "mp_replicate", "coordinate": 0, "index": 5, "size": 1, "first": 5, "stride": 16, "nodes": 1, "leaves_node": false},
              {"dim": "mp_shard", "coordinate": 5, "index": 0, "size": 16, "first": 0, "stride": 1, "nodes": 2, "leaves_node": true}]},
            {"name": "data", "coords": [2, 1], "groups": [
              {"dim": "dp", "coordinate": 2, "index": 1, "size": 8, "first": 1, "stride": 2, "nodes": 2, "leaves_node": true},
              {"dim": "cp", "coordinate": 1, "index": 2, "size": 2, "first": 4, "stride": 1, "nodes": 1, "leaves_node": false}]},
            {"name": "expert", "coords": [0, 1, 0, 1], "groups": [
              {"dim": "edp", "coordinate": 0, "index": 5, "size": 1, "first": 5, "stride": 16, "nodes": 1, "leaves_node": false},
              {"dim": "efsdp", "coordinate": 1, "index": 1, "size": 4, "first": 1, "stride": 4, "nodes": 2, "leaves_node": true},
              {"dim": "ep", "coordinate": 0, "index": 3, "size": 2, "first": 5, "stride": 2, "nodes": 1, "leaves_node": false},
              {"dim": "expert_cp", "coordinate": 1, "index": 2, "size": 2, "first": 4, "stride": 1, "nodes": 1, "leaves_node": false}]}]})");
        QCOMPARE(parse(reply.body), expected);
        // Again (the worker keeps the last plan), and with another placement (it must not): node 1 on 4 GPUs.
        QCOMPARE(parse(get("/api/v1/plan/rank?dp=8&cp=2&ep=2&rank=5").body), expected);
        const auto four = parse(get("/api/v1/plan/rank?dp=8&cp=2&ep=2&gpus_per_node=4&rank=5").body);
        QCOMPARE(four["node"].toInt(), 1);
        QCOMPARE(four["local_rank"].toInt(), 1);
        QCOMPARE(parse(get("/api/v1/plan/rank?world=16&cp=2&ep=2&rank=5").body), expected);
        // ep = 1: no expert mesh, the model and data meshes only.
        const auto data_only = parse(get("/api/v1/plan/rank?world=16&rank=15").body);
        QCOMPARE(data_only["meshes"].toArray().size(), 2);
        QCOMPARE(data_only["node"].toInt(), 1);
    }

    void rejections_data() {
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("error");
        QTest::addColumn<QString>("hint");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QByteArray>("suggestions");
        const QString general = "hint: dp (or world), cp and ep are positive integers, and ep must divide dp";
        const QString plan_usage =
            "hint: GET /api/v1/plan?(dp=D | world=W)[&cp=C][&ep=E][&mp_replicate=R[&mp_shard=S]][&gpus_per_node=G]"
            "[&order=torch29|torch28][&form=full|compact]";
        const QString export_usage =
            "hint: GET /api/v1/plan/export?(dp=D | "
            "world=W)[&cp=C][&ep=E][&mp_replicate=R[&mp_shard=S]][&gpus_per_node=G]"
            "[&order=torch29|torch28]&format=json|yaml|torchrun";
        const QString rank_usage =
            "hint: GET /api/v1/plan/rank?(dp=D | world=W)[&cp=C][&ep=E][&mp_replicate=R[&mp_shard=S]][&gpus_per_node=G]"
            "[&order=torch29|torch28]&rank=R";
        QTest::addRow("ep 3 of dp 16") << "/api/v1/plan?dp=16&ep=3"
                                       << "dp_size must be divisible by ep_size, got 16 % 3 != 0."
                                       << "hint: ep must divide dp = 16; valid ep: 1, 2, 4, 8, 16"
                                       << "ep" << QByteArray(R"({"ep": [1, 2, 4, 8, 16]})");
        QTest::addRow("ep 5 of world 24 cp 2") << "/api/v1/plan?world=24&cp=2&ep=5"
                                               << "dp_size must be divisible by ep_size, got 12 % 5 != 0."
                                               << "hint: ep must divide dp = 12; valid ep: 1, 2, 3, 4, 6, 12"
                                               << "ep" << QByteArray(R"({"ep": [1, 2, 3, 4, 6, 12]})");
        QTest::addRow("ep 0") << "/api/v1/plan/export?format=yaml&dp=16&ep=0"
                              << "ep_size must be positive, got 0."
                              << "hint: ep must divide dp = 16; valid ep: 1, 2, 4, 8, 16"
                              << "ep" << QByteArray(R"({"ep": [1, 2, 4, 8, 16]})");
        QTest::addRow("cp 3 of world 16") << "/api/v1/plan?world=16&cp=3"
                                          << "world_size (16) must be divisible by cp_size (3)."
                                          << "hint: cp must divide world = 16; valid cp: 1, 2, 4, 8, 16"
                                          << "cp" << QByteArray(R"({"cp": [1, 2, 4, 8, 16]})");
        QTest::addRow("mp_replicate 3 of world 16")
            << "/api/v1/plan?world=16&mp_replicate=3"
            << "world_size (16) must be divisible by mp_replicate_size (3)."
            << "hint: mp_replicate must divide world = 16 (valid: 1, 2, 4, 8, 16) and mp_shard, if given, must be "
               "world / mp_replicate"
            << "mp_replicate" << QByteArray(R"({"mp_replicate": [1, 2, 4, 8, 16]})");
        QTest::addRow("gpus 0") << "/api/v1/plan?dp=8&gpus_per_node=0"
                                << "gpus_per_node must be positive, got 0."
                                << "hint: --gpus-per-node is a positive integer (8 on H100/H200 nodes)"
                                << "gpus_per_node" << QByteArray(R"({"gpus_per_node": [8, 4, 2, 1]})");
        QTest::addRow("world 0") << "/api/v1/plan?world=0"
                                 << "world_size must be positive, got 0." << general << "world"
                                 << QByteArray(R"({"world": [8, 16]})");
        QTest::addRow("dp and world disagree") << "/api/v1/plan?dp=8&cp=2&world=32"
                                               << "dp_size * cp_size must equal to world_size, got 8 * 2 != 32."
                                               << "hint: world = dp * cp; give dp or world, or make them agree"
                                               << "world" << QByteArray(R"({"world": [16]})");
        QTest::addRow("neither dp nor world") << "/api/v1/plan?ep=2"
                                              << "give dp or world" << general << "dp" << QByteArray("{}");
        QTest::addRow("too big for core") << "/api/v1/plan?dp=1099511627776&cp=2"
                                          << "world_size (1099511627776 * 2) exceeds the supported maximum of "
                                             "1099511627776."
                                          << "hint: the largest world meshscope plans is 1099511627776 ranks"
                                          << "dp" << QByteArray("{}");
        QTest::addRow("too big for the collector")
            << "/api/v1/plan?world=2097152&ep=8"
            << "The collector plans at most 1048576 ranks, got world_size 2097152; `meshscope plan --no-groups "
               "--no-ranks` handles larger worlds."
            << "hint: the largest world the collector plans is 1048576 ranks"
            << "world" << QByteArray("{}");
        QTest::addRow("full form of 131072 ranks")
            << "/api/v1/plan?world=131072&ep=8&form=full"
            << "form=full lists every group and rank: at most 65536 ranks, got world_size 131072."
            << "hint: ask for form=compact"
            << "world" << QByteArray("{}");
        QTest::addRow("json export of 131072 ranks")
            << "/api/v1/plan/export?dp=131072&format=json"
            << "format=json lists every group and rank: at most 65536 ranks, got world_size 131072."
            << "hint: `meshscope plan --format json` has no such limit"
            << "dp" << QByteArray("{}");
        QTest::addRow("dp not a number") << "/api/v1/plan?dp=abc"
                                         << "dp expects an integer, got 'abc'." << plan_usage << "dp"
                                         << QByteArray("{}");
        QTest::addRow("ep fraction") << "/api/v1/plan?dp=8&ep=1.5"
                                     << "ep expects an integer, got '1.5'." << plan_usage << "ep" << QByteArray("{}");
        QTest::addRow("cp overflow") << "/api/v1/plan?dp=8&cp=99999999999999999999"
                                     << "cp is out of range, got '99999999999999999999'." << plan_usage << "cp"
                                     << QByteArray("{}");
        QTest::addRow("empty world") << "/api/v1/plan?world="
                                     << "world expects an integer, got ''." << plan_usage << "world"
                                     << QByteArray("{}");
        QTest::addRow("bad order") << "/api/v1/plan?dp=8&order=torch27"
                                   << "order must be torch29 or torch28, got 'torch27'." << plan_usage << "order"
                                   << QByteArray(R"({"order": ["torch29", "torch28"]})");
        QTest::addRow("bad form") << "/api/v1/plan?dp=8&form=tiny"
                                  << "form must be full or compact, got 'tiny'." << plan_usage << "form"
                                  << QByteArray(R"({"form": ["full", "compact"]})");
        QTest::addRow("unknown parameter") << "/api/v1/plan?dp=8&tp=2"
                                           << "unknown parameter \"tp\"" << plan_usage << "tp" << QByteArray("{}");
        QTest::addRow("form on the export")
            << "/api/v1/plan/export?dp=8&format=yaml&form=full"
            << "unknown parameter \"form\"" << export_usage << "form" << QByteArray("{}");
        QTest::addRow("bad format") << "/api/v1/plan/export?dp=8&format=xml"
                                    << "format must be json, yaml or torchrun, got 'xml'." << export_usage << "format"
                                    << QByteArray(R"({"format": ["json", "yaml", "torchrun"]})");
        QTest::addRow("no format") << "/api/v1/plan/export?dp=8"
                                   << "format must be json, yaml or torchrun, got ''." << export_usage << "format"
                                   << QByteArray(R"({"format": ["json", "yaml", "torchrun"]})");
        QTest::addRow("no rank") << "/api/v1/plan/rank?dp=8"
                                 << "give rank" << rank_usage << "rank" << QByteArray("{}");
        QTest::addRow("rank not a number")
            << "/api/v1/plan/rank?dp=8&rank=r1"
            << "rank expects an integer, got 'r1'." << rank_usage << "rank" << QByteArray("{}");
        QTest::addRow("rank past the world") << "/api/v1/plan/rank?dp=8&cp=2&rank=16"
                                             << "rank 16 is outside the plan's 16 ranks"
                                             << "hint: ranks are 0 to 15"
                                             << "rank" << QByteArray("{}");
        QTest::addRow("negative rank") << "/api/v1/plan/rank?dp=8&rank=-1"
                                       << "rank -1 is outside the plan's 8 ranks"
                                       << "hint: ranks are 0 to 7"
                                       << "rank" << QByteArray("{}");
        QTest::addRow("hostile text is quoted, not run")
            << "/api/v1/plan?dp=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E"
            << "dp expects an integer, got '<img src=x onerror=alert(1)>'." << plan_usage << "dp" << QByteArray("{}");
    }
    void rejections() {
        QFETCH(QString, target);
        QFETCH(QString, error);
        QFETCH(QString, hint);
        QFETCH(QString, field);
        QFETCH(QByteArray, suggestions);
        const auto reply = get(target);
        QCOMPARE(reply.status, 400);
        QCOMPARE(reply.header("Content-Type"), QByteArray("application/json"));
        const auto body = parse(reply.body);
        QCOMPARE(body["error"].toString(), error);
        QCOMPARE(body["hint"].toString(), hint);
        QCOMPARE(body["field"].toString(), field);
        QCOMPARE(body["suggestions"].toObject(), parse(suggestions));
    }

    // Planning 2^20 ranks walks a million ranks per dim; it runs on the plan worker, so the network thread
    // answers others meanwhile: a health check sent after it is answered before it.
    void big_plans_do_not_hold_the_network_thread() {
        QNetworkRequest big{QUrl(collector_->url + "/api/v1/plan/rank?world=1048576&ep=8&rank=5")};
        big.setRawHeader("Authorization", "Bearer " + token);
        QNetworkReply* plan = nam_.get(big);
        QVERIFY(QTest::qWaitFor([&] { return plan->isRunning(); }, 5000));
        const auto health = get("/api/v1/health");
        QCOMPARE(health.status, 200);
        QVERIFY2(!plan->isFinished(), "the 2^20-rank plan came back before the health check");
        QTRY_VERIFY_WITH_TIMEOUT(plan->isFinished(), 60000);
        QCOMPARE(plan->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
        QCOMPARE(parse(plan->readAll())["node"].toInt(), 0);
        plan->deleteLater();
    }

    // PlanWorker in-process: a reply runs on the worker's thread, so a reply that waits holds it. Then
    // max_waiting requests wait, the next is answered at once with 503 and Retry-After: 1, and stopping answers
    // what waits at once with 503, before the turn in progress ends (the texts of docs/collector.md).
    void plan_worker_bounds_what_waits() {
        using meshscope::server::HttpReply;
        const std::string path = "/api/v1/plan";
        const std::string query = "dp=4&ep=2&gpus_per_node=2";
        std::mutex mutex;
        std::condition_variable changed;
        bool holding = false;
        bool release = false;
        std::map<int, HttpReply> answers;
        const auto record = [&](int i) {
            return [&, i](HttpReply reply) {
                {
                    std::lock_guard lock(mutex);
                    answers[i] = std::move(reply);
                }
                changed.notify_all();
            };
        };
        const auto wait_for = [&](const std::function<bool()>& done) {
            std::unique_lock lock(mutex);
            return changed.wait_for(lock, std::chrono::seconds(30), done);
        };
        auto worker = std::make_unique<meshscope::server::PlanWorker>(2);
        std::jthread stopper;
        const auto release_at_exit = qScopeGuard([&] {
            {
                std::lock_guard lock(mutex);
                release = true;
            }
            changed.notify_all();
        });
        worker->submit(path, query, [&](HttpReply reply) {
            std::unique_lock lock(mutex);
            answers[0] = std::move(reply);
            holding = true;
            changed.notify_all();
            changed.wait(lock, [&] { return release; });
        });
        QVERIFY(wait_for([&] { return holding; }));
        for (int i = 1; i <= 3; ++i) worker->submit(path, query, record(i));
        {
            std::lock_guard lock(mutex);
            QCOMPARE(answers.size(), std::size_t(2));  // the held one and the third: refused at once
            QCOMPARE(answers[3].status, 503);
            QCOMPARE(parse(bytes(answers[3].body))["error"].toString(),
                     QString("too many plan requests waiting: try again"));
            QCOMPARE(answers[3].headers, (std::vector<std::pair<std::string, std::string>>{{"Retry-After", "1"}}));
        }
        stopper = std::jthread([&] { worker.reset(); });  // joins once the held reply returns
        QVERIFY(wait_for([&] { return answers.count(1) == 1 && answers.count(2) == 1; }));
        {
            std::lock_guard lock(mutex);
            for (int i : {1, 2}) {
                QCOMPARE(answers[i].status, 503);
                QCOMPARE(parse(bytes(answers[i].body))["error"].toString(), QString("the collector is stopping"));
            }
            QCOMPARE(answers[0].status, 200);
        }
    }

    // Plan routes are /api/ routes: the token, and GET only.
    void token_and_method() {
        QCOMPARE(get("/api/v1/plan?dp=8", {}).status, 401);
        QCOMPARE(get("/api/v1/plan/export?dp=8&format=yaml", "wrong").status, 401);
        QCOMPARE(get("/api/v1/plan/rank?dp=8&rank=0", {}).status, 401);
        QCOMPARE(test::http(nam_, "POST", collector_->url + "/api/v1/plan?dp=8", "{}", token).status, 405);
        QCOMPARE(get("/api/v1/plan/nothing?dp=8").status, 404);
    }
};

QTEST_GUILESS_MAIN(PlanApiTest)
#include "tst_plan_api.moc"
