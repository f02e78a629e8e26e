// Placement, placement warnings and the plan's JSON contract (meshscope.plan/1), both directions.
#include <QTest>

#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "meshscope/mesh/parallel_state.h"
#include "meshscope/mesh/placement.h"
#include "meshscope/mesh/plan.h"
#include "meshscope/mesh/plan_json.h"
#include "test_support.h"

using namespace meshscope;
using nlohmann::json;

namespace {
Plan plan_of(std::int64_t dp, std::int64_t cp, std::int64_t ep, std::int64_t gpus = 8,
             CreationOrder order = CreationOrder::torch29) {
    return Plan::make(Topology::make(dp, cp, ep).value(), gpus, order).value();
}

QString codes(const std::vector<Warning>& warnings) {
    QStringList out;
    for (const auto& w : warnings) out << QString::fromStdString(w.code);
    return out.join(',');
}
}  // namespace

class PlanTest : public QObject {
    Q_OBJECT
private slots:
    void placement_data() {
        QTest::addColumn<qint64>("world");
        QTest::addColumn<qint64>("gpus");
        QTest::addColumn<qint64>("rank");
        QTest::addColumn<qint64>("node");
        QTest::addColumn<qint64>("local");
        QTest::addColumn<qint64>("nodes");
        QTest::addRow("rank 13 of 16") << 16LL << 8LL << 13LL << 1LL << 5LL << 2LL;
        QTest::addRow("rank 0") << 16LL << 8LL << 0LL << 0LL << 0LL << 2LL;
        QTest::addRow("partial last node") << 12LL << 8LL << 11LL << 1LL << 3LL << 2LL;
        QTest::addRow("one GPU per node") << 4LL << 1LL << 3LL << 3LL << 0LL << 4LL;
        QTest::addRow("4 per node") << 32LL << 4LL << 17LL << 4LL << 1LL << 8LL;
    }
    void placement() {
        QFETCH(qint64, world);
        QFETCH(qint64, gpus);
        QFETCH(qint64, rank);
        QFETCH(qint64, node);
        QFETCH(qint64, local);
        QFETCH(qint64, nodes);
        const auto p = Placement::make(world, gpus).value();
        QCOMPARE(p.node_of(rank), node);
        QCOMPARE(p.local_rank_of(rank), local);
        QCOMPARE(p.nodes(), nodes);
    }

    void placement_errors() {
        COMPARE_ERROR(Placement::make(16, 0), ErrorType::value_error,
                      std::string("gpus_per_node must be positive, got 0."));
        COMPARE_ERROR(Placement::make(16, -8), ErrorType::value_error,
                      std::string("gpus_per_node must be positive, got -8."));
        COMPARE_ERROR(Placement::make(0, 8), ErrorType::value_error,
                      std::string("world_size must be positive, got 0."));
        COMPARE_ERROR(Plan::make(Topology::make(16, 1, 2).value(), 0), ErrorType::value_error,
                      std::string("gpus_per_node must be positive, got 0."));
    }

    void leaves_node_check() {
        const auto p = Placement::make(16, 8).value();
        QVERIFY(!leaves_node(Ints{0, 1, 7}, p));
        QVERIFY(leaves_node(Ints{0, 8}, p));
        QVERIFY(leaves_node(Ints{7, 8}, p));
        QVERIFY(!leaves_node(Ints{}, p));
    }

