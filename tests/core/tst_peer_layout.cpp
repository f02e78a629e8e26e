// Peer layouts: FSDPTurbo, TorchTitan and Megatron-Core laying out one (world, cp, ep), against expected groups
// worked by hand from each framework's published definition (docs/peers.md cites the commits), never from
// core's own builders:
//   FSDPTurbo   the expert mesh (edp = 1, efsdp, ep, cp) row-major: rank = (f * ep + e) * cp + c; groups of a dim
//               in lexicographic order of the other coordinates (shared/docs/domain.md, sections 1 and 2).
//   TorchTitan  the sparse mesh (pp = 1, dp_replicate = 1, efsdp, ep) row-major: rank = f * ep + e
//               (ParallelDims.build_mesh; configs.py: "efsdp = dp_shard * cp * tp / ep").
//   Megatron    the expert ranks of test_parallel_state.py's golden (arange(world).reshape(pp, edp, ep, tp)):
//               ep groups are the rows, expert dp groups the columns, in row / column order.
// plus Megatron's generate_masked_orthogonal_rank_groups docstring examples and the frameworks' error texts.
// tests/core/peers_reference.py checks the same three against an independent Python reference on more shapes.
#include <QTest>

#include <array>

#include <nlohmann/json.hpp>

#include "meshscope/mesh/peer_json.h"
#include "meshscope/mesh/peer_layout.h"
#include "test_support.h"

using namespace meshscope;

Q_DECLARE_METATYPE(meshscope::Framework)

namespace {
// Shapes (world, cp, ep) every framework lays out: ep divides dp = world / cp.
struct Shape {
    std::int64_t world, cp, ep;
};
constexpr Shape shared_shapes[] = {
    {1, 1, 1},  {2, 1, 2},  {4, 1, 2},  {4, 1, 4},   {8, 1, 8},   {8, 2, 2},  {8, 2, 4},    {16, 1, 2}, {16, 1, 8},
    {16, 2, 2}, {16, 2, 4}, {16, 4, 2}, {16, 4, 4},  {16, 1, 16}, {24, 2, 3}, {24, 3, 2},   {32, 2, 8}, {32, 4, 8},
    {48, 3, 4}, {64, 1, 8}, {64, 2, 8}, {64, 4, 16}, {12, 2, 3},  {18, 3, 3}, {128, 2, 16}, {16, 2, 1}, {64, 8, 8},
};
// Shapes only TorchTitan and Megatron-Core lay out: ep divides the world but not dp.
constexpr Shape wide_ep_shapes[] = {{16, 4, 8}, {8, 4, 8}, {12, 4, 6}, {32, 8, 16}, {16, 2, 16}};

using Dims = std::vector<std::pair<std::string, IntGroups>>;

// FSDPTurbo's expert mesh, rank = (f * ep + e) * cp + c; a dim's groups come by the other coordinates,
// lexicographically (edp, then efsdp, ep, expert_cp, the last fastest).
Dims fsdpturbo_expected(const Shape& s) {
    if (s.ep == 1) {
        IntGroups alone;
        for (std::int64_t r = 0; r < s.world; ++r) alone.push_back({r});
        return {{"ep", alone}};
    }
    const std::int64_t efsdp = s.world / s.cp / s.ep;
    const auto rank = [&](std::int64_t f, std::int64_t e, std::int64_t c) { return (f * s.ep + e) * s.cp + c; };
    IntGroups ep, edp, fs, xcp;
    for (std::int64_t f = 0; f < efsdp; ++f)
        for (std::int64_t c = 0; c < s.cp; ++c) {
            ep.emplace_back();
            for (std::int64_t e = 0; e < s.ep; ++e) ep.back().push_back(rank(f, e, c));
        }
    for (std::int64_t r = 0; r < s.world; ++r) edp.push_back({r});  // edp = 1: the rank order itself
    for (std::int64_t e = 0; e < s.ep; ++e)
        for (std::int64_t c = 0; c < s.cp; ++c) {
            fs.emplace_back();
            for (std::int64_t f = 0; f < efsdp; ++f) fs.back().push_back(rank(f, e, c));
        }
    for (std::int64_t f = 0; f < efsdp; ++f)
        for (std::int64_t e = 0; e < s.ep; ++e) {
            xcp.emplace_back();
            for (std::int64_t c = 0; c < s.cp; ++c) xcp.back().push_back(rank(f, e, c));
        }
    return {{"ep", ep}, {"edp", edp}, {"efsdp", fs}, {"expert_cp", xcp}};
}

// Rows and columns of a (world / ep, ep) row-major table: the ep groups and the groups across them.
std::pair<IntGroups, IntGroups> rows_and_columns(const Shape& s) {
    IntGroups rows, columns;
    for (std::int64_t k = 0; k < s.world / s.ep; ++k) rows.push_back(test::iota(k * s.ep, (k + 1) * s.ep));
    for (std::int64_t e = 0; e < s.ep; ++e) columns.push_back(test::iota(e, s.world, s.ep));
    return {rows, columns};
}

Dims torchtitan_expected(const Shape& s) {
    auto [rows, columns] = rows_and_columns(s);
    if (s.ep == 1) return {{"ep", rows}};  // efsdp is fake-backed without ep
    return {{"ep", rows}, {"efsdp", columns}};
}

Dims megatron_expected(const Shape& s) {
    auto [rows, columns] = rows_and_columns(s);
    return {{"ep", rows}, {"expt_dp", columns}};
}

QByteArray label(const char* framework, const Shape& s) {
    return QByteArray(framework) + " W" + QByteArray::number(s.world) + " cp" + QByteArray::number(s.cp) + " ep" +
           QByteArray::number(s.ep);
}
}  // namespace

