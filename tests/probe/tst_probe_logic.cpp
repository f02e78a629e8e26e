// meshscope-probe's logic without a GPU or a network: nccl-tests' bandwidth definitions, the deterministic
// data and its exact results, each rank's groups in creation order (domain.md's worked examples), the plan
// exchange's verdict and the first group that cannot form, a group's connects retried together, and the command
// line. Expected values are
// worked by hand.
#include <QtTest>

#include <map>

#include "src/bandwidth.h"
#include "src/communicator.h"
#include "src/connect_retry.h"
#include "src/group_schedule.h"
#include "src/pattern.h"
#include "src/plan_exchange.h"
#include "src/probe_options.h"

using namespace meshscope;
using namespace meshscope::probe;

namespace {
Plan plan_of(std::int64_t dp, std::int64_t cp, std::int64_t ep, CreationOrder order = CreationOrder::torch29) {
    return *Plan::make(*Topology::make(dp, cp, ep), 8, order);
}

// In memory, for the exchange (a map every "rank" shares).
class MemoryKeyValue : public KeyValue {
public:
    void set(const std::string& key, const std::string& value) override { values_[key] = value; }
    std::optional<std::string> try_get(const std::string& key) override {
        const auto it = values_.find(key);
        return it == values_.end() ? std::nullopt : std::optional(it->second);
    }

private:
    std::map<std::string, std::string> values_;
};

QString schedule_text(const std::vector<GroupSpec>& schedule) {
    QStringList out;
    for (const auto& g : schedule) {
        QStringList members;
        for (auto m : g.members) members << QString::number(m);
        out << QString("%1:%2#%3[%4]@%5")
                   .arg(QString::fromStdString(g.dim))
                   .arg(g.index)
                   .arg(g.creation)
                   .arg(members.join(","))
                   .arg(g.position);
    }
    return out.join(" ");
}
}  // namespace

class TestProbeLogic : public QObject {
    Q_OBJECT
private slots:
    void bandwidth_follows_nccl_tests_data() {
        QTest::addColumn<int>("collective");
        QTest::addColumn<qint64>("bytes");
        QTest::addColumn<qint64>("ranks");
        QTest::addColumn<double>("seconds");
        QTest::addColumn<double>("algbw");
        QTest::addColumn<double>("busbw");
        // all_reduce: S / t, x 2(n-1)/n. 1 GB in 0.5 s on 4 ranks: 2 GB/s, busbw 2 x 1.5 = 3 GB/s.
        QTest::addRow("all_reduce 4") << int(Collective::all_reduce) << qint64{1000000000} << qint64{4} << 0.5 << 2.0
                                      << 3.0;
        // all_gather: nccl-tests counts the gathered output: 0.25 GB in x 4 = 1 GB in 1 s: 1 GB/s, busbw 0.75.
        QTest::addRow("all_gather 4") << int(Collective::all_gather) << qint64{250000000} << qint64{4} << 1.0 << 1.0
                                      << 0.75;
        // reduce_scatter: the input (the total): 1 GB in 2 s on 2 ranks: 0.5 GB/s, busbw 0.25.
        QTest::addRow("reduce_scatter 2")
            << int(Collective::reduce_scatter) << qint64{1000000000} << qint64{2} << 2.0 << 0.5 << 0.25;
        // all_to_all: the per-rank send buffer: 1 GB in 0.1 s on 8 ranks: 10 GB/s, busbw 10 x 7/8 = 8.75.
        QTest::addRow("all_to_all 8") << int(Collective::all_to_all) << qint64{1000000000} << qint64{8} << 0.1 << 10.0
                                      << 8.75;
        // A group of one moves nothing over a link.
        QTest::addRow("one rank") << int(Collective::all_reduce) << qint64{1000000000} << qint64{1} << 1.0 << 1.0
                                  << 0.0;
    }
    void bandwidth_follows_nccl_tests() {
        QFETCH(int, collective);
        QFETCH(qint64, bytes);
        QFETCH(qint64, ranks);
        QFETCH(double, seconds);
        QFETCH(double, algbw);
        QFETCH(double, busbw);
        const Bandwidth b = bandwidth(static_cast<Collective>(collective), bytes, ranks, seconds);
        QCOMPARE(b.algbw, algbw);
        QCOMPARE(b.busbw + 1.0, busbw + 1.0);  // qFuzzyCompare cannot compare with 0
    }