    void spans_data() {
        QTest::addColumn<qint64>("dp");
        QTest::addColumn<qint64>("cp");
        QTest::addColumn<qint64>("ep");
        QTest::addColumn<qint64>("gpus");
        QTest::addColumn<QString>("dim");
        QTest::addColumn<qint64>("groups");
        QTest::addColumn<qint64>("cross");
        QTest::addColumn<qint64>("max_nodes");
        QTest::addRow("dp16 ep8 ep") << 16LL << 1LL << 8LL << 8LL << "ep" << 2LL << 0LL << 1LL;
        QTest::addRow("dp16 ep8 efsdp") << 16LL << 1LL << 8LL << 8LL << "efsdp" << 8LL << 8LL << 2LL;
        QTest::addRow("dp16 ep16 ep") << 16LL << 1LL << 16LL << 8LL << "ep" << 1LL << 1LL << 2LL;
        QTest::addRow("dp32 ep16 4 per node") << 32LL << 1LL << 16LL << 4LL << "ep" << 2LL << 2LL << 4LL;
        QTest::addRow("dp8 cp2 ep4 ep") << 8LL << 2LL << 4LL << 4LL << "ep" << 4LL << 4LL << 2LL;
    }
    void spans() {
        QFETCH(qint64, dp);
        QFETCH(qint64, cp);
        QFETCH(qint64, ep);
        QFETCH(qint64, gpus);
        QFETCH(QString, dim);
        QFETCH(qint64, groups);
        QFETCH(qint64, cross);
        QFETCH(qint64, max_nodes);
        const auto plan = plan_of(dp, cp, ep, gpus);
        const auto* expert = plan.mesh("expert");
        QVERIFY(expert);
        const auto d = expert->mesh.dim_index(dim.toStdString()).value();
        const auto& span = expert->spans[d];
        QCOMPARE(QString::fromStdString(span.mesh), QStringLiteral("expert"));
        QCOMPARE(QString::fromStdString(span.dim), dim);
        QCOMPARE(span.group_size, expert->mesh.dim_size(d));
        QCOMPARE(span.groups, groups);
        QCOMPARE(span.cross_node_groups, cross);
        QCOMPARE(span.max_nodes, max_nodes);
        // The same numbers, counted the slow way.
        std::int64_t slow_cross = 0, slow_max = 0;
        for (const auto& g : expert->mesh.groups(d, CreationOrder::torch29)) {
            std::set<std::int64_t> nodes;
            for (auto r : g) nodes.insert(plan.placement().node_of(r));
            slow_cross += nodes.size() > 1;
            slow_max = std::max<std::int64_t>(slow_max, static_cast<std::int64_t>(nodes.size()));
        }
        QCOMPARE(span.cross_node_groups, slow_cross);
        QCOMPARE(span.max_nodes, slow_max);
    }

    void warnings_data() {
        QTest::addColumn<qint64>("dp");
        QTest::addColumn<qint64>("cp");
        QTest::addColumn<qint64>("ep");
        QTest::addColumn<qint64>("gpus");
        QTest::addColumn<QString>("codes");
        QTest::addColumn<QString>("first_message");
        QTest::addRow("fits") << 16LL << 1LL << 8LL << 8LL << ""
                              << "";
        QTest::addRow("ep16 on 8-GPU nodes") << 16LL << 1LL << 16LL << 8LL << "ep_cross_node"
                                             << "ep groups span 2 nodes: the all-to-all leaves NVLink";
        QTest::addRow("ep16 on 4-GPU nodes") << 32LL << 1LL << 16LL << 4LL << "ep_cross_node"
                                             << "ep groups span 4 nodes: the all-to-all leaves NVLink";
        QTest::addRow("one GPU per node")
            << 8LL << 2LL << 2LL << 1LL << "cp_cross_node,ep_cross_node,expert_cp_cross_node"
            << "cp groups span 2 nodes: context-parallel exchanges leave NVLink";
        QTest::addRow("partial node") << 12LL << 1LL << 2LL << 8LL << "partial_node"
                                      << "world size 12 is not a multiple of 8 GPUs per node: node 1 runs only 4 ranks";
        QTest::addRow("ep1 has no expert warning") << 16LL << 1LL << 1LL << 1LL << ""
                                                   << "";
    }
    void warnings() {
        QFETCH(qint64, dp);
        QFETCH(qint64, cp);
        QFETCH(qint64, ep);
        QFETCH(qint64, gpus);
        QFETCH(QString, codes);
        QFETCH(QString, first_message);
        const auto plan = plan_of(dp, cp, ep, gpus);
        QCOMPARE(::codes(plan.warnings()), codes);
        if (!plan.warnings().empty()) QCOMPARE(QString::fromStdString(plan.warnings().front().message), first_message);
    }

    void experts_per_rank_check() {
        QCOMPARE(experts_per_rank(256, 8).value(), 32);
        COMPARE_ERROR(experts_per_rank(256, 3), ErrorType::value_error,
                      std::string("num_experts must be divisible by ep_size, got 256 % 3 != 0."));
        COMPARE_ERROR(experts_per_rank(0, 8), ErrorType::value_error,
                      std::string("num_experts must be positive, got 0."));
        COMPARE_ERROR(experts_per_rank(8, 0), ErrorType::value_error, std::string("ep_size must be positive, got 0."));
    }