Q_DECLARE_METATYPE(Dims)

class PeerLayoutTest : public QObject {
    Q_OBJECT
private slots:
    // Every dim of every framework, groups in creation order, on 27 shapes each (32 for TorchTitan, Megatron).
    void groups_data() {
        QTest::addColumn<Framework>("framework");
        QTest::addColumn<qint64>("world");
        QTest::addColumn<qint64>("cp");
        QTest::addColumn<qint64>("ep");
        QTest::addColumn<Dims>("expected");
        for (const auto& s : shared_shapes) {
            QTest::addRow("%s", label("fsdpturbo", s).constData())
                << Framework::fsdpturbo << qint64(s.world) << qint64(s.cp) << qint64(s.ep) << fsdpturbo_expected(s);
            QTest::addRow("%s", label("torchtitan", s).constData())
                << Framework::torchtitan << qint64(s.world) << qint64(s.cp) << qint64(s.ep) << torchtitan_expected(s);
            QTest::addRow("%s", label("megatron", s).constData())
                << Framework::megatron << qint64(s.world) << qint64(s.cp) << qint64(s.ep) << megatron_expected(s);
        }
        for (const auto& s : wide_ep_shapes) {
            QTest::addRow("%s", label("torchtitan", s).constData())
                << Framework::torchtitan << qint64(s.world) << qint64(s.cp) << qint64(s.ep) << torchtitan_expected(s);
            QTest::addRow("%s", label("megatron", s).constData())
                << Framework::megatron << qint64(s.world) << qint64(s.cp) << qint64(s.ep) << megatron_expected(s);
        }
    }
    void groups() {
        QFETCH(Framework, framework);
        QFETCH(qint64, world);
        QFETCH(qint64, cp);
        QFETCH(qint64, ep);
        QFETCH(Dims, expected);
        const auto layout = peer_layout(framework, {.world = world, .cp = cp, .ep = ep});
        QVERIFY2(layout.has_value(), layout.has_value() ? "" : layout.error().message().c_str());
        QCOMPARE(layout->framework, framework);
        QCOMPARE(layout->dims.size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            QCOMPARE(QString::fromStdString(layout->dims[i].name), QString::fromStdString(expected[i].first));
            COMPARE_INTS(layout->dims[i].groups, expected[i].second);
        }
    }

