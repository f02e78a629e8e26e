// Property tests over many random meshes (seeded, so a failure reproduces): every rank in exactly one group
// per dim, members by increasing coordinate, both creation orders with the same membership, the lookups
// (group_of, group_index, group) agreeing with the full listing, and the listing itself equal to an
// independent reference built the way PyTorch builds it (permute the rank tensor, read it row by row).
#include <QTest>

#include <algorithm>
#include <numeric>
#include <random>

#include "meshscope/mesh/device_mesh.h"
#include "meshscope/mesh/parallel_state.h"
#include "test_support.h"

using namespace meshscope;

namespace {

// Rows of arange(prod(shape)).view(shape).permute(axes).reshape(-1, shape[axes.back()]).
IntGroups reference_rows(const Ints& shape, const std::vector<std::size_t>& axes) {
    Ints stride(shape.size(), 1);
    for (std::size_t i = shape.size() - 1; i-- > 0;) stride[i] = stride[i + 1] * shape[i + 1];
    const std::int64_t n = shape[axes.back()];
    const std::int64_t total = std::accumulate(shape.begin(), shape.end(), std::int64_t{1}, std::multiplies<>());
    IntGroups rows;
    Ints counter(axes.size(), 0);
    Ints row;
    for (std::int64_t i = 0; i < total; ++i) {
        std::int64_t rank = 0;
        for (std::size_t k = 0; k < axes.size(); ++k) rank += counter[k] * stride[axes[k]];
        row.push_back(rank);
        if (static_cast<std::int64_t>(row.size()) == n) rows.push_back(std::exchange(row, {}));
        for (std::size_t k = axes.size(); k-- > 0;) {
            if (++counter[k] < shape[axes[k]]) break;
            counter[k] = 0;
        }
    }
    return rows;
}

// PyTorch >= 2.9: the other dims in order, then d.
IntGroups reference_torch29(const Ints& shape, std::size_t d) {
    std::vector<std::size_t> axes;
    for (std::size_t i = 0; i < shape.size(); ++i)
        if (i != d) axes.push_back(i);
    axes.push_back(d);
    return reference_rows(shape, axes);
}

// PyTorch <= 2.8: swapdims(-1, d).
IntGroups reference_torch28(const Ints& shape, std::size_t d) {
    std::vector<std::size_t> axes(shape.size());
    std::iota(axes.begin(), axes.end(), 0);
    std::swap(axes[d], axes.back());
    return reference_rows(shape, axes);
}

IntGroups sorted(IntGroups groups) {
    std::sort(groups.begin(), groups.end());
    return groups;
}

Ints random_shape(std::mt19937_64& rng, std::int64_t max_ranks) {
    std::uniform_int_distribution<std::size_t> dims(1, 4);
    const std::size_t ndim = dims(rng);
    Ints shape;
    std::int64_t total = 1;
    for (std::size_t i = 0; i < ndim; ++i) {
        // Favour small extents (1 included) but allow long ones, within max_ranks overall.
        const std::int64_t room = max_ranks / total;
        std::uniform_int_distribution<std::int64_t> pick(
            1, std::max<std::int64_t>(1, std::min<std::int64_t>(room, i % 2 ? 9 : 64)));
        shape.push_back(pick(rng));
        total *= shape.back();
    }
    return shape;
}

}  // namespace