    // The document has the issue's shape, field by field.
    void json_contract() {
        const auto doc = to_json(plan_of(16, 1, 8));
        QCOMPARE(QString::fromStdString(doc["schema"].get<std::string>()), QStringLiteral("meshscope.plan/1"));
        QVERIFY(doc["topology"] ==
                json::parse(R"({"world":16,"dp":16,"cp":1,"ep":8,"efsdp":2,"edp":1,"mp_replicate":1,"mp_shard":16})"));
        QVERIFY(doc["cluster"] == json::parse(R"({"gpus_per_node":8,"nodes":2})"));
        QVERIFY(doc["creation_order"] == "torch29");
        QCOMPARE(doc["meshes"].size(), 3u);
        // LlamaFactory's model mesh comes first (it is built first), with its defaults (1, world).
        const auto& model = doc["meshes"][0];
        QVERIFY(model["name"] == "model");
        QVERIFY(model["dim_names"] == json::parse(R"(["mp_replicate","mp_shard"])"));
        QVERIFY(model["shape"] == json::parse("[1,16]"));
        QVERIFY(model["groups"]["mp_shard"] == json::parse("[[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]]"));
        QCOMPARE(model["groups"]["mp_replicate"].size(), 16u);
        const auto& data = doc["meshes"][1];
        QVERIFY(data["name"] == "data");
        QVERIFY(data["dim_names"] == json::parse(R"(["dp","cp"])"));
        QVERIFY(data["shape"] == json::parse("[16,1]"));
        QVERIFY(data["groups"]["dp"] == json::parse("[[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]]"));
        QCOMPARE(data["groups"]["cp"].size(), 16u);
        const auto& expert = doc["meshes"][2];
        QVERIFY(expert["name"] == "expert");
        QVERIFY(expert["dim_names"] == json::parse(R"(["edp","efsdp","ep","expert_cp"])"));
        QVERIFY(expert["shape"] == json::parse("[1,2,8,1]"));
        QVERIFY(expert["groups"]["efsdp"] == json::parse("[[0,8],[1,9],[2,10],[3,11],[4,12],[5,13],[6,14],[7,15]]"));
        QVERIFY(expert["groups"]["ep"] == json::parse("[[0,1,2,3,4,5,6,7],[8,9,10,11,12,13,14,15]]"));
        QVERIFY(expert["spans"]["efsdp"] ==
                json::parse(R"({"group_size":2,"groups":8,"cross_node_groups":8,"max_nodes":2})"));
        QCOMPARE(doc["ranks"].size(), 16u);
        QVERIFY(
            doc["ranks"][13] ==
            json::parse(
                R"({"rank":13,"node":1,"local_rank":5,"coords":{"model":[0,13],"data":[13,0],"expert":[0,1,5,0]}})"));
        QVERIFY(doc["warnings"] == json::array());

        const auto ep1 = to_json(plan_of(4, 2, 1));
        QCOMPARE(ep1["meshes"].size(), 2u);
        QVERIFY(ep1["ranks"][5]["coords"] == json::parse(R"({"model":[0,5],"data":[2,1]})"));

        const auto warned = to_json(plan_of(16, 1, 16));
        QVERIFY(warned["warnings"] ==
                json::parse(
                    R"([{"code":"ep_cross_node","message":"ep groups span 2 nodes: the all-to-all leaves NVLink"}])"));
    }

    void json_options() {
        const auto plan = plan_of(8, 2, 2);
        const auto bare = to_json(plan, PlanJsonOptions{false, false});
        QVERIFY(!bare.contains("ranks"));
        for (const auto& m : bare["meshes"]) {
            QVERIFY(!m.contains("groups"));
            QVERIFY(m.contains("spans"));
        }
        QVERIFY(to_json(plan, PlanJsonOptions{true, false})["meshes"][0].contains("groups"));
        QVERIFY(to_json(plan, PlanJsonOptions{false, true}).contains("ranks"));
        // The streamed text is the same document as to_json.
        std::ostringstream out;
        write_plan_json(out, plan);
        QVERIFY(json::parse(out.str()) == to_json(plan));
    }