    void expected_results_by_hand() {
        // Group [1, 3]: rank r's element i is r + 1 + i % 13. Inputs of 4 elements: rank 1 [2,3,4,5], rank 3 [4,5,6,7].
        const std::vector<std::int64_t> members = {1, 3};
        const Shape ar = shape_of(Collective::all_reduce, 16, 2);
        QCOMPARE(ar.input, std::size_t{4});
        QCOMPARE(expected_output(Collective::all_reduce, members, 0, ar), (std::vector<float>{6, 8, 10, 12}));
        const Shape ag = shape_of(Collective::all_gather, 8, 2);  // 2 elements each, 4 gathered
        QCOMPARE(expected_output(Collective::all_gather, members, 1, ag), (std::vector<float>{2, 3, 4, 5}));
        // reduce_scatter of 4 elements: position 1 gets chunk 1 = elements 2, 3 summed: [4 + 6, 5 + 7].
        const Shape rs = shape_of(Collective::reduce_scatter, 16, 2);
        QCOMPARE(rs.output, std::size_t{2});
        QCOMPARE(expected_output(Collective::reduce_scatter, members, 1, rs), (std::vector<float>{10, 12}));
        // all_to_all: position 0 receives chunk 0 of each: rank 1's [2, 3], rank 3's [4, 5].
        const Shape aa = shape_of(Collective::all_to_all, 16, 2);
        QCOMPARE(expected_output(Collective::all_to_all, members, 0, aa), (std::vector<float>{2, 3, 4, 5}));
        // 1 KiB over 3 ranks: 256 floats -> chunks of 85, 255 elements in.
        QCOMPARE(shape_of(Collective::all_to_all, 1024, 3).input, std::size_t{255});
        QCOMPARE(first_difference(std::vector<float>{1, 2, 3}, std::vector<float>{1, 2, 4}),
                 std::optional<std::size_t>(2));
        QCOMPARE(first_difference(std::vector<float>{1, 2}, std::vector<float>{1, 2}), std::optional<std::size_t>());
    }

    void schedules_follow_the_plan_data() {
        QTest::addColumn<qint64>("dp");
        QTest::addColumn<qint64>("cp");
        QTest::addColumn<qint64>("ep");
        QTest::addColumn<QString>("order");
        QTest::addColumn<qint64>("rank");
        QTest::addColumn<QString>("schedule");  // dim:index#creation[members]@position
        // domain.md: dp=8, cp=2, ep=2 -> data mesh (8, 2): dp [[0,2,..,14],[1,3,..,15]], cp [[0,1],[2,3],..];
        // expert mesh (1, 4, 2, 2): edp 16 groups of one, efsdp [[1,5,9,13]] for rank 5, ep [4,6],[5,7] ...,
        // expert_cp [4,5]. Creation counts every earlier dim's groups, the model mesh's first (LlamaFactory builds
        // it first; at its default (1, 16): mp_replicate 16 singletons indexed by rank, mp_shard one group of all),
        // so every data and expert index is 17 past where it would be without it: mp_replicate 16, mp_shard 1,
        // dp 2, cp 8, edp 16, efsdp 4, ep 8.
        QTest::addRow("rank 5 of (8, 2, 2)")
            << qint64{8} << qint64{2} << qint64{2} << "torch29" << qint64{5}
            << "mp_replicate:5#5[5]@0 mp_shard:0#16[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]@5 "
               "dp:1#18[1,3,5,7,9,11,13,15]@2 cp:2#21[4,5]@1 edp:5#32[5]@0 efsdp:1#44[1,5,9,13]@1 ep:3#50[5,7]@0 "
               "expert_cp:2#57[4,5]@1";
        // dp=16, cp=1, ep=8, rank 13 at [0, 1, 5, 0]: efsdp [5, 13], ep [8..15].
        QTest::addRow("rank 13 of (16, 1, 8)")
            << qint64{16} << qint64{1} << qint64{8} << "torch29" << qint64{13}
            << "mp_replicate:13#13[13]@0 mp_shard:0#16[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]@13 "
               "dp:0#17[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]@13 cp:13#31[13]@0 edp:13#47[13]@0 "
               "efsdp:5#55[5,13]@1 ep:1#59[8,9,10,11,12,13,14,15]@5 expert_cp:13#73[13]@0";
        // torch28 differs for dims d <= ndim - 3 (edp, efsdp): rows of mesh.swapdims(-1, d). edp: rows over
        // (expert_cp, efsdp, ep) = (1, 1, 0) -> 1 * 8 + 1 * 2 + 0 = 10. efsdp: rows over (edp, expert_cp, ep) =
        // (0, 1, 0) -> 2.
        QTest::addRow("rank 5 of (8, 2, 2), torch28")
            << qint64{8} << qint64{2} << qint64{2} << "torch28" << qint64{5}
            << "mp_replicate:5#5[5]@0 mp_shard:0#16[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]@5 "
               "dp:1#18[1,3,5,7,9,11,13,15]@2 cp:2#21[4,5]@1 edp:10#37[5]@0 efsdp:2#45[1,5,9,13]@1 ep:3#50[5,7]@0 "
               "expert_cp:2#57[4,5]@1";
    }
    void schedules_follow_the_plan() {
        QFETCH(qint64, dp);
        QFETCH(qint64, cp);
        QFETCH(qint64, ep);
        QFETCH(QString, order);
        QFETCH(qint64, rank);
        QFETCH(QString, schedule);
        const auto o = *parse_creation_order(order.toStdString());
        QCOMPARE(schedule_text(rank_schedule(plan_of(dp, cp, ep, o), rank)), schedule);
    }

