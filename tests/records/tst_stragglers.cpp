// The straggler rule over Flight Recorder arrivals (docs/records.md, "Stragglers"), on jobs simulated here: each
// rank's dump written as the JSON torch writes (_dump_fr_trace_json) from a timeline of blocking collectives
// (a collective ends when its last member enters it; each member leaves then), with the fault of each row
// injected into that timeline. What a row expects comes from the fault it injects (which rank, which dim, how
// late), and the figures of the hand-worked row from arithmetic done here by hand.
#include <QTest>

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "meshscope/records/diagnose.h"

using namespace meshscope;
using namespace meshscope::records;

namespace {
constexpr std::int64_t ms = 1'000'000;  // ns

struct Entry {
    std::string pg, desc, op;
    std::int64_t seq = 0, time = 0;
};

RecordSet job_of(const std::map<std::int64_t, std::vector<Entry>>& entries) {
    RecordSet set;
    for (const auto& [rank, list] : entries) {
        nlohmann::json doc = {
            {"version", "2.10"}, {"pg_config", nlohmann::json::object()}, {"entries", nlohmann::json::array()}};
        std::int64_t id = 0;
        for (const auto& e : list)
            doc["entries"].push_back({{"record_id", id++},
                                      {"process_group", {e.pg, e.desc}},
                                      {"collective_seq_id", e.seq},
                                      {"profiling_name", "gloo:" + e.op},
                                      {"time_created_ns", e.time},
                                      {"state", "scheduled"},
                                      {"is_p2p", false}});
        auto dump = read_fr_dump(doc.dump(), "nccl_trace_rank_" + std::to_string(rank));
        if (!dump) qFatal("%s", dump.error().message().c_str());
        set.dumps.push_back(std::move(dump).value());
    }
    return set;
}

// dp 8, cp 1, ep 4: efsdp groups [0, 4], [1, 5], [2, 6], [3, 7] (Flight Recorder names "1"-"4"), ep groups
// [0, 1, 2, 3], [4, 5, 6, 7] ("5", "6"). Each step: an all_gather on the efsdp group, then an all_reduce on the
// ep group; before each a rank computes 100 ms (50 ms) plus its noise plus what the row injects.
struct Fault {
    std::int64_t rank = -1;
    std::string dim;        // "efsdp", "ep" or "both"
    std::int64_t step = 0;  // 0: every step
    std::int64_t late = 0;  // ns
};

RecordSet simulated(std::int64_t noise_ns, const std::vector<Fault>& faults, int steps = 6) {
    std::map<std::int64_t, std::vector<Entry>> entries;
    std::vector<std::int64_t> clock(8, 1'700'000'000'000'000'000);
    const auto noise = [&](std::int64_t r, std::int64_t s, std::int64_t k) {
        return (r * 7919 + s * 104729 + k * 15485863) % 1000 * noise_ns / 1000;
    };
    const auto injected = [&](std::int64_t r, std::int64_t s, const std::string& dim) {
        std::int64_t late = 0;
        for (const auto& f : faults)
            if (f.rank == r && (f.step == 0 || f.step == s) && (f.dim == dim || f.dim == "both")) late += f.late;
        return late;
    };
    for (std::int64_t s = 1; s <= steps; ++s) {
        for (const bool efsdp : {true, false}) {
            std::vector<std::int64_t> t(8);
            for (std::int64_t r = 0; r < 8; ++r)
                t[r] = clock[r] + (efsdp ? 100 : 50) * ms + noise(r, s, efsdp) + injected(r, s, efsdp ? "efsdp" : "ep");
            std::map<std::string, std::int64_t> end;
            for (std::int64_t r = 0; r < 8; ++r) {
                const std::string pg = efsdp ? std::to_string(1 + r % 4) : std::to_string(5 + r / 4);
                entries[r].push_back(
                    {pg, efsdp ? "mesh_efsdp" : "mesh_ep", efsdp ? "all_gather" : "all_reduce", s, t[r]});
                end[pg] = std::max(end[pg], t[r]);
            }
            for (std::int64_t r = 0; r < 8; ++r)
                clock[r] = end[efsdp ? std::to_string(1 + r % 4) : std::to_string(5 + r / 4)] + ms;
        }
    }
    return job_of(entries);
}

std::set<std::pair<std::int64_t, std::string>> late_of(const Diagnosis& d) {
    std::set<std::pair<std::int64_t, std::string>> out;
    for (const RankLag* r : d.stragglers.late()) out.emplace(r->rank, r->dim);
    return out;
}

std::vector<const SourcedFinding*> straggler_findings(const Diagnosis& d) {
    std::vector<const SourcedFinding*> out;
    for (const auto& f : d.findings)
        if (f.finding.kind == FindingKind::straggler) out.push_back(&f);
    return out;
}

using Late = std::set<std::pair<std::int64_t, std::string>>;
}  // namespace

Q_DECLARE_METATYPE(std::vector<Fault>)
Q_DECLARE_METATYPE(Late)

