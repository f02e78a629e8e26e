// ParallelState: FSDPTurbo's semantics (validation first, idempotent re-init, the mismatch text, ep == 1)
// and what ours adds: the strong guarantee, reset(), thread safety and the group callback.
#include <QTest>

#include <atomic>
#include <barrier>
#include <mutex>
#include <thread>

#include "meshscope/mesh/parallel_state.h"
#include "test_support.h"

using namespace meshscope;

Q_DECLARE_METATYPE(meshscope::CreationOrder)

namespace {
ParallelContext context(std::int64_t dp, std::int64_t cp, bool has_data_mesh = true) {
    ParallelContext c;
    c.dp_size = dp;
    c.cp_size = cp;
    c.has_data_mesh = has_data_mesh;
    return c;
}

struct Created {
    std::string mesh, dim;
    std::int64_t index, count;
    Ints ranks;
};

QString message_of(const std::function<void()>& call) {
    try {
        call();
    } catch (const Error& e) {
        return QString::fromStdString(e.message());
    }
    return {};
}
}  // namespace

class ParallelStateTest : public QObject {
    Q_OBJECT
private slots:
    void init() { parallel_state().reset(); }
    void cleanup() { parallel_state().reset(); }

    void initializes_data() {
        QTest::addColumn<qint64>("dp");
        QTest::addColumn<qint64>("cp");
        QTest::addColumn<qint64>("ep");
        QTest::addColumn<Ints>("expert_shape");
        QTest::addRow("dp16 ep8") << 16LL << 1LL << 8LL << Ints{1, 2, 8, 1};
        QTest::addRow("dp8 cp2 ep2") << 8LL << 2LL << 2LL << Ints{1, 4, 2, 2};
        QTest::addRow("ep1: no expert mesh") << 16LL << 2LL << 1LL << Ints{};
    }
    void initializes() {
        QFETCH(qint64, dp);
        QFETCH(qint64, cp);
        QFETCH(qint64, ep);
        QFETCH(Ints, expert_shape);
        auto& state = parallel_state();
        QVERIFY(&state == &parallel_state());
        QVERIFY(!state.initialized());
        QVERIFY(!state.topology());
        state.initialize(context(dp, cp), ParallelConfig{ep});
        QVERIFY(state.initialized());
        QVERIFY(*state.topology() == Topology::make(dp, cp, ep).value());
        if (expert_shape.empty()) {
            QVERIFY(!state.expert_mesh());
            QVERIFY(!state.submesh("ep"));
            QCOMPARE(state.topology()->efsdp, 1);
            QCOMPARE(state.topology()->edp, 1);
            return;
        }
        const auto mesh = state.expert_mesh();
        QVERIFY(mesh);
        COMPARE_INTS(mesh->shape(), expert_shape);
        QVERIFY(mesh->dim_names() == (Names{"edp", "efsdp", "ep", "expert_cp"}));
        for (const char* name : {"edp", "efsdp", "ep", "expert_cp"}) {
            const auto sub = state.submesh(name);
            QVERIFY(sub);
            QCOMPARE(sub->ndim(), 1u);
            COMPARE_INTS(sub->groups(0, CreationOrder::torch29),
                         mesh->groups(mesh->dim_index(name).value(), CreationOrder::torch29));
        }
        QVERIFY(!state.submesh("dp"));
    }

    void reinitialize_same_is_noop() {
        auto& state = parallel_state();
        state.initialize(context(16, 1), ParallelConfig{2});
        const auto before = state.expert_mesh();
        int calls = 0;
        auto again = context(16, 1);
        again.on_group_created = [&](const GroupCreated&) { ++calls; };
        state.initialize(again, ParallelConfig{2});
        QCOMPARE(calls, 0);  // nothing rebuilt
        QVERIFY(*state.topology() == Topology::make(16, 1, 2).value());
        COMPARE_INTS(state.expert_mesh()->shape(), before->shape());
    }

    void mismatch_data() {
        QTest::addColumn<qint64>("dp");
        QTest::addColumn<qint64>("cp");
        QTest::addColumn<qint64>("ep");
        QTest::addColumn<QString>("message");
        QTest::addRow("other ep") << 16LL << 1LL << 4LL
                                  << "FSDPTurbo parallel state is already initialized with (16, 1, 2), got (16, 1, 4).";
        QTest::addRow("other cp") << 16LL << 2LL << 2LL
                                  << "FSDPTurbo parallel state is already initialized with (16, 1, 2), got (16, 2, 2).";
        QTest::addRow("ep 1") << 16LL << 1LL << 1LL
                              << "FSDPTurbo parallel state is already initialized with (16, 1, 2), got (16, 1, 1).";
        // Validation runs before the re-initialization check.
        QTest::addRow("invalid ep first") << 16LL << 1LL << 0LL << "ep_size must be positive, got 0.";
        QTest::addRow("indivisible first")
            << 16LL << 1LL << 3LL << "dp_size must be divisible by ep_size, got 16 % 3 != 0.";
    }
    void mismatch() {
        QFETCH(qint64, dp);
        QFETCH(qint64, cp);
        QFETCH(qint64, ep);
        QFETCH(QString, message);
        auto& state = parallel_state();
        state.initialize(context(16, 1), ParallelConfig{2});
        QCOMPARE(message_of([&] { state.initialize(context(dp, cp), ParallelConfig{ep}); }), message);
        QVERIFY(*state.topology() == Topology::make(16, 1, 2).value());
        QVERIFY(state.expert_mesh());
    }