    void the_exchange_names_differing_ranks() {
        // 8 ranks; rank 6 was started with --ep 4.
        MemoryKeyValue kv;
        for (std::int64_t r = 1; r < 8; ++r)
            kv.set("plan." + std::to_string(r), PlanKey::of(plan_of(4, 2, r == 6 ? 4 : 2)).json());
        const PlanVerdict v = exchange_plans(kv, plan_of(4, 2, 2), 0, 8, std::chrono::milliseconds{100});
        QVERIFY(!v.agreed());
        QCOMPARE(v.differing, std::vector<std::int64_t>{6});
        QCOMPARE(QString::fromStdString(v.message(std::chrono::milliseconds{5000})),
                 "the ranks' plans differ: rank 6 has (dp, cp, ep) = (4, 2, 4), torch29; ranks 0-5, 7 have "
                 "(dp, cp, ep) = (4, 2, 2), torch29");
        // Rank 3 reads rank 0's verdict and reaches the same one.
        const PlanVerdict seen = exchange_plans(kv, plan_of(4, 2, 2), 3, 8, std::chrono::milliseconds{100});
        QCOMPARE(seen.differing, std::vector<std::int64_t>{6});

        // The first group that cannot form for rank 2: data mesh (4, 2) is the same for everyone; the expert
        // mesh (1, 2, 2, 2) vs rank 6's (1, 1, 4, 2): rank 2's efsdp group [2, 6] (creation 2 + 4 + 8 + 2 = 16)
        // is not a group rank 6 creates.
        const auto u = first_unformable_group(v, 2);
        QVERIFY(u.has_value());
        QCOMPARE(u->group.dim, std::string("efsdp"));
        QCOMPARE(u->group.members, (std::vector<std::int64_t>{2, 6}));
        QCOMPARE(u->missing, std::vector<std::int64_t>{6});
        // Rank 1's groups (dp [1, 3, 5, 7], cp [0, 1], efsdp [1, 5], ep [1, 3], expert_cp [0, 1]) leave rank 6 out.
        QVERIFY(!first_unformable_group(v, 1).has_value());
    }

    void the_exchange_names_silent_ranks() {
        MemoryKeyValue kv;
        kv.set("plan.1", PlanKey::of(plan_of(2, 2, 1)).json());
        const PlanVerdict v = exchange_plans(kv, plan_of(2, 2, 1), 0, 4, std::chrono::milliseconds{50});
        QCOMPARE(v.never, (std::vector<std::int64_t>{2, 3}));
        QCOMPARE(QString::fromStdString(v.message(std::chrono::milliseconds{5000})),
                 "ranks 2-3 never published a plan within 5.0 s");
    }