class StragglersTest : public QObject {
    Q_OBJECT
private slots:
    void rule_data() {
        QTest::addColumn<qint64>("noise");
        QTest::addColumn<std::vector<Fault>>("faults");
        QTest::addColumn<Late>("late");
        QTest::addColumn<qint64>("typical_at_least");  // the late rank's typical lag, ns
        QTest::addColumn<qint64>("typical_below");
        // Every rank's compute varies by up to 30 ms: arrivals spread, nobody is late.
        QTest::addRow("noise") << qint64(30 * ms) << std::vector<Fault>{} << Late{} << qint64(0) << qint64(0);
        // A heavy noise, up to 400 ms at every collective: wide, but within the 500 ms floor.
        QTest::addRow("heavy noise under the floor")
            << qint64(400 * ms) << std::vector<Fault>{} << Late{} << qint64(0) << qint64(0);
        // Rank 5 computes 2.5 s longer once, before step 3's efsdp all_gather: late there, and only there (its ep
        // peers then wait for it, and it for nobody: the rule does not name them, nor rank 5 in ep).
        QTest::addRow("one big outlier") << qint64(30 * ms) << std::vector<Fault>{{5, "efsdp", 3, 2500 * ms}}
                                         << Late{{5, "efsdp"}} << qint64(0) << qint64(150 * ms);
        // The same once in ep, step 6 (the last collective of the window).
        QTest::addRow("outlier at the last collective") << qint64(30 * ms) << std::vector<Fault>{{2, "ep", 6, 900 * ms}}
                                                        << Late{{2, "ep"}} << qint64(0) << qint64(150 * ms);
        // Rank 3 computes 1.5 s longer before every collective: late in both dims, typically so (1.5 s and its
        // 50-100 ms of compute, which its peers, free earlier, did not wait for).
        QTest::addRow("a rank late everywhere")
            << qint64(30 * ms) << std::vector<Fault>{{3, "both", 0, 1500 * ms}} << Late{{3, "efsdp"}, {3, "ep"}}
            << qint64(1500 * ms) << qint64(1650 * ms);
    }
    void rule() {
        QFETCH(qint64, noise);
        QFETCH(std::vector<Fault>, faults);
        QFETCH(Late, late);
        QFETCH(qint64, typical_at_least);
        QFETCH(qint64, typical_below);
        const Plan plan = Plan::make(Topology::make(8, 1, 4).value(), 8).value();
        const Diagnosis d = diagnose(simulated(noise, faults), &plan);
        QCOMPARE(late_of(d), late);
        // Every rank has a score; the late ones above one half, the others below.
        QCOMPARE(d.stragglers.scores.size(), std::size_t{8});
        for (const auto& [rank, score] : d.stragglers.scores) {
            bool is_late = false;
            for (const auto& l : late) is_late = is_late || l.first == rank;
            QVERIFY2(score >= 0 && score <= 1, qPrintable(QString::number(score)));
            QVERIFY2(is_late == (score > 0.5), qPrintable(QString("rank %1 score %2").arg(rank).arg(score)));
        }
        // One finding per dim with late ranks, naming exactly them.
        const auto found = straggler_findings(d);
        std::set<std::string> dims;
        for (const auto& l : late) dims.insert(l.second);
        QCOMPARE(found.size(), dims.size());
        for (const SourcedFinding* f : found) {
            std::vector<std::int64_t> expected;
            const std::string dim = f->finding.id.substr(f->finding.id.rfind('/') + 1);
            for (const auto& l : late)
                if (l.second == dim) expected.push_back(l.first);
            QCOMPARE(f->finding.ranks, expected);
            QVERIFY(QString::fromStdString(f->finding.message)
                        .startsWith(QString::fromStdString("late arrivals in " + dim + ": rank ")));
            QCOMPARE(f->sources.front(), "nccl_trace_rank_" + std::to_string(expected.front()));
        }
        for (const RankLag* r : d.stragglers.late()) {
            QVERIFY2(r->typical_ns >= typical_at_least && r->typical_ns < typical_below,
                     qPrintable(QString::number(r->typical_ns)));
            for (const auto& f : faults)
                if (f.rank == r->rank)  // late by what was injected, give or take its peers' noise
                    QVERIFY2(r->worst.lag_ns >= f.late - noise, qPrintable(QString::number(r->worst.lag_ns)));
        }
        // The import carries the findings.
        std::size_t imported = 0;
        for (const auto& f : to_records_import(d).findings) imported += f.kind == FindingKind::straggler;
        QCOMPARE(imported, dims.size());
    }