    void error_types() {
        auto& state = parallel_state();
        QVERIFY_THROWS_EXCEPTION(ValueError, state.initialize(context(16, 1), ParallelConfig{0}));
        QVERIFY_THROWS_EXCEPTION(ValueError, state.initialize(context(16, 1), ParallelConfig{3}));
        QVERIFY_THROWS_EXCEPTION(RuntimeError, state.initialize(context(16, 1, false), ParallelConfig{2}));
        state.initialize(context(16, 1), ParallelConfig{2});
        QVERIFY_THROWS_EXCEPTION(RuntimeError, state.initialize(context(16, 1), ParallelConfig{4}));
    }

    // The seed wrote dp/cp/ep before this error and stayed half-updated; ours changes nothing.
    void missing_data_mesh() {
        auto& state = parallel_state();
        QCOMPARE(message_of([&] { state.initialize(context(16, 1, false), ParallelConfig{2}); }),
                 QStringLiteral("FSDPTurbo expert parallelism requires an initialized distributed device mesh."));
        QVERIFY(!state.initialized());
        QVERIFY(!state.topology());
        // ep == 1 needs no data mesh.
        state.initialize(context(16, 1, false), ParallelConfig{1});
        QVERIFY(state.initialized());
        QVERIFY(!state.expert_mesh());
    }

    void reset_allows_new_topology() {
        auto& state = parallel_state();
        state.initialize(context(16, 1), ParallelConfig{2});
        state.reset();
        QVERIFY(!state.initialized());
        QVERIFY(!state.expert_mesh());
        state.initialize(context(16, 1), ParallelConfig{4});
        QCOMPARE(state.topology()->ep, 4);
        QCOMPARE(state.expert_mesh()->shape(), (Ints{1, 4, 4, 1}));
        state.reset();
        state.reset();  // idempotent
        QVERIFY(!state.initialized());
    }