    // A group's connects retried together (connect_retry.h), seen from member 0 of ranks {4, 5}: its own
    // attempts ("ok", or "fail": the transport's I/O error) and the records member 1 left in the store.
    void connects_are_retried_together_data() {
        QTest::addColumn<QStringList>("own");
        QTest::addColumn<QStringList>("peer");
        QTest::addColumn<int>("attempts");  // 0: it gives up
        QTest::addColumn<QString>("error");
        QTest::addColumn<QList<int>>("pauses");  // milliseconds slept before each retry
        QTest::addRow("connects at once") << QStringList{"ok"} << QStringList{"ok"} << 1 << "" << QList<int>{};
        QTest::addRow("own connect fails once")
            << QStringList{"fail", "ok"} << QStringList{"ok", "ok"} << 2 << "" << QList<int>{100};
        QTest::addRow("the peer's connect fails once")
            << QStringList{"ok", "ok"} << QStringList{"failed", "ok"} << 2 << "" << QList<int>{100};
        QTest::addRow("both fail twice") << QStringList{"fail", "fail", "ok"} << QStringList{"failed", "failed", "ok"}
                                         << 3 << "" << QList<int>{100, 200};
        QTest::addRow("every attempt fails")
            << QStringList{"fail", "fail", "fail"} << QStringList{"failed", "failed", "failed"} << 0
            << "after 3 attempts: Connection closed by peer" << QList<int>{100, 200};
        QTest::addRow("the peer fails every attempt")
            << QStringList{"ok", "ok", "ok"} << QStringList{"failed", "failed", "failed"} << 0
            << "after 3 attempts: another member's connect failed" << QList<int>{100, 200};
    }
    void connects_are_retried_together() {
        QFETCH(QStringList, own);
        QFETCH(QStringList, peer);
        QFETCH(int, attempts);
        QFETCH(QString, error);
        QFETCH(QList<int>, pauses);
        MemoryKeyValue kv;
        for (int n = 0; n < peer.size(); ++n) kv.set("g.t" + std::to_string(n + 1) + ".state.1", peer[n].toStdString());
        QStringList prefixes;
        QList<int> slept;
        std::chrono::milliseconds first_budget{0};
        const auto attempt = [&](const std::string& prefix, std::chrono::milliseconds budget) {
            if (prefixes.isEmpty()) first_budget = budget;
            prefixes << QString::fromStdString(prefix);
            if (own.value(prefixes.size() - 1) == "fail") throw ConnectFailed("Connection closed by peer");
        };
        const auto sleep = [&](std::chrono::milliseconds pause) { slept << static_cast<int>(pause.count()); };
        int taken = 0;
        QString thrown;
        try {
            taken =
                connect_together(kv, "g", 0, {4, 5}, std::chrono::milliseconds{30000}, RetryPolicy{}, attempt, sleep);
        } catch (const ConnectFailed& e) {
            thrown = e.what();
        }
        QCOMPARE(taken, attempts);
        QCOMPARE(thrown, error);
        QCOMPARE(slept, pauses);
        // Each attempt under a fresh prefix, recorded for the other members; the first gets a third of the time.
        QCOMPARE(prefixes.size(), own.size());
        for (int n = 0; n < prefixes.size(); ++n) {
            QCOMPARE(prefixes[n], QStringLiteral("g.t%1").arg(n + 1));
            QCOMPARE(QString::fromStdString(kv.try_get("g.t" + std::to_string(n + 1) + ".state.0").value_or("")),
                     own[n] == "ok" ? "ok" : "failed");
        }
        QVERIFY2(first_budget > std::chrono::milliseconds{9000} && first_budget <= std::chrono::milliseconds{10000},
                 qPrintable(QString::number(first_budget.count())));
    }

    void a_member_that_never_records_is_named() {
        MemoryKeyValue kv;
        int calls = 0;
        try {
            (void)connect_together(
                kv, "g", 1, {2, 3, 6}, std::chrono::milliseconds{200}, RetryPolicy{},
                [&](const std::string&, std::chrono::milliseconds) { ++calls; }, [](std::chrono::milliseconds) {});
            QFAIL("connected without the others");
        } catch (const NotFormed& e) {
            QCOMPARE(QString(e.what()), "ranks 2, 6 did not finish connecting within 0.2 s");
            QCOMPARE(e.missing(), (std::vector<std::int64_t>{2, 6}));
        }
        QCOMPARE(calls, 1);
    }

    void other_failures_are_not_retried() {
        MemoryKeyValue kv;
        int calls = 0;
        QVERIFY_THROWS_EXCEPTION(std::logic_error,
                                 (void)connect_together(
                                     kv, "g", 0, {0, 1}, std::chrono::milliseconds{1000}, RetryPolicy{},
                                     [&](const std::string&, std::chrono::milliseconds) {
                                         ++calls;
                                         throw std::logic_error("no key g.t1/1");
                                     },
                                     [](std::chrono::milliseconds) {}));
        QCOMPARE(calls, 1);
    }