    // LlamaFactory's model mesh (mp_replicate, mp_shard), groups worked by hand from the row-major layout:
    // rank = r_coord * mp_shard + s_coord.
    void model_mesh_data() {
        QTest::addColumn<qint64>("world");
        QTest::addColumn<qint64>("mp_replicate");
        QTest::addColumn<Ints>("shape");
        QTest::addColumn<IntGroups>("replicate_groups");
        QTest::addColumn<IntGroups>("shard_groups");
        QTest::addColumn<qint64>("rank");
        QTest::addColumn<Ints>("coordinate");
        QTest::addRow("defaults (1, 4)") << 4LL << 1LL << Ints{1, 4} << IntGroups{{0}, {1}, {2}, {3}}
                                         << IntGroups{{0, 1, 2, 3}} << 3LL << Ints{0, 3};
        QTest::addRow("(2, 8) of 16") << 16LL << 2LL << Ints{2, 8}
                                      << IntGroups{{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}}
                                      << IntGroups{{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}} << 13LL
                                      << Ints{1, 5};
        QTest::addRow("(4, 2) of 8") << 8LL << 4LL << Ints{4, 2} << IntGroups{{0, 2, 4, 6}, {1, 3, 5, 7}}
                                     << IntGroups{{0, 1}, {2, 3}, {4, 5}, {6, 7}} << 5LL << Ints{2, 1};
        QTest::addRow("all replicate (6, 1)") << 6LL << 6LL << Ints{6, 1} << IntGroups{{0, 1, 2, 3, 4, 5}}
                                              << IntGroups{{0}, {1}, {2}, {3}, {4}, {5}} << 4LL << Ints{4, 0};
    }
    void model_mesh() {
        QFETCH(qint64, world);
        QFETCH(qint64, mp_replicate);
        QFETCH(Ints, shape);
        QFETCH(IntGroups, replicate_groups);
        QFETCH(IntGroups, shard_groups);
        QFETCH(qint64, rank);
        QFETCH(Ints, coordinate);
        const auto topology = Topology::from_world(world, 1, 1, ModelMeshSizes{mp_replicate, std::nullopt}).value();
        QCOMPARE(topology.mp_replicate, shape[0]);
        QCOMPARE(topology.mp_shard, shape[1]);
        for (const auto order : {CreationOrder::torch29, CreationOrder::torch28}) {
            const auto plan = Plan::make(topology, 8, order).value();
            QCOMPARE(QString::fromStdString(plan.meshes().front().name), QStringLiteral("model"));
            const auto* model = plan.mesh("model");
            QVERIFY(model);
            COMPARE_INTS(model->mesh.shape(), shape);
            QVERIFY(model->mesh.dim_names() == (Names{"mp_replicate", "mp_shard"}));
            // Two dims: both creation orders list the groups the same way.
            COMPARE_INTS(model->mesh.groups(0, order), replicate_groups);
            COMPARE_INTS(model->mesh.groups(1, order), shard_groups);
            COMPARE_INTS(model->mesh.coordinate(rank), coordinate);
        }
    }

    // Meshes in the order every rank creates their groups: model, data, then expert.
    void meshes_in_creation_order() {
        auto names = [](const Plan& plan) {
            QStringList out;
            for (const auto& pm : plan.meshes()) out << QString::fromStdString(pm.name);
            return out;
        };
        QCOMPARE(names(plan_of(16, 1, 8)), (QStringList{"model", "data", "expert"}));
        QCOMPARE(names(plan_of(8, 2, 1)), (QStringList{"model", "data"}));
    }

    void model_mesh_round_trip() {
        const auto topology = Topology::make(8, 2, 2, ModelMeshSizes{4, 4}).value();
        const auto plan = Plan::make(topology, 4).value();
        const auto doc = to_json(plan);
        QVERIFY(doc["topology"]["mp_replicate"] == 4);
        QVERIFY(doc["topology"]["mp_shard"] == 4);
        const auto back = plan_from_json(doc);
        QVERIFY2(back.has_value(), back.has_value() ? "" : back.error().what());
        QVERIFY(back->topology() == topology);
        QVERIFY(to_json(*back) == doc);
        // A plan written before the model mesh existed reads with LlamaFactory's defaults (1, world).
        const auto old =
            plan_from_json(json{{"schema", "meshscope.plan/1"}, {"topology", {{"dp", 8}, {"cp", 2}, {"ep", 2}}}});
        QVERIFY(old.has_value());
        QCOMPARE(old->topology().mp_replicate, 1);
        QCOMPARE(old->topology().mp_shard, 16);
    }

    void json_torch28_groups() {
        const auto plan = plan_of(12, 3, 2, 8, CreationOrder::torch28);
        const auto doc = to_json(plan);
        QVERIFY(doc["creation_order"] == "torch28");
        const auto& mesh = plan.mesh("expert")->mesh;
        for (std::size_t d = 0; d < mesh.ndim(); ++d)
            QVERIFY(doc["meshes"][2]["groups"][mesh.dim_names()[d]] == json(mesh.groups(d, CreationOrder::torch28)));
    }