    // A throwing callback (a communicator that failed to build) leaves the state exactly as it was. Only an
    // uninitialized state ever reaches the callback, so that is the state that must survive.
    void strong_guarantee_data() {
        QTest::addColumn<int>("throw_at");
        // Expert mesh (1, 4, 2, 2): 16 edp + 4 efsdp + 8 ep + 8 expert_cp = 36 groups.
        QTest::addRow("first group") << 0;
        QTest::addRow("an efsdp group") << 18;
        QTest::addRow("last group") << 35;
    }
    void strong_guarantee() {
        QFETCH(int, throw_at);
        auto& state = parallel_state();
        auto c = context(8, 2);
        int calls = 0;
        c.on_group_created = [&](const GroupCreated&) {
            if (calls++ == throw_at) throw std::runtime_error("ncclCommSplit failed");
        };
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, state.initialize(c, ParallelConfig{2}));
        QCOMPARE(calls, throw_at + 1);
        QVERIFY(!state.initialized());
        QVERIFY(!state.topology());
        QVERIFY(!state.expert_mesh());
        // The process can still initialize afterwards, with any topology.
        state.initialize(context(8, 2), ParallelConfig{4});
        QCOMPARE(state.topology()->ep, 4);
    }

    // The callback hears about every group of the expert mesh, dim by dim, in the creation order asked for.
    void callback_sees_creation_order_data() {
        QTest::addColumn<qint64>("dp");
        QTest::addColumn<qint64>("cp");
        QTest::addColumn<qint64>("ep");
        QTest::addColumn<meshscope::CreationOrder>("order");
        QTest::addRow("dp8 cp2 ep2 torch29") << 8LL << 2LL << 2LL << CreationOrder::torch29;
        QTest::addRow("dp8 cp2 ep2 torch28") << 8LL << 2LL << 2LL << CreationOrder::torch28;
        QTest::addRow("dp24 cp3 ep4 torch28") << 24LL << 3LL << 4LL << CreationOrder::torch28;
        QTest::addRow("dp16 ep8 torch29") << 16LL << 1LL << 8LL << CreationOrder::torch29;
    }
    void callback_sees_creation_order() {
        QFETCH(qint64, dp);
        QFETCH(qint64, cp);
        QFETCH(qint64, ep);
        QFETCH(meshscope::CreationOrder, order);
        std::vector<Created> seen;
        auto c = context(dp, cp);
        c.order = order;
        c.on_group_created = [&](const GroupCreated& g) {
            seen.push_back(
                {std::string(g.mesh), std::string(g.dim), g.index, g.count, Ints(g.ranks.begin(), g.ranks.end())});
        };
        parallel_state().initialize(c, ParallelConfig{ep});
        const auto mesh = make_expert_mesh(Topology::make(dp, cp, ep).value()).value();
        std::size_t i = 0;
        for (std::size_t d = 0; d < mesh.ndim(); ++d) {
            const auto groups = mesh.groups(d, order);
            for (std::size_t g = 0; g < groups.size(); ++g, ++i) {
                QVERIFY(i < seen.size());
                QCOMPARE(QString::fromStdString(seen[i].mesh), QStringLiteral("expert"));
                QCOMPARE(seen[i].dim, mesh.dim_names()[d]);
                QCOMPARE(seen[i].index, static_cast<std::int64_t>(g));
                QCOMPARE(seen[i].count, static_cast<std::int64_t>(groups.size()));
                COMPARE_INTS(seen[i].ranks, groups[g]);
            }
        }
        QCOMPARE(seen.size(), i);
    }

    void ep1_calls_nothing() {
        int calls = 0;
        auto c = context(16, 2);
        c.on_group_created = [&](const GroupCreated&) { ++calls; };
        parallel_state().initialize(c, ParallelConfig{1});
        QCOMPARE(calls, 0);
        QVERIFY(parallel_state().initialized());
    }

    // Many threads at once with different topologies: exactly one wins; every other one returns (same
    // topology) or gets the exact mismatch text naming the winner. Repeated to shake out interleavings.
    void concurrent_initialize_data() {
        QTest::addColumn<int>("threads");
        QTest::addColumn<int>("rounds");
        QTest::addRow("8 threads") << 8 << 50;
        QTest::addRow("32 threads") << 32 << 10;
    }
    void concurrent_initialize() {
        QFETCH(int, threads);
        QFETCH(int, rounds);
        const std::int64_t eps[] = {1, 2, 4, 8};
        for (int round = 0; round < rounds; ++round) {
            auto& state = parallel_state();
            state.reset();
            std::barrier start(threads);
            std::vector<std::string> errors(static_cast<std::size_t>(threads));
            std::vector<std::int64_t> asked(static_cast<std::size_t>(threads));
            std::atomic<int> callbacks_running{0}, overlap{0};
            std::vector<std::thread> pool;
            for (int t = 0; t < threads; ++t) {
                asked[static_cast<std::size_t>(t)] = eps[(t + round) % 4];
                pool.emplace_back([&, t] {
                    auto c = context(16, 2);
                    c.on_group_created = [&](const GroupCreated&) {
                        if (callbacks_running.fetch_add(1) != 0) overlap.fetch_add(1);
                        callbacks_running.fetch_sub(1);
                    };
                    start.arrive_and_wait();
                    try {
                        state.initialize(c, ParallelConfig{asked[static_cast<std::size_t>(t)]});
                    } catch (const Error& e) {
                        errors[static_cast<std::size_t>(t)] = e.message();
                    }
                });
            }
            for (auto& thread : pool) thread.join();
            QVERIFY(state.initialized());
            QCOMPARE(overlap.load(), 0);  // two builds never ran at once
            const auto winner = *state.topology();
            for (int t = 0; t < threads; ++t) {
                const auto ep = asked[static_cast<std::size_t>(t)];
                const auto& error = errors[static_cast<std::size_t>(t)];
                if (ep == winner.ep) {
                    QVERIFY2(error.empty(), error.c_str());
                } else {
                    QCOMPARE(QString::fromStdString(error),
                             QString::fromStdString("FSDPTurbo parallel state is already initialized with " +
                                                    winner.tuple_string() + ", got " +
                                                    Topology::make(16, 2, ep).value().tuple_string() + "."));
                }
            }
            if (winner.ep > 1)
                QCOMPARE(state.expert_mesh()->dim_size(2), winner.ep);
            else
                QVERIFY(!state.expert_mesh());
        }
    }

    // Readers while another thread initializes and resets: every snapshot they get is a whole one.
    void concurrent_readers() {
        auto& state = parallel_state();
        std::atomic<bool> stop{false};
        std::atomic<int> torn{0};
        std::thread reader([&] {
            while (!stop) {
                const auto t = state.topology();
                if (t && t->ep != 2 && t->ep != 8) torn.fetch_add(1);
                const auto mesh = state.expert_mesh();
                if (mesh && mesh->dim_size(2) * mesh->dim_size(1) != 16) torn.fetch_add(1);
            }
        });
        for (int i = 0; i < 300; ++i) {
            state.initialize(context(16, 1), ParallelConfig{i % 2 ? 2 : 8});
            state.reset();
        }
        stop = true;
        reader.join();
        QCOMPARE(torn.load(), 0);
    }
};

QTEST_GUILESS_MAIN(ParallelStateTest)
#include "tst_parallel_state.moc"