    void options_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("error");  // empty: accepted
        QTest::addRow("minimal") << QStringList{"--collector", "http://127.0.0.1:1"} << "";
        QTest::addRow("no collector") << QStringList{"--dp", "2"}
                                      << "meshscope-probe needs a collector, which is also its rendezvous: pass "
                                         "--collector URL or set MESHSCOPE_URL (start one with meshscope serve)";
        QTest::addRow("sizes not power of two") << QStringList{"--sizes", "3K", "--collector", "x"}
                                                << "--sizes must be a power of two or a range of them (64K, 1K:256M; "
                                                   "K = 1024), got \"3K\"";
        QTest::addRow("sizes backwards") << QStringList{"--sizes", "1M:1K", "--collector", "x"}
                                         << "--sizes must go from small to large, got \"1M:1K\"";
        QTest::addRow("backend") << QStringList{"--backend", "mpi", "--collector", "x"}
                                 << "--backend must be gloo or nccl, got \"mpi\"";
        QTest::addRow("ep zero") << QStringList{"--ep", "0", "--collector", "x"}
                                 << "--ep must be a positive whole number, got \"0\"";
        QTest::addRow("plan and dp") << QStringList{"--plan", "p.json", "--dp", "2", "--collector", "x"}
                                     << "give either --plan or --dp/--cp/--ep, not both";
        QTest::addRow("unknown") << QStringList{"--fast", "1", "--collector", "x"} << "unknown option \"--fast\"";
        QTest::addRow("no value") << QStringList{"--collector", "x", "--dp"} << "--dp needs a value";
        QTest::addRow("slow group") << QStringList{"--inject-slow-group", "ep", "--collector", "x"}
                                    << "--inject-slow-group must be DIM:INDEX[:MILLISECONDS], got \"ep\"";
    }
    void options() {
        QFETCH(QStringList, args);
        QFETCH(QString, error);
        std::vector<std::string> a;
        for (const auto& s : args) a.push_back(s.toStdString());
        const auto o = parse_probe_options(a, [](const char*) { return std::optional<std::string>(); });
        QCOMPARE(o.has_value() ? QString() : QString::fromStdString(o.error().message()), error);
    }

    void one_group_at_a_time_is_a_flag() {
        const auto no_env = [](const char*) { return std::optional<std::string>(); };
        // A flag takes no value, also as the last argument; without it, every group of a dim runs at once.
        const auto last = parse_probe_options({"--collector", "x", "--one-group-at-a-time"}, no_env);
        QVERIFY(last.has_value());
        QVERIFY(last->one_group_at_a_time);
        const auto first = parse_probe_options({"--one-group-at-a-time", "--dp", "2", "--collector", "x"}, no_env);
        QVERIFY(first.has_value());
        QVERIFY(first->one_group_at_a_time);
        QCOMPARE(first->dp, std::optional<std::int64_t>(2));
        const auto without = parse_probe_options({"--collector", "x"}, no_env);
        QVERIFY(without.has_value());
        QVERIFY(!without->one_group_at_a_time);
    }

    void options_read_the_launcher() {
        // Slurm's variables when torchrun's are absent; the job is the launcher's plus "-probe".
        const std::map<std::string, std::string> env = {{"SLURM_PROCID", "5"},
                                                        {"SLURM_NTASKS", "16"},
                                                        {"SLURM_LOCALID", "1"},
                                                        {"SLURM_JOB_ID", "4242"},
                                                        {"MESHSCOPE_URL", "http://head:7077"}};
        const auto o = parse_probe_options({"--sizes", "1K:8K"}, [&](const char* name) -> std::optional<std::string> {
            const auto it = env.find(name);
            return it == env.end() ? std::nullopt : std::optional(it->second);
        });
        QVERIFY(o.has_value());
        QCOMPARE(o->rank, std::int64_t{5});
        QCOMPARE(o->world, std::int64_t{16});
        QCOMPARE(o->local_rank, std::int64_t{1});
        QCOMPARE(o->job, std::string("4242-probe"));
        QCOMPARE(o->sizes, (std::vector<std::int64_t>{1024, 2048, 4096, 8192}));
    }
};

QTEST_GUILESS_MAIN(TestProbeLogic)
#include "tst_probe_logic.moc"