    // shared/docs/domain.md, section 3: the same world, different groups.
    void domain_case() {
        const PeerShape shape{.world = 16, .cp = 2, .ep = 2};
        COMPARE_INTS(peer_layout(Framework::fsdpturbo, shape)->dim("ep")->groups,
                     (IntGroups{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}}));
        const IntGroups pairs{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}};
        COMPARE_INTS(peer_layout(Framework::torchtitan, shape)->dim("ep")->groups, pairs);
        COMPARE_INTS(peer_layout(Framework::megatron, shape)->dim("ep")->groups, pairs);
        // domain.md section 2's expert mesh for dp=8, cp=2, ep=2.
        COMPARE_INTS(peer_layout(Framework::fsdpturbo, shape)->dim("efsdp")->groups,
                     (IntGroups{{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}}));
        COMPARE_INTS(peer_layout(Framework::fsdpturbo, shape)->dim("expert_cp")->groups, pairs);
    }

    // Groups with members on more than one node, counted by hand (node = rank / gpus_per_node).
    void cross_node_data() {
        QTest::addColumn<Framework>("framework");
        QTest::addColumn<qint64>("world");
        QTest::addColumn<qint64>("cp");
        QTest::addColumn<qint64>("ep");
        QTest::addColumn<qint64>("gpus");
        QTest::addColumn<QString>("dim");
        QTest::addColumn<qint64>("crossing");
        // W16 cp2 ep2, 8 a node: ep pairs stay in a node everywhere; efsdp [0,4,8,12] spans both nodes.
        QTest::addRow("fsdpturbo W16 ep") << Framework::fsdpturbo << 16LL << 2LL << 2LL << 8LL << "ep" << 0LL;
        QTest::addRow("fsdpturbo W16 efsdp") << Framework::fsdpturbo << 16LL << 2LL << 2LL << 8LL << "efsdp" << 4LL;
        QTest::addRow("torchtitan W16 efsdp") << Framework::torchtitan << 16LL << 2LL << 2LL << 8LL << "efsdp" << 2LL;
        QTest::addRow("megatron W16 expt_dp") << Framework::megatron << 16LL << 2LL << 2LL << 8LL << "expt_dp" << 2LL;
        // W64 cp2 ep8: FSDPTurbo's ep [0,2,...,14] leaves its node (all 8 groups); the peers' [0..7] never do.
        QTest::addRow("fsdpturbo W64 cp2 ep") << Framework::fsdpturbo << 64LL << 2LL << 8LL << 8LL << "ep" << 8LL;
        QTest::addRow("torchtitan W64 cp2 ep") << Framework::torchtitan << 64LL << 2LL << 8LL << 8LL << "ep" << 0LL;
        QTest::addRow("megatron W64 cp2 ep") << Framework::megatron << 64LL << 2LL << 8LL << 8LL << "ep" << 0LL;
        // W64 cp1 ep8: all three agree; every efsdp / expt_dp column [e, e+8, ...] crosses nodes.
        QTest::addRow("fsdpturbo W64 ep") << Framework::fsdpturbo << 64LL << 1LL << 8LL << 8LL << "ep" << 0LL;
        QTest::addRow("fsdpturbo W64 efsdp") << Framework::fsdpturbo << 64LL << 1LL << 8LL << 8LL << "efsdp" << 8LL;
        QTest::addRow("megatron W64 expt_dp") << Framework::megatron << 64LL << 1LL << 8LL << 8LL << "expt_dp" << 8LL;
        // 4 GPUs a node: W16 cp2 ep4 FSDPTurbo ep [0,2,4,6] spans nodes 0-1: every one of its 4 groups.
        QTest::addRow("fsdpturbo 4 a node") << Framework::fsdpturbo << 16LL << 2LL << 4LL << 4LL << "ep" << 4LL;
        QTest::addRow("torchtitan 4 a node") << Framework::torchtitan << 16LL << 2LL << 4LL << 4LL << "ep" << 0LL;
        // ep 16 on 8 a node: every ep group spans two nodes.
        QTest::addRow("megatron ep16") << Framework::megatron << 16LL << 1LL << 16LL << 8LL << "ep" << 1LL;
    }
    void cross_node() {
        QFETCH(Framework, framework);
        QFETCH(qint64, world);
        QFETCH(qint64, cp);
        QFETCH(qint64, ep);
        QFETCH(qint64, gpus);
        QFETCH(QString, dim);
        QFETCH(qint64, crossing);
        const auto layout = peer_layout(framework, {.world = world, .cp = cp, .ep = ep, .gpus_per_node = gpus});
        QVERIFY(layout.has_value());
        const PeerDim* d = layout->dim(dim.toStdString());
        QVERIFY(d);
        QCOMPARE(d->cross_node_groups, crossing);
    }

    // generate_masked_orthogonal_rank_groups' docstring (megatron/core/parallel_state.py), dims fastest first.
    void megatron_docstring() {
        // "if the gpu size is 8 and order is 'tp-pp-dp', size is '2-2-2', and the dp_group here is
        // [[0, 4], [1, 5], [2, 6], [3, 7]]"
        const std::array<std::int64_t, 3> cube{2, 2, 2};
        COMPARE_INTS(orthogonal_rank_groups(cube, std::array{false, false, true}),
                     (IntGroups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
        // "parallel_size = [tp_size, dp_size, pp_size] = [2, 3, 4], and the mask = [False, True, False]":
        // dp_group[0] = [0, 2, 4], [1] = [1, 3, 5], [7] = [19, 21, 23]; the others by the same equation,
        // dp_group_index = tp_rank + pp_rank * 2, rank = tp_rank + dp_rank * 2 + pp_rank * 6.
        const std::array<std::int64_t, 3> sizes{2, 3, 4};
        COMPARE_INTS(
            orthogonal_rank_groups(sizes, std::array{false, true, false}),
            (IntGroups{
                {0, 2, 4}, {1, 3, 5}, {6, 8, 10}, {7, 9, 11}, {12, 14, 16}, {13, 15, 17}, {18, 20, 22}, {19, 21, 23}}));
        // The tp groups of the same: consecutive pairs; the tp-dp groups: blocks of six.
        COMPARE_INTS(orthogonal_rank_groups(sizes, std::array{true, false, false}).front(), (Ints{0, 1}));
        COMPARE_INTS(orthogonal_rank_groups(sizes, std::array{true, true, false}),
                     (IntGroups{test::iota(0, 6), test::iota(6, 12), test::iota(12, 18), test::iota(18, 24)}));
        // Masking every dim: one group of the whole world; masking none: every rank alone.
        COMPARE_INTS(orthogonal_rank_groups(sizes, std::array{true, true, true}), (IntGroups{test::iota(0, 24)}));
        QCOMPARE(orthogonal_rank_groups(sizes, std::array{false, false, false}).size(), std::size_t{24});
    }

    // Each framework's own refusal, exact type and text; a shape one refuses the others may take.
    void errors_data() {
        QTest::addColumn<Framework>("framework");
        QTest::addColumn<qint64>("world");
        QTest::addColumn<qint64>("cp");
        QTest::addColumn<qint64>("ep");
        QTest::addColumn<meshscope::ErrorType>("type");
        QTest::addColumn<QString>("message");
        const auto value = ErrorType::value_error;
        const auto runtime = ErrorType::runtime_error;
        const auto assertion = ErrorType::assertion_error;
        QTest::addRow("fsdpturbo cp") << Framework::fsdpturbo << 16LL << 3LL << 1LL << value
                                      << "world_size (16) must be divisible by cp_size (3).";
        QTest::addRow("fsdpturbo ep") << Framework::fsdpturbo << 12LL << 2LL << 4LL << value
                                      << "dp_size must be divisible by ep_size, got 6 % 4 != 0.";
        QTest::addRow("fsdpturbo ep over cp") << Framework::fsdpturbo << 16LL << 4LL << 8LL << value
                                              << "dp_size must be divisible by ep_size, got 4 % 8 != 0.";
        QTest::addRow("torchtitan cp") << Framework::torchtitan << 16LL << 3LL << 1LL << assertion
                                       << "Invalid parallel dims: dp_replicate(1) * dp_shard(5) * cp(3) * tp(1) * "
                                          "pp(1) != WORLD_SIZE(16)";
        QTest::addRow("torchtitan cp over world")
            << Framework::torchtitan << 4LL << 8LL << 1LL << assertion << "assert dp_shard >= 1";
        // test_parallel_dims.py's case: dp_shard 2, ep 3.
        QTest::addRow("torchtitan ep (its test)") << Framework::torchtitan << 2LL << 1LL << 3LL << value
                                                  << "expert_parallel_degree (3) must divide dp_shard * cp * tp (2)";
        QTest::addRow("torchtitan ep") << Framework::torchtitan << 16LL << 2LL << 3LL << value
                                       << "expert_parallel_degree (3) must divide dp_shard * cp * tp (16)";
        QTest::addRow("torchtitan ep over world") << Framework::torchtitan << 8LL << 1LL << 16LL << value
                                                  << "expert_parallel_degree (16) must divide dp_shard * cp * tp (8)";
        QTest::addRow("megatron cp") << Framework::megatron << 16LL << 3LL << 1LL << runtime
                                     << "world_size (16) is not divisible by 3";
        QTest::addRow("megatron cp over world")
            << Framework::megatron << 4LL << 8LL << 1LL << runtime << "world_size (4) is not divisible by 8";
        QTest::addRow("megatron cp before ep")
            << Framework::megatron << 16LL << 3LL << 3LL << runtime << "world_size (16) is not divisible by 3";
        QTest::addRow("megatron ep") << Framework::megatron << 16LL << 2LL << 3LL << runtime
                                     << "world_size (16) is not divisible by expert_tensor_model_pipeline_parallel "
                                        "size (3)";
        QTest::addRow("megatron ep over world") << Framework::megatron << 12LL << 2LL << 8LL << runtime
                                                << "world_size (12) is not divisible by "
                                                   "expert_tensor_model_pipeline_parallel size (8)";
    }
    void errors() {
        QFETCH(Framework, framework);
        QFETCH(qint64, world);
        QFETCH(qint64, cp);
        QFETCH(qint64, ep);
        QFETCH(meshscope::ErrorType, type);
        QFETCH(QString, message);
        COMPARE_ERROR(peer_layout(framework, {.world = world, .cp = cp, .ep = ep}), type, message.toStdString());
    }

    // MeshScope's own checks come first and read the same for every framework.
    void shape_checks_data() {
        QTest::addColumn<qint64>("world");
        QTest::addColumn<qint64>("cp");
        QTest::addColumn<qint64>("ep");
        QTest::addColumn<qint64>("gpus");
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("field");
        QTest::addRow("world 0") << 0LL << 1LL << 1LL << 8LL << "world_size must be positive, got 0."
                                 << "world";
        QTest::addRow("cp 0") << 16LL << 0LL << 1LL << 8LL << "cp_size must be positive, got 0."
                              << "cp";
        QTest::addRow("ep -2") << 16LL << 1LL << -2LL << 8LL << "ep_size must be positive, got -2."
                               << "ep";
        QTest::addRow("gpus 0") << 16LL << 1LL << 2LL << 0LL << "gpus_per_node must be positive, got 0."
                                << "gpus_per_node";
        QTest::addRow("world too large")
            << 70000LL << 1LL << 1LL << 8LL
            << "world_size (70000) exceeds the largest world meshscope lays out for peers (65536)."
            << "world";
        QTest::addRow("world before cp") << -1LL << 0LL << 0LL << 0LL << "world_size must be positive, got -1."
                                         << "world";
    }
    void shape_checks() {
        QFETCH(qint64, world);
        QFETCH(qint64, cp);
        QFETCH(qint64, ep);
        QFETCH(qint64, gpus);
        QFETCH(QString, message);
        QFETCH(QString, field);
        const PeerShape shape{.world = world, .cp = cp, .ep = ep, .gpus_per_node = gpus};
        for (const auto framework : all_frameworks)
            COMPARE_ERROR(peer_layout(framework, shape), ErrorType::value_error, message.toStdString());
        const auto all = compare_peers(shape);
        COMPARE_ERROR(all, ErrorType::value_error, message.toStdString());
        QCOMPARE(QString::fromStdString(peer_advice(all.error()).field), field);
        QVERIFY(peer_advice(all.error()).hint.rfind("hint: ", 0) == 0);
    }

    void largest_world() {
        const auto layout = peer_layout(Framework::megatron, {.world = max_peer_world, .cp = 1, .ep = 8});
        QVERIFY(layout.has_value());
        QCOMPARE(layout->dim("ep")->groups.size(), std::size_t(max_peer_world / 8));
    }

    // One outcome per framework, in all_frameworks order; a refusal beside two layouts.
    void compare() {
        const auto all = compare_peers({.world = 16, .cp = 4, .ep = 8});
        QVERIFY(all.has_value());
        QCOMPARE(all->size(), std::size_t{3});
        QCOMPARE((*all)[0].framework, Framework::fsdpturbo);
        QVERIFY(!(*all)[0].layout);
        QCOMPARE(QString::fromStdString((*all)[0].error->message()),
                 QStringLiteral("dp_size must be divisible by ep_size, got 4 % 8 != 0."));
        QCOMPARE((*all)[1].framework, Framework::torchtitan);
        COMPARE_INTS((*all)[1].layout->dim("ep")->groups, (IntGroups{test::iota(0, 8), test::iota(8, 16)}));
        QCOMPARE((*all)[2].framework, Framework::megatron);
        QVERIFY((*all)[2].layout && !(*all)[2].error);
    }

    void group_of() {
        const auto layout = peer_layout(Framework::fsdpturbo, {.world = 16, .cp = 2, .ep = 2}).value();
        COMPARE_INTS(*layout.group_of("ep", 5), (Ints{5, 7}));
        COMPARE_INTS(*layout.group_of("efsdp", 5), (Ints{1, 5, 9, 13}));
        QVERIFY(!layout.group_of("ep", 16));
        QVERIFY(!layout.group_of("ep", -1));
        QVERIFY(!layout.group_of("tp", 0));
        QVERIFY(!layout.dim("expt_dp"));
    }

    void framework_names() {
        QVERIFY(to_string(Framework::fsdpturbo) == "fsdpturbo");
        QVERIFY(to_string(Framework::torchtitan) == "torchtitan");
        QVERIFY(to_string(Framework::megatron) == "megatron");
        for (const auto framework : all_frameworks) QVERIFY(parse_framework(to_string(framework)) == framework);
        QVERIFY(!parse_framework("Megatron"));
        QVERIFY(!parse_framework(""));
    }

    // meshscope.peers/1 (docs/peers.md), checked member by member.
    void json_form() {
        const PeerShape shape{.world = 16, .cp = 4, .ep = 8, .gpus_per_node = 8};
        const auto doc = peers_to_json(shape, compare_peers(shape).value());
        QCOMPARE(QString::fromStdString(doc["schema"].get<std::string>()), QStringLiteral("meshscope.peers/1"));
        QCOMPARE(doc["world"].get<int>(), 16);
        QCOMPARE(doc["cp"].get<int>(), 4);
        QCOMPARE(doc["ep"].get<int>(), 8);
        QCOMPARE(doc["gpus_per_node"].get<int>(), 8);
        const auto& frameworks = doc["frameworks"];
        QCOMPARE(frameworks.size(), std::size_t{3});
        QCOMPARE(QString::fromStdString(frameworks[0]["framework"].get<std::string>()), QStringLiteral("fsdpturbo"));
        QVERIFY(!frameworks[0].contains("dims"));
        QCOMPARE(QString::fromStdString(frameworks[0]["error"]["type"].get<std::string>()),
                 QStringLiteral("ValueError"));
        QCOMPARE(QString::fromStdString(frameworks[0]["error"]["message"].get<std::string>()),
                 QStringLiteral("dp_size must be divisible by ep_size, got 4 % 8 != 0."));
        QCOMPARE(QString::fromStdString(frameworks[1]["framework"].get<std::string>()), QStringLiteral("torchtitan"));
        QVERIFY(!frameworks[1].contains("error"));
        const auto& ep = frameworks[1]["dims"][0];
        QCOMPARE(QString::fromStdString(ep["name"].get<std::string>()), QStringLiteral("ep"));
        COMPARE_INTS(ep["groups"].get<IntGroups>(), (IntGroups{test::iota(0, 8), test::iota(8, 16)}));
        QCOMPARE(ep["cross_node_groups"].get<int>(), 0);
        QCOMPARE(QString::fromStdString(frameworks[1]["dims"][1]["name"].get<std::string>()), QStringLiteral("efsdp"));
        QCOMPARE(frameworks[1]["dims"][1]["cross_node_groups"].get<int>(), 8);  // [e, e + 8]
        QCOMPARE(QString::fromStdString(frameworks[2]["framework"].get<std::string>()), QStringLiteral("megatron"));
        QCOMPARE(QString::fromStdString(frameworks[2]["dims"][1]["name"].get<std::string>()),
                 QStringLiteral("expt_dp"));
    }
};

QTEST_APPLESS_MAIN(PeerLayoutTest)
#include "tst_peer_layout.moc"
