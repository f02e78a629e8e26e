// DeviceMesh: the worked examples of domain.md, PyTorch's error texts, slicing and flattening.
#include <QTest>

#include <algorithm>
#include <stdexcept>

#include "meshscope/mesh/device_mesh.h"
#include "meshscope/mesh/parallel_state.h"
#include "test_support.h"

using namespace meshscope;

namespace {
DeviceMesh mesh_of(const Ints& shape, const Names& names) {
    return DeviceMesh::make(shape, names).value();
}

const Names expert_names{"edp", "efsdp", "ep", "expert_cp"};

std::size_t dim(const DeviceMesh& mesh, const char* name) {
    return mesh.dim_index(name).value();
}
}  // namespace

class DeviceMeshTest : public QObject {
    Q_OBJECT
private slots:
    // domain.md section 2, worked examples, PyTorch >= 2.9 creation order.
    void worked_groups_data() {
        QTest::addColumn<Ints>("shape");
        QTest::addColumn<Names>("names");
        QTest::addColumn<QString>("dim");
        QTest::addColumn<IntGroups>("groups");
        QTest::addRow("dp16 ep8: efsdp") << Ints{1, 2, 8, 1} << expert_names << "efsdp"
                                         << IntGroups{{0, 8},  {1, 9},  {2, 10}, {3, 11},
                                                      {4, 12}, {5, 13}, {6, 14}, {7, 15}};
        QTest::addRow("dp16 ep8: ep") << Ints{1, 2, 8, 1} << expert_names << "ep"
                                      << IntGroups{test::iota(0, 8), test::iota(8, 16)};
        QTest::addRow("dp16 ep8: edp") << Ints{1, 2, 8, 1} << expert_names << "edp" << [] {
            IntGroups g;
            for (std::int64_t r = 0; r < 16; ++r) g.push_back({r});
            return g;
        }();
        QTest::addRow("dp8 cp2 ep2: efsdp") << Ints{1, 4, 2, 2} << expert_names << "efsdp"
                                            << IntGroups{{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}};
        QTest::addRow("dp8 cp2 ep2: ep") << Ints{1, 4, 2, 2} << expert_names << "ep"
                                         << IntGroups{{0, 2},  {1, 3},  {4, 6},   {5, 7},
                                                      {8, 10}, {9, 11}, {12, 14}, {13, 15}};
        QTest::addRow("dp8 cp2 ep2: expert_cp")
            << Ints{1, 4, 2, 2} << expert_names << "expert_cp"
            << IntGroups{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}};
        QTest::addRow("data (8,2): dp") << Ints{8, 2} << Names{"dp", "cp"} << "dp"
                                        << IntGroups{test::iota(0, 16, 2), test::iota(1, 16, 2)};
        QTest::addRow("data (8,2): cp") << Ints{8, 2} << Names{"dp", "cp"} << "cp"
                                        << IntGroups{{0, 1}, {2, 3},   {4, 5},   {6, 7},
                                                     {8, 9}, {10, 11}, {12, 13}, {14, 15}};
        QTest::addRow("1-D") << Ints{4} << Names{"world"} << "world" << IntGroups{{0, 1, 2, 3}};
        QTest::addRow("size-1 dim") << Ints{3, 1} << Names{"a", "b"} << "b" << IntGroups{{0}, {1}, {2}};
    }
    void worked_groups() {
        QFETCH(Ints, shape);
        QFETCH(Names, names);
        QFETCH(QString, dim);
        QFETCH(IntGroups, groups);
        const auto mesh = mesh_of(shape, names);
        const std::size_t d = ::dim(mesh, dim.toUtf8().constData());
        COMPARE_INTS(mesh.groups(d, CreationOrder::torch29), groups);
        QCOMPARE(mesh.group_count(d), static_cast<std::int64_t>(groups.size()));
        // Only dims d <= ndim - 3 are listed differently by PyTorch <= 2.8.
        if (d + 3 > shape.size()) COMPARE_INTS(mesh.groups(d, CreationOrder::torch28), groups);
    }

    // PyTorch <= 2.8 lists the efsdp groups of dp=8, cp=2, ep=2 in another order: swapdims(-1, 1) walks
    // expert_cp before ep. Same members; a rank running 2.8 next to one running 2.9 would hang in NCCL.
    void worked_torch28() {
        const auto mesh = mesh_of({1, 4, 2, 2}, expert_names);
        COMPARE_INTS(mesh.groups(1, CreationOrder::torch28),
                     (IntGroups{{0, 4, 8, 12}, {2, 6, 10, 14}, {1, 5, 9, 13}, {3, 7, 11, 15}}));
        QCOMPARE(mesh.group_index(1, 1, CreationOrder::torch28), 2);
        QCOMPARE(mesh.group_index(1, 1, CreationOrder::torch29), 1);
        COMPARE_INTS(mesh.group(1, 1, CreationOrder::torch28), (Ints{2, 6, 10, 14}));
        // edp (d = 0) too: rows of swapdims(-1, 0) walk (expert_cp, efsdp, ep).
        COMPARE_INTS(mesh.groups(0, CreationOrder::torch28)[1], (Ints{2}));
        // dims ep and expert_cp (d >= ndim - 2) are the same in both orders.
        for (std::size_t d : {2u, 3u})
            COMPARE_INTS(mesh.groups(d, CreationOrder::torch28), mesh.groups(d, CreationOrder::torch29));
    }

    void coordinates_data() {
        QTest::addColumn<Ints>("shape");
        QTest::addColumn<qint64>("rank");
        QTest::addColumn<Ints>("coordinate");
        QTest::addRow("dp16 ep8 rank 13") << Ints{1, 2, 8, 1} << 13LL << Ints{0, 1, 5, 0};
        QTest::addRow("dp8 cp2 ep2 rank 5") << Ints{1, 4, 2, 2} << 5LL << Ints{0, 1, 0, 1};
        QTest::addRow("dp8 cp2 ep2 rank 0") << Ints{1, 4, 2, 2} << 0LL << Ints{0, 0, 0, 0};
        QTest::addRow("dp8 cp2 ep2 rank 15") << Ints{1, 4, 2, 2} << 15LL << Ints{0, 3, 1, 1};
        QTest::addRow("data (8,2) rank 13") << Ints{8, 2} << 13LL << Ints{6, 1};
        QTest::addRow("(2,3,4) rank 23") << Ints{2, 3, 4} << 23LL << Ints{1, 2, 3};
        QTest::addRow("(2,3,4) rank 9") << Ints{2, 3, 4} << 9LL << Ints{0, 2, 1};
    }
    void coordinates() {
        QFETCH(Ints, shape);
        QFETCH(qint64, rank);
        QFETCH(Ints, coordinate);
        Names names;
        for (std::size_t i = 0; i < shape.size(); ++i) names.push_back("d" + std::to_string(i));
        const auto mesh = mesh_of(shape, names);
        COMPARE_INTS(mesh.coordinate(rank), coordinate);
        for (std::size_t d = 0; d < shape.size(); ++d) QCOMPARE(mesh.coordinate(rank, d), coordinate[d]);
        QCOMPARE(mesh.rank_at(coordinate), rank);
        QVERIFY(mesh.contains(rank));
    }

    void smaller_than_world() {
        const auto mesh = DeviceMesh::make({2, 3}, {"a", "b"}, 8).value();
        QCOMPARE(mesh.size(), 6);
        QCOMPARE(mesh.world_size(), 8);
        QVERIFY(mesh.contains(5));
        QVERIFY(!mesh.contains(6));
        QVERIFY(!mesh.contains(-1));
        const auto equal = DeviceMesh::make({2, 4}, {"a", "b"}, 8).value();
        QCOMPARE(equal.size(), 8);
        QCOMPARE(DeviceMesh::make({2, 4}, {"a", "b"}).value().world_size(), 8);
    }

    void make_errors_data() {
        QTest::addColumn<Ints>("shape");
        QTest::addColumn<Names>("names");
        QTest::addColumn<qint64>("world");
        QTest::addColumn<meshscope::ErrorType>("type");
        QTest::addColumn<QString>("message");
        QTest::addRow("repeated name") << Ints{2, 2} << Names{"dp", "dp"} << 0LL << ErrorType::runtime_error
                                       << "Each mesh_dim_name must be unique. Found repeated mesh_dim_name in "
                                          "mesh_dim_names ('dp', 'dp')";
        QTest::addRow("repeated before length") << Ints{2} << Names{"a", "b", "a"} << 0LL << ErrorType::runtime_error
                                                << "Each mesh_dim_name must be unique. Found repeated mesh_dim_name "
                                                   "in mesh_dim_names ('a', 'b', 'a')";
        QTest::addRow("more names") << Ints{4} << Names{"dp", "cp"} << 0LL << ErrorType::runtime_error
                                    << "mesh_shape and mesh_dim_names should have same length! Found "
                                       "len(mesh_dim_names): 2 and len(mesh_shape):1.";
        QTest::addRow("more dims") << Ints{2, 2, 2} << Names{"x"} << 0LL << ErrorType::runtime_error
                                   << "mesh_shape and mesh_dim_names should have same length! Found "
                                      "len(mesh_dim_names): 1 and len(mesh_shape):3.";
        QTest::addRow("bigger than world") << Ints{4, 4} << Names{"dp", "cp"} << 8LL << ErrorType::runtime_error
                                           << "Mesh should not be bigger than default world size 8, but found 16 "
                                              "ranks!";
        QTest::addRow("expert mesh bigger") << Ints{1, 2, 8, 2} << expert_names << 16LL << ErrorType::runtime_error
                                            << "Mesh should not be bigger than default world size 16, but found 32 "
                                               "ranks!";
        QTest::addRow("empty") << Ints{} << Names{} << 0LL << ErrorType::value_error
                               << "mesh_shape must have at least one dimension.";
        QTest::addRow("zero extent") << Ints{2, 0} << Names{"a", "b"} << 0LL << ErrorType::value_error
                                     << "mesh_shape must be positive, got (2, 0).";
        QTest::addRow("negative 1-D") << Ints{-3} << Names{"a"} << 0LL << ErrorType::value_error
                                      << "mesh_shape must be positive, got (-3,).";
        QTest::addRow("overflow") << Ints{1LL << 30, 1LL << 30} << Names{"a", "b"} << 0LL << ErrorType::value_error
                                  << "mesh_shape (1073741824, 1073741824) exceeds the supported maximum of "
                                     "1099511627776 ranks.";
    }
    void make_errors() {
        QFETCH(Ints, shape);
        QFETCH(Names, names);
        QFETCH(qint64, world);
        QFETCH(meshscope::ErrorType, type);
        QFETCH(QString, message);
        COMPARE_ERROR(DeviceMesh::make(shape, names, world), type, message.toStdString());
    }

    void dim_index_error() {
        const auto mesh = mesh_of({8, 2}, {"dp", "cp"});
        QCOMPARE(mesh.dim_index("cp").value(), 1u);
        COMPARE_ERROR(mesh.dim_index("ep"), ErrorType::key_error,
                      std::string("Mesh dimension 'ep' does not exist. Available mesh dimensions are: "
                                  "mesh_dim_names=('dp', 'cp')"));
    }

    void slice_errors_data() {
        QTest::addColumn<Names>("names");
        QTest::addColumn<meshscope::ErrorType>("type");
        QTest::addColumn<QString>("message");
        QTest::addRow("unknown") << Names{"dp"} << ErrorType::key_error
                                 << "Invalid mesh_dim_names ('dp',) specified. Valid mesh_dim_names are ['edp', "
                                    "'efsdp', 'ep', 'expert_cp'].";
        QTest::addRow("one unknown of two") << Names{"ep", "tp"} << ErrorType::key_error
                                            << "Invalid mesh_dim_names ('ep', 'tp') specified. Valid mesh_dim_names "
                                               "are ['edp', 'efsdp', 'ep', 'expert_cp'].";
        QTest::addRow("descending") << Names{"ep", "efsdp"} << ErrorType::key_error
                                    << "Invalid mesh_dim_names ('ep', 'efsdp') specified. Found mesh dim indices to "
                                       "slice: [(2,), (1,)]. Mesh dim indices should be in ascending order.";
        QTest::addRow("repeated") << Names{"ep", "ep"} << ErrorType::key_error
                                  << "Invalid mesh_dim_names ('ep', 'ep') specified. Found mesh dim indices to "
                                     "slice: [(2,), (2,)]. Mesh dim indices should be in ascending order.";
        QTest::addRow("third out of order") << Names{"edp", "ep", "efsdp"} << ErrorType::key_error
                                            << "Invalid mesh_dim_names ('edp', 'ep', 'efsdp') specified. Found mesh "
                                               "dim indices to slice: [(0,), (2,), (1,)]. Mesh dim indices should be "
                                               "in ascending order.";
        QTest::addRow("empty") << Names{} << ErrorType::value_error << "mesh_dim_names to slice must not be empty.";
    }
    void slice_errors() {
        QFETCH(Names, names);
        QFETCH(meshscope::ErrorType, type);
        QFETCH(QString, message);
        const auto mesh = mesh_of({1, 4, 2, 2}, expert_names);
        COMPARE_ERROR(mesh.slice(names), type, message.toStdString());
    }

    // A slice reuses the parent's groups: same members, same order, along every kept dim.
    void slice_keeps_groups_data() {
        QTest::addColumn<Ints>("shape");
        QTest::addColumn<Names>("keep");
        QTest::addRow("expert (efsdp, ep)") << Ints{1, 4, 2, 2} << Names{"efsdp", "ep"};
        QTest::addRow("expert ep") << Ints{1, 2, 8, 1} << Names{"ep"};
        QTest::addRow("expert all") << Ints{1, 4, 2, 2} << expert_names;
        QTest::addRow("expert (edp, expert_cp)") << Ints{2, 3, 2, 2} << Names{"edp", "expert_cp"};
        QTest::addRow("(2,3,4,5) (efsdp, expert_cp)") << Ints{2, 3, 4, 5} << Names{"efsdp", "expert_cp"};
    }
    void slice_keeps_groups() {
        QFETCH(Ints, shape);
        QFETCH(Names, keep);
        const auto mesh = mesh_of(shape, expert_names);
        const auto sliced = mesh.slice(keep).value();
        QCOMPARE(sliced.ndim(), keep.size());
        QVERIFY(sliced.dim_names() == keep);
        QCOMPARE(sliced.size(), mesh.size());
        for (std::size_t d = 0; d < keep.size(); ++d) {
            const std::size_t parent_dim = ::dim(mesh, keep[d].c_str());
            QCOMPARE(sliced.dim_size(d), mesh.dim_size(parent_dim));
            for (auto order : {CreationOrder::torch29, CreationOrder::torch28}) {
                COMPARE_INTS(sliced.groups(d, order), mesh.groups(parent_dim, order));
            }
            for (std::int64_t r = 0; r < mesh.size(); ++r) {
                QCOMPARE(sliced.coordinate(r, d), mesh.coordinate(r, parent_dim));
                COMPARE_INTS(sliced.group_of(r, d), mesh.group_of(r, parent_dim));
            }
        }
    }

    // mesh["efsdp", "ep"]._flatten(): ranks in lexicographic order of (efsdp, ep), groups lexicographic over
    // the other root dims.
    void flatten_data() {
        QTest::addColumn<Ints>("shape");
        QTest::addColumn<Names>("keep");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("expected_name");
        QTest::addColumn<IntGroups>("groups");
        QTest::addRow("dp8 cp2 ep2 (efsdp, ep)") << Ints{1, 4, 2, 2} << Names{"efsdp", "ep"} << ""
                                                 << "efsdp_ep" << IntGroups{test::iota(0, 16, 2), test::iota(1, 16, 2)};
        QTest::addRow("dp16 ep8 (efsdp, ep) named") << Ints{1, 2, 8, 1} << Names{"efsdp", "ep"} << "dp_shard"
                                                    << "dp_shard" << IntGroups{test::iota(0, 16)};
        QTest::addRow("(edp, expert_cp) skips dims") << Ints{2, 1, 2, 2} << Names{"edp", "expert_cp"} << ""
                                                     << "edp_expert_cp" << IntGroups{{0, 1, 4, 5}, {2, 3, 6, 7}};
        QTest::addRow("(ep, expert_cp)") << Ints{1, 2, 2, 2} << Names{"ep", "expert_cp"} << ""
                                         << "ep_expert_cp" << IntGroups{{0, 1, 2, 3}, {4, 5, 6, 7}};
        QTest::addRow("whole mesh") << Ints{1, 2, 2, 2} << expert_names << ""
                                    << "edp_efsdp_ep_expert_cp" << IntGroups{test::iota(0, 8)};
    }
    void flatten() {
        QFETCH(Ints, shape);
        QFETCH(Names, keep);
        QFETCH(QString, name);
        QFETCH(QString, expected_name);
        QFETCH(IntGroups, groups);
        const auto flat = mesh_of(shape, expert_names).slice(keep).value().flatten(name.toStdString()).value();
        QVERIFY(flat.is_flattened());
        QCOMPARE(flat.ndim(), 1u);
        QCOMPARE(QString::fromStdString(flat.dim_names().front()), expected_name);
        for (auto order : {CreationOrder::torch29, CreationOrder::torch28}) COMPARE_INTS(flat.groups(0, order), groups);
        for (std::size_t g = 0; g < groups.size(); ++g)
            for (std::size_t i = 0; i < groups[g].size(); ++i) {
                const auto r = groups[g][i];
                QCOMPARE(flat.coordinate(r, 0), static_cast<std::int64_t>(i));
                COMPARE_INTS(flat.group_of(r, 0), groups[g]);
                QCOMPARE(flat.group_index(r, 0, CreationOrder::torch29), static_cast<std::int64_t>(g));
            }
    }

    void flatten_errors() {
        const auto mesh = mesh_of({1, 4, 2, 2}, expert_names);
        COMPARE_ERROR(mesh.slice({"efsdp", "ep"}).value().flatten("ep"), ErrorType::value_error,
                      std::string("ep already exists for submesh of the root mesh. Please specify another valid "
                                  "mesh_dim_name."));
        // A 1-D mesh flattened into its own name is itself.
        const auto ep = mesh.slice({"ep"}).value();
        const auto same = ep.flatten("ep").value();
        QVERIFY(!same.is_flattened());
        COMPARE_INTS(same.groups(0, CreationOrder::torch29), ep.groups(0, CreationOrder::torch29));
    }

    // torch28 lists rows of mesh.swapdims(-1, d).reshape(-1, n): for (2,3,4,5) and d = 0 the other dims are
    // walked in the order (3: size 5, 1: size 3, 2: size 4) instead of (1, 2, 3).
    void torch28_order() {
        const auto mesh = mesh_of({2, 3, 4, 5}, {"a", "b", "c", "d"});
        const auto g28 = mesh.groups(0, CreationOrder::torch28);
        const auto g29 = mesh.groups(0, CreationOrder::torch29);
        COMPARE_INTS(g29[1], (Ints{1, 61}));
        COMPARE_INTS(g28[1], (Ints{5, 65}));   // next row of swapdims: b advances before d
        COMPARE_INTS(g28[4], (Ints{20, 80}));  // after 4 values of c, b advances
        // Independent reconstruction of swapdims(-1, 0).reshape(-1, 2): index = ((d * 3) + b) * 4 + c.
        for (std::int64_t dd = 0; dd < 5; ++dd)
            for (std::int64_t b = 0; b < 3; ++b)
                for (std::int64_t c = 0; c < 4; ++c) {
                    const auto row = static_cast<std::size_t>((dd * 3 + b) * 4 + c);
                    const std::int64_t base = b * 20 + c * 5 + dd;
                    COMPARE_INTS(g28[row], (Ints{base, base + 60}));
                }
    }

    // The fill_* forms write into the caller's table, whatever it held before, and refuse a table of the wrong
    // size with an exact message instead of writing past its end.
    void fill_tables_data() {
        QTest::addColumn<int>("extra");
        QTest::addColumn<QString>("group_error");
        QTest::addColumn<QString>("coordinate_error");
        QTest::addRow("exact size") << 0 << QString() << QString();
        QTest::addRow("one short") << -1 << "fill_group_table needs a table of 16 values, got 15."
                                   << "fill_coordinate_table needs a table of 64 values, got 63.";
        QTest::addRow("one long") << 1 << "fill_group_table needs a table of 16 values, got 17."
                                  << "fill_coordinate_table needs a table of 64 values, got 65.";
    }
    void fill_tables() {
        QFETCH(int, extra);
        QFETCH(QString, group_error);
        QFETCH(QString, coordinate_error);
        const auto mesh = mesh_of({1, 2, 4, 2}, expert_names);
        for (std::size_t d = 0; d < mesh.ndim(); ++d)
            for (auto order : {CreationOrder::torch29, CreationOrder::torch28}) {
                Ints table(static_cast<std::size_t>(16 + extra), -7);
                try {
                    mesh.fill_group_table(d, order, table);
                    QVERIFY(group_error.isEmpty());
                    Ints expected;
                    for (const auto& g : mesh.groups(d, order)) expected.insert(expected.end(), g.begin(), g.end());
                    COMPARE_INTS(table, expected);
                } catch (const std::length_error& e) {
                    QCOMPARE(QString::fromUtf8(e.what()), group_error);
                    QVERIFY(std::all_of(table.begin(), table.end(), [](std::int64_t v) { return v == -7; }));
                }
            }
        Ints coordinates(static_cast<std::size_t>(64 + extra), -7);
        try {
            mesh.fill_coordinate_table(coordinates);
            QVERIFY(coordinate_error.isEmpty());
            for (std::int64_t r = 0; r < 16; ++r)
                COMPARE_INTS(Ints(coordinates.begin() + r * 4, coordinates.begin() + r * 4 + 4), mesh.coordinate(r));
        } catch (const std::length_error& e) {
            QCOMPARE(QString::fromUtf8(e.what()), coordinate_error);
        }
    }

    // Tables of 2^20 ranks take the huge-page allocation path (blocks of 2 MiB and more): every value checked
    // against the per-rank lookups at a spread of ranks and groups, in both creation orders.
    void large_tables() {
        const auto mesh = mesh_of({2, 32768, 8, 2}, expert_names);
        const auto coordinates = mesh.coordinate_table();
        QCOMPARE(coordinates.size(), std::size_t{1} << 22);
        for (std::int64_t r = 0; r < mesh.size(); r += 997)
            for (std::size_t d = 0; d < 4; ++d)
                QCOMPARE(coordinates[static_cast<std::size_t>(r) * 4 + d], mesh.coordinate(r, d));
        QCOMPARE(coordinates.back(), std::int64_t{1});
        for (std::size_t d = 0; d < mesh.ndim(); ++d)
            for (auto order : {CreationOrder::torch29, CreationOrder::torch28}) {
                const auto table = mesh.group_table(d, order);
                const auto n = static_cast<std::size_t>(mesh.dim_size(d));
                QCOMPARE(table.size(), std::size_t{1} << 20);
                for (std::int64_t i = 0; i < mesh.group_count(d); i += 1 + mesh.group_count(d) / 257) {
                    const auto expected = mesh.group(d, i, order);
                    QVERIFY(std::equal(expected.begin(), expected.end(),
                                       table.begin() + static_cast<std::ptrdiff_t>(i * n)));
                }
                const auto last = mesh.group(d, mesh.group_count(d) - 1, order);
                QVERIFY(std::equal(last.begin(), last.end(), table.end() - static_cast<std::ptrdiff_t>(n)));
            }
    }
};

QTEST_GUILESS_MAIN(DeviceMeshTest)
#include "tst_device_mesh.moc"