    void round_trip_data() {
        QTest::addColumn<qint64>("dp");
        QTest::addColumn<qint64>("cp");
        QTest::addColumn<qint64>("ep");
        QTest::addColumn<qint64>("gpus");
        QTest::addColumn<meshscope::CreationOrder>("order");
        QTest::addRow("dp16 ep8") << 16LL << 1LL << 8LL << 8LL << CreationOrder::torch29;
        QTest::addRow("dp8 cp2 ep2 torch28") << 8LL << 2LL << 2LL << 4LL << CreationOrder::torch28;
        QTest::addRow("ep1") << 6LL << 2LL << 1LL << 8LL << CreationOrder::torch29;
        QTest::addRow("warnings") << 32LL << 3LL << 16LL << 4LL << CreationOrder::torch28;
    }
    void round_trip() {
        QFETCH(qint64, dp);
        QFETCH(qint64, cp);
        QFETCH(qint64, ep);
        QFETCH(qint64, gpus);
        QFETCH(meshscope::CreationOrder, order);
        const auto plan = plan_of(dp, cp, ep, gpus, order);
        for (const auto options : {PlanJsonOptions{}, PlanJsonOptions{false, false}}) {
            const auto doc = to_json(plan, options);
            const auto back = plan_from_json(doc);
            QVERIFY2(back.has_value(), back.has_value() ? "" : back.error().what());
            QVERIFY(back->topology() == plan.topology());
            QVERIFY(back->placement() == plan.placement());
            QCOMPARE(back->order(), plan.order());
            QVERIFY(back->warnings() == plan.warnings());
            QVERIFY(to_json(*back, options) == doc);
        }
        // The minimal document: schema and topology.
        const auto minimal =
            plan_from_json(json{{"schema", "meshscope.plan/1"}, {"topology", {{"dp", dp}, {"cp", cp}, {"ep", ep}}}});
        QVERIFY(minimal.has_value());
        QCOMPARE(minimal->placement().gpus_per_node, 8);
        QCOMPARE(minimal->order(), CreationOrder::torch29);
    }