    // Worked by hand: two ranks, the world group, six all_reduces. Rank 0 enters each at T_i, rank 1 at T_i + L_i
    // with L = 0, 10, 20, 30, 40, 3000 ms, and rank 0 computes 1 s after each (T_i+1 = T_i + L_i + 1 s): rank 1's
    // own lag is all of L_i (it waited for nobody). The first collective is not judged (nothing before it is
    // recorded). Lags: 0 x 5 (rank 0), 10, 20, 30, 40, 3000: median (0 + 10) / 2 = 5 ms; deviations 5 x 6, 15, 25,
    // 35, 2995: MAD 5 ms; threshold 5 + max(5 x 1.4826 x 5 = 37.065, 500) = 505 ms. Rank 1: worst 3000 ms at seq
    // 6, typical 30 ms, score 2995 / (2995 + 500).
    void hand_worked() {
        std::map<std::int64_t, std::vector<Entry>> entries;
        std::int64_t t = 1'700'000'000'000'000'000;
        const std::int64_t lags[] = {0, 10, 20, 30, 40, 3000};
        for (std::int64_t i = 0; i < 6; ++i) {
            entries[0].push_back({"0", "default_pg", "all_reduce", i + 1, t});
            entries[1].push_back({"0", "default_pg", "all_reduce", i + 1, t + lags[i] * ms});
            t += lags[i] * ms + 1000 * ms;
        }
        const Plan plan = Plan::make(Topology::make(2, 1, 1).value(), 8).value();
        const Diagnosis d = diagnose(job_of(entries), &plan);
        QCOMPARE(d.stragglers.dims.size(), std::size_t{1});
        const DimLags& world = d.stragglers.dims.front();
        QCOMPARE(world.dim, std::string("world"));
        QCOMPARE(world.arrivals, std::int64_t{10});
        QCOMPARE(world.median_ns, 5 * ms);
        QCOMPARE(world.mad_ns, 5 * ms);
        QCOMPARE(world.threshold_ns, 505 * ms);
        QCOMPARE(late_of(d), (Late{{1, "world"}}));
        const RankLag& r1 = *d.stragglers.late().front();
        QCOMPARE(r1.worst.lag_ns, 3000 * ms);
        QCOMPARE(r1.worst.raw_ns, 3000 * ms);
        QCOMPARE(r1.worst.seq, std::int64_t{6});
        QCOMPARE(r1.typical_ns, 30 * ms);
        QCOMPARE(r1.arrivals, std::int64_t{5});
        QCOMPARE(d.stragglers.scores, (std::vector<std::pair<std::int64_t, double>>{{0, 0.0}, {1, 2995.0 / 3495.0}}));
        const auto found = straggler_findings(d);
        QCOMPARE(found.size(), std::size_t{1});
        QCOMPARE(found.front()->finding.id, std::string("straggler/flight_recorder/world"));
        QCOMPARE(found.front()->finding.message,
                 std::string("late arrivals in world: rank 1 entered seq 6 (all_reduce) of the world group [0, 1] "
                             "3000.0 ms late (typically 30.0 ms); the world threshold is 505.0 ms over 10 arrivals "
                             "(median 5.0 ms, MAD 5.0 ms) (Flight Recorder)"));
        QCOMPARE(found.front()->finding.fix,
                 std::string("Look at what rank 1 was doing just before that collective (the log and a stack at that "
                             "time: data loading, a host sync, garbage collection, a checkpoint, CPU or I/O "
                             "contention on the host); every member of the group waited for it."));
        const auto j = to_json(d, &plan).at("stragglers");
        QCOMPARE(j.at("late").size(), std::size_t{1});
        QCOMPARE(j.at("late")[0].at("rank").get<std::int64_t>(), std::int64_t{1});
        QCOMPARE(j.at("late")[0].at("worst_ms").get<double>(), 3000.0);
        QCOMPARE(j.at("dims")[0].at("threshold_ms").get<double>(), 505.0);
        QCOMPARE(j.at("ranks").size(), std::size_t{2});
        QCOMPARE(j.at("ranks")[1].at("score").get<double>(), 2995.0 / 3495.0);
        QVERIFY(QString::fromStdString(to_text(d))
                    .contains("  world: 10 arrivals, median 5.0 ms, MAD 5.0 ms, threshold 505.0 ms; late: rank 1 "
                              "3000.0 ms at seq 6 "
                              "(all_reduce) of the world group [0, 1], typically 30.0 ms\n"));
    }

    // Dumps without a collective every member entered: no lag is judged, nothing is named.
    void nothing_common() {
        std::map<std::int64_t, std::vector<Entry>> entries;
        entries[0].push_back({"0", "default_pg", "all_reduce", 1, 1000 * ms});
        entries[1].push_back({"0", "default_pg", "all_reduce", 2, 9000 * ms});
        const Plan plan = Plan::make(Topology::make(2, 1, 1).value(), 8).value();
        const Diagnosis d = diagnose(job_of(entries), &plan);
        QVERIFY(d.stragglers.dims.empty());
        QVERIFY(d.stragglers.late().empty());
        QVERIFY(straggler_findings(d).empty());
    }
};

QTEST_APPLESS_MAIN(StragglersTest)
#include "tst_stragglers.moc"