class MeshPropertiesTest : public QObject {
    Q_OBJECT
private slots:
    void random_meshes_data() {
        QTest::addColumn<quint64>("seed");
        QTest::addColumn<int>("meshes");
        QTest::addColumn<qint64>("max_ranks");
        for (quint64 seed = 1; seed <= 8; ++seed) QTest::addRow("seed %llu", seed) << seed << 60 << 512LL;
        QTest::addRow("large seed 101") << quint64{101} << 12 << 4096LL;
        QTest::addRow("large seed 202") << quint64{202} << 12 << 4096LL;
    }
    void random_meshes() {
        QFETCH(quint64, seed);
        QFETCH(int, meshes);
        QFETCH(qint64, max_ranks);
        std::mt19937_64 rng(seed);
        for (int m = 0; m < meshes; ++m) {
            const Ints shape = random_shape(rng, max_ranks);
            Names names;
            for (std::size_t i = 0; i < shape.size(); ++i) names.push_back("d" + std::to_string(i));
            const auto mesh = DeviceMesh::make(shape, names).value();
            const std::int64_t world = mesh.size();
            const QByteArray where = "shape " + test::show(shape);
            for (std::size_t d = 0; d < shape.size(); ++d) {
                const QByteArray at = where + " dim " + QByteArray::number(qulonglong(d));
                const auto g29 = mesh.groups(d, CreationOrder::torch29);
                const auto g28 = mesh.groups(d, CreationOrder::torch28);
                QVERIFY2(g29 == reference_torch29(shape, d), at);
                QVERIFY2(g28 == reference_torch28(shape, d), at);
                QCOMPARE(static_cast<std::int64_t>(g29.size()), world / shape[d]);
                QVERIFY2(sorted(g29) == sorted(g28), at);
                // The flat table holds the same groups in the same order.
                for (auto order : {CreationOrder::torch29, CreationOrder::torch28}) {
                    const auto& all = order == CreationOrder::torch29 ? g29 : g28;
                    const auto table = mesh.group_table(d, order);
                    Ints flat;
                    for (const auto& g : all) flat.insert(flat.end(), g.begin(), g.end());
                    QVERIFY2(std::ranges::equal(table, flat), at);
                }
                const bool may_differ = shape.size() >= 3 && d + 3 <= shape.size();
                if (!may_differ) QVERIFY2(g29 == g28, at);

                // Exactly one group per rank; members by increasing coordinate, other coordinates fixed.
                std::vector<int> seen(static_cast<std::size_t>(world), 0);
                for (const auto& group : g29) {
                    QCOMPARE(static_cast<std::int64_t>(group.size()), shape[d]);
                    const auto first = mesh.coordinate(group.front());
                    for (std::size_t i = 0; i < group.size(); ++i) {
                        ++seen[static_cast<std::size_t>(group[i])];
                        auto c = mesh.coordinate(group[i]);
                        QCOMPARE(c[d], static_cast<std::int64_t>(i));
                        c[d] = first[d];
                        QVERIFY2(c == first, at);
                    }
                }
                QVERIFY2(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }), at);

                // The lookups agree with the listing, in both orders.
                for (auto order : {CreationOrder::torch29, CreationOrder::torch28}) {
                    const auto& all = order == CreationOrder::torch29 ? g29 : g28;
                    for (std::int64_t i = 0; i < static_cast<std::int64_t>(all.size()); ++i)
                        QVERIFY2(mesh.group(d, i, order) == all[static_cast<std::size_t>(i)], at);
                    for (std::int64_t r = 0; r < world; ++r) {
                        const auto index = mesh.group_index(r, d, order);
                        QVERIFY2(index >= 0 && index < static_cast<std::int64_t>(all.size()), at);
                        const auto& expected = all[static_cast<std::size_t>(index)];
                        QVERIFY2(std::find(expected.begin(), expected.end(), r) != expected.end(), at);
                        if (order == CreationOrder::torch29) QVERIFY2(mesh.group_of(r, d) == expected, at);
                    }
                }
            }
            const auto table = mesh.coordinate_table();
            QCOMPARE(table.size(), static_cast<std::size_t>(world) * shape.size());
            for (std::int64_t r = 0; r < world; ++r) {
                const auto c = mesh.coordinate(r);
                QVERIFY2(mesh.rank_at(c) == r, where);
                QVERIFY2(std::equal(c.begin(), c.end(), table.begin() + r * static_cast<std::int64_t>(shape.size())),
                         where);
            }
            // Slices and flattened meshes count the same way (hidden dims enumerate sub-meshes).
            if (shape.size() >= 2 && world <= 1024) {
                const auto sliced = mesh.slice({names.front(), names.back()}).value();
                const auto flat = sliced.flatten().value();
                for (const auto* view : {&sliced, &flat}) {
                    const auto t = view->coordinate_table();
                    for (std::int64_t r = 0; r < world; ++r)
                        for (std::size_t d = 0; d < view->ndim(); ++d)
                            QVERIFY2(t[static_cast<std::size_t>(r) * view->ndim() + d] == view->coordinate(r, d),
                                     where);
                    // The streaming walk hands out the same rows, in rank order, each rank once.
                    Ints streamed;
                    std::int64_t next_rank = 0;
                    view->for_each_coordinate([&](std::int64_t rank, std::span<const std::int64_t> c) {
                        if (rank != next_rank++) streamed.push_back(-1);
                        streamed.insert(streamed.end(), c.begin(), c.end());
                    });
                    QVERIFY2(next_rank == world, where);
                    QVERIFY2(std::ranges::equal(streamed, t), where);
                    for (std::size_t d = 0; d < view->ndim(); ++d)
                        for (auto order : {CreationOrder::torch29, CreationOrder::torch28}) {
                            const auto groups = view->groups(d, order);
                            Ints expected;
                            for (const auto& g : groups) expected.insert(expected.end(), g.begin(), g.end());
                            QVERIFY2(std::ranges::equal(view->group_table(d, order), expected), where);
                            for (std::int64_t r = 0; r < world; r += 7)
                                QVERIFY2(groups[static_cast<std::size_t>(view->group_index(r, d, order))] ==
                                             view->group_of(r, d),
                                         where);
                        }
                }
            }
        }
    }

    // LlamaFactory's consistency: flatten(efsdp, ep) is the dp group with the same cp index, and the
    // expert_cp groups are the data mesh's cp groups.
    void llamafactory_meshes_data() {
        QTest::addColumn<quint64>("seed");
        for (quint64 seed = 1; seed <= 6; ++seed) QTest::addRow("seed %llu", seed) << seed;
    }
    void llamafactory_meshes() {
        QFETCH(quint64, seed);
        std::mt19937_64 rng(seed);
        for (int m = 0; m < 40; ++m) {
            const std::int64_t cp = std::uniform_int_distribution<std::int64_t>(1, 8)(rng);
            const std::int64_t ep = std::int64_t{1} << std::uniform_int_distribution<int>(1, 5)(rng);
            const std::int64_t efsdp = std::uniform_int_distribution<std::int64_t>(1, 12)(rng);
            const auto topology = Topology::make(ep * efsdp, cp, ep).value();
            const auto data = make_data_mesh(topology).value();
            const auto expert = make_expert_mesh(topology).value();
            const QByteArray at = "topology " + QByteArray::fromStdString(topology.tuple_string());
            const auto flat = expert.slice({"efsdp", "ep"}).value().flatten().value();
            QVERIFY2(flat.groups(0, CreationOrder::torch29) == data.groups(0, CreationOrder::torch29), at);
            const std::size_t expert_cp = expert.dim_index("expert_cp").value();
            for (auto order : {CreationOrder::torch29, CreationOrder::torch28})
                QVERIFY2(expert.groups(expert_cp, order) == data.groups(1, order), at);
            for (std::int64_t r = 0; r < topology.world(); ++r) {
                QVERIFY2(flat.group_of(r, 0) == data.group_of(r, 0), at);
                // The flattened group's index is the cp index.
                QVERIFY2(flat.group_index(r, 0, CreationOrder::torch29) == data.coordinate(r, 1), at);
                QVERIFY2(expert.group_of(r, expert_cp) == data.group_of(r, 1), at);
            }
        }
    }
};

QTEST_GUILESS_MAIN(MeshPropertiesTest)
#include "tst_mesh_properties.moc"