    void rejections_data() {
        QTest::addColumn<QString>("edit");  // a JSON merge patch on a valid dp8 cp2 ep2 plan
        QTest::addColumn<QString>("message");
        QTest::addRow("wrong schema")
            << R"({"schema":"meshscope.plan/2"})"
            << R"(invalid plan: unsupported schema "meshscope.plan/2", expected "meshscope.plan/1")";
        QTest::addRow("no schema") << R"({"schema":null})"
                                   << R"(invalid plan: missing "schema")";
        QTest::addRow("schema not a string") << R"({"schema":1})"
                                             << R"(invalid plan: missing "schema")";
        QTest::addRow("no topology") << R"({"topology":null})"
                                     << R"(invalid plan: missing "topology")";
        QTest::addRow("no dp") << R"({"topology":{"dp":null}})"
                               << R"(invalid plan: missing "topology.dp")";
        QTest::addRow("ep a string") << R"({"topology":{"ep":"2"}})"
                                     << R"(invalid plan: "topology.ep" must be an integer)";
        QTest::addRow("cp a float") << R"({"topology":{"cp":2.5}})"
                                    << R"(invalid plan: "topology.cp" must be an integer)";
        QTest::addRow("ep invalid") << R"({"topology":{"ep":3}})"
                                    << "dp_size must be divisible by ep_size, got 8 % 3 != 0.";
        QTest::addRow("world disagrees") << R"({"topology":{"world":32}})"
                                         << R"(invalid plan: "topology.world" is 32 but (8, 2, 2) implies 16)";
        QTest::addRow("efsdp disagrees") << R"({"topology":{"efsdp":2}})"
                                         << R"(invalid plan: "topology.efsdp" is 2 but (8, 2, 2) implies 4)";
        // Found by fuzz/fuzz_plan_reader: rebuilding a world this large asked for a 2^40-entry allocation
        // (std::bad_alloc, ASan's allocation-size-too-big); 2^20 + 1 is the first world refused.
        QTest::addRow("world of 2^40 (fuzz)")
            << R"({"topology":{"world":null,"efsdp":null,"edp":null,"mp_replicate":null,"mp_shard":null,"dp":1099511627776,"cp":1,"ep":1}})"
            << R"(invalid plan: "topology" (1099511627776, 1, 1) covers 1099511627776 ranks; plans are read back up to 1048576)";
        QTest::addRow("world of 2^20 + 1 (fuzz)")
            << R"({"topology":{"world":null,"efsdp":null,"edp":null,"mp_replicate":null,"mp_shard":null,"dp":1048577,"cp":1,"ep":1}})"
            << R"(invalid plan: "topology" (1048577, 1, 1) covers 1048577 ranks; plans are read back up to 1048576)";
        QTest::addRow("gpus 0") << R"({"cluster":{"gpus_per_node":0}})"
                                << "gpus_per_node must be positive, got 0.";
        QTest::addRow("cluster not object") << R"({"cluster":[]})"
                                            << R"(invalid plan: "cluster" must be an object)";
        QTest::addRow("bad order") << R"({"creation_order":"torch27"})"
                                   << R"(invalid plan: "creation_order" must be "torch29" or "torch28")";
        QTest::addRow("meshes not array") << R"({"meshes":{}})"
                                          << R"(invalid plan: "meshes" must be an array)";
        QTest::addRow("unknown mesh") << R"({"meshes":[{"name":"tensor"}]})"
                                      << R"(invalid plan: mesh "tensor" is not part of topology (8, 2, 2))";
        QTest::addRow("mp_replicate a string") << R"({"topology":{"mp_replicate":"2"}})"
                                               << R"(invalid plan: "topology.mp_replicate" must be an integer)";
        QTest::addRow("mp_replicate 3 of 16") << R"({"topology":{"mp_replicate":3,"mp_shard":null}})"
                                              << "world_size (16) must be divisible by mp_replicate_size (3).";
        QTest::addRow("mp_shard disagrees") << R"({"topology":{"mp_replicate":2,"mp_shard":4}})"
                                            << "mp_replicate_size * mp_shard_size must equal to world_size, got 2 "
                                               "* 4 != 16.";
        QTest::addRow("model shape disagrees")
            << R"({"meshes":[{"name":"model","shape":[2,8]}]})"
            << R"(invalid plan: mesh "model" has shape [2,8] but (8, 2, 2) implies [1,16])";
        QTest::addRow("nameless mesh") << R"({"meshes":[{"shape":[8,2]}]})"
                                       << R"(invalid plan: a mesh lacks "name")";
        QTest::addRow("wrong shape") << R"({"meshes":[{"name":"data","shape":[2,8]}]})"
                                     << R"(invalid plan: mesh "data" has shape [2,8] but (8, 2, 2) implies [8,2])";
        QTest::addRow("wrong groups") << R"({"meshes":[{"name":"expert","groups":{"ep":[[0,1],[2,3]]}}]})"
                                      << "invalid plan: groups of expert.ep do not match topology (8, 2, 2) in "
                                         "torch29 order";
        QTest::addRow("groups not object") << R"({"meshes":[{"name":"data","groups":[]}]})"
                                           << R"(invalid plan: "data.groups" must be an object)";
    }
    void rejections() {
        QFETCH(QString, edit);
        QFETCH(QString, message);
        auto doc = to_json(plan_of(8, 2, 2));
        doc.merge_patch(json::parse(edit.toStdString()));
        const auto plan = plan_from_json(doc);
        QVERIFY(!plan.has_value());
        QCOMPARE(QString::fromStdString(plan.error().message()), message);
    }

    void rejects_non_objects() {
        COMPARE_ERROR(plan_from_json(json::array()), ErrorType::value_error,
                      std::string("invalid plan: the document must be a JSON object"));
        COMPARE_ERROR(plan_from_json(json("meshscope.plan/1")), ErrorType::value_error,
                      std::string("invalid plan: the document must be a JSON object"));
    }

    // Groups listed in the other creation order are caught: torch28 and torch29 differ for this mesh.
    void rejects_groups_in_other_order() {
        auto doc = to_json(plan_of(12, 3, 2, 8, CreationOrder::torch28));
        doc["creation_order"] = "torch29";
        const auto plan = plan_from_json(doc);
        QVERIFY(!plan.has_value());
        QCOMPARE(
            QString::fromStdString(plan.error().message()),
            QStringLiteral("invalid plan: groups of expert.edp do not match topology (12, 3, 2) in torch29 order"));
    }
};

QTEST_GUILESS_MAIN(PlanTest)
#include "tst_plan.moc"
