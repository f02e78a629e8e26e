// The verdict (core/include/meshscope/records/verdict.h) on record sets built here, one row per shape of chain: each
// row says which rank it broke and how, and the expected root cause is that fault, never what the code finds.
//
// Flight Recorder rows are written by a small model of a job (plan dp 8, cp 1, ep 4: efsdp groups [0, 4], [1, 5],
// [2, 6], [3, 7]; ep groups [0, 1, 2, 3], [4, 5, 6, 7]; the world): every rank runs a program of collectives, one per
// dim named ("efsdp" an all_gather, "ep" an all_to_all, "world" an all_reduce); a collective completes once every
// member of the rank's group entered it (gloo's semantics: a rank enters one collective at a time; with "nccl" a
// rank enqueues its whole program and Flight Recorder records each entry completed, started or scheduled). The
// model runs until no collective can complete and writes each rank's dump as torch's JSON form.
#include <QTest>

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "meshscope/records/diagnose.h"

using namespace meshscope;
using namespace meshscope::records;

namespace {
const std::vector<std::vector<std::int64_t>> efsdp_groups = {{0, 4}, {1, 5}, {2, 6}, {3, 7}};
const std::vector<std::vector<std::int64_t>> ep_groups = {{0, 1, 2, 3}, {4, 5, 6, 7}};

std::int64_t group_of(const std::string& dim, std::int64_t rank) {
    return dim == "efsdp" ? rank % 4 : dim == "ep" ? rank / 4 : 0;  // row-major, worked by hand
}
std::vector<std::int64_t> members(const std::string& dim, std::int64_t rank) {
    if (dim == "efsdp") return efsdp_groups[static_cast<std::size_t>(group_of(dim, rank))];
    if (dim == "ep") return ep_groups[static_cast<std::size_t>(group_of(dim, rank))];
    return {0, 1, 2, 3, 4, 5, 6, 7};
}
std::string pg_name(const std::string& dim, std::int64_t rank) {
    return dim == "world" ? "0" : std::to_string((dim == "efsdp" ? 1 : 5) + group_of(dim, rank));
}
std::string op_of(const std::string& dim) {
    return dim == "efsdp" ? "all_gather" : dim == "ep" ? "all_to_all" : "all_reduce";
}

// Each rank's program ("efsdp ep world efsdp ep world"); a rank in `stops_after` stops after that many calls (host
// code that never returns, or its death); one also in `dead` leaves no dump.
struct Job {
    std::map<std::int64_t, QString> programs;  // ranks not listed run `common`
    QString common = "efsdp ep world efsdp ep world";
    std::set<std::int64_t> dead;
    std::map<std::int64_t, int> stops_after;
    bool nccl = false;
};

RecordSet run(const Job& job) {
    struct Call {
        std::string dim;
        std::int64_t seq = 0;
    };
    std::map<std::int64_t, std::vector<Call>> program;
    for (std::int64_t r = 0; r < 8; ++r) {
        const QString text = job.programs.count(r) ? job.programs.at(r) : job.common;
        std::map<std::string, std::int64_t> seqs;
        auto& calls = program[r];
        for (const auto& word : text.split(' ', Qt::SkipEmptyParts)) {
            const std::string dim = word.toStdString();
            calls.push_back({dim, ++seqs[dim]});
        }
        if (job.stops_after.count(r)) calls.resize(static_cast<std::size_t>(job.stops_after.at(r)));
    }
    // next[r]: the call rank r is in (entered, waiting for its peers); done[r]: how many completed.
    std::map<std::int64_t, std::size_t> done;
    bool moved = true;
    while (moved) {
        moved = false;
        for (std::int64_t r = 0; r < 8; ++r) {
            if (done[r] >= program[r].size()) continue;
            const Call& c = program[r][done[r]];
            bool all = true;
            for (const std::int64_t m : members(c.dim, r)) {
                const bool in =
                    done[m] < program[m].size() && program[m][done[m]].dim == c.dim && program[m][done[m]].seq == c.seq;
                all = all && in;
            }
            if (all) {
                for (const std::int64_t m : members(c.dim, r)) ++done[m];
                moved = true;
            }
        }
    }
    RecordSet set;
    for (std::int64_t r = 0; r < 8; ++r) {
        if (job.dead.count(r)) continue;
        nlohmann::json entries = nlohmann::json::array();
        // gloo records the calls a rank entered: the completed ones and the one it waits in; NCCL every call
        // enqueued, with its state.
        const std::size_t recorded = job.nccl ? program[r].size() : std::min(done[r] + 1, program[r].size());
        for (std::size_t i = 0; i < recorded; ++i) {
            const Call& c = program[r][i];
            const std::string state = !job.nccl      ? "scheduled"
                                      : i < done[r]  ? "completed"
                                      : i == done[r] ? "started"
                                                     : "scheduled";
            const std::string desc = c.dim == "world" ? "default_pg" : "mesh_" + c.dim;
            entries.push_back({{"record_id", i},
                               {"pg_id", 0},
                               {"process_group", {pg_name(c.dim, r), desc}},
                               {"collective_seq_id", c.seq},
                               {"p2p_seq_id", 0},
                               {"op_id", i + 1},
                               {"profiling_name", (job.nccl ? "nccl:" : "gloo:") + op_of(c.dim)},
                               {"time_created_ns", 1000 + i},
                               {"input_sizes", {{4}}},
                               {"output_sizes", {{4}}},
                               {"input_dtypes", {"Float"}},
                               {"output_dtypes", {"Float"}},
                               {"state", state},
                               {"time_discovered_started_ns", 0},
                               {"time_discovered_completed_ns", 0},
                               {"retired", false},
                               {"timeout_ms", 600000},
                               {"is_p2p", false}});
        }
        const nlohmann::json dump = {{"version", "2.10"},
                                     {"comm_lib_version", ""},
                                     {"pg_config", nlohmann::json::object()},
                                     {"pg_status", nlohmann::json::object()},
                                     {"entries", entries}};
        auto read = read_fr_dump(dump.dump(), "fr/nccl_trace_rank_" + std::to_string(r) + ".json");
        if (!read) qFatal("%s", read.error().message().c_str());
        set.dumps.push_back(std::move(read).value());
    }
    return set;
}

Plan plan_8_1_4() {
    return Plan::make(Topology::make(8, 1, 4).value(), 8).value();
}

QString waiting_text(const Verdict& v) {
    QStringList out;
    for (const auto& w : v.waiting)
        out << QString::fromStdString(w.at.key + " " + w.at.op + " " + std::to_string(w.at.seq));
    return out.join(", ");
}

QString ids(const Diagnosis& d) {
    QStringList out;
    for (const auto& f : d.findings)
        out << QString::fromStdString(f.finding.id + (f.consequence_of.empty() ? "" : "<" + f.consequence_of));
    return out.join(" ");
}
}  // namespace

Q_DECLARE_METATYPE(Job)
Q_DECLARE_METATYPE(std::vector<std::int64_t>)

class VerdictTest : public QObject {
    Q_OBJECT
private slots:
    void flight_recorder_data() {
        QTest::addColumn<Job>("job");
        QTest::addColumn<std::vector<std::int64_t>>("ranks");
        QTest::addColumn<QString>("cause");
        QTest::addColumn<QString>("where");    // the verdict's collective: "key op seq", or ""
        QTest::addColumn<QString>("waiting");  // the groups that wait on it, in the verdict's order
        QTest::addColumn<QString>("message");  // the verdict finding's message, when given

        Job skip;  // rank 6 skips step 2's ep all_to_all: ranks 4, 5, 7 wait in ep 1, rank 6 in the world for them
        skip.programs[6] = "efsdp ep world efsdp world";
        QTest::newRow("skipped, waits across ep and the world")
            << skip << std::vector<std::int64_t>{6} << "skipped"
            << "ep/1 all_to_all 2"
            << "ep/1 all_to_all 2, world/0 all_reduce 2"
            << "rank 6 skipped ep group 1's all_to_all at seq 2 and went on to default_pg's all_reduce at seq 2; "
               "every other stuck group waits on it. 2 groups wait on it: ep group 1's all_to_all at seq 2 (ranks "
               "4, 5, 7), default_pg's all_reduce at seq 2 (ranks 0-3, 6) (Flight Recorder)";
        Job skip_efsdp = skip;  // the same, with NCCL's states
        skip_efsdp.nccl = true;
        QTest::newRow("skipped, NCCL states") << skip_efsdp << std::vector<std::int64_t>{6} << "skipped"
                                              << "ep/1 all_to_all 2"
                                              << "ep/1 all_to_all 2, world/0 all_reduce 2"
                                              << "";
        Job order;  // rank 3 calls step 2's world all_reduce before its ep all_to_all (NCCL enqueues both)
        order.programs[3] = "efsdp ep world efsdp world ep";
        order.nccl = true;
        QTest::newRow("called out of order")
            << order << std::vector<std::int64_t>{3} << "called_out_of_order"
            << "ep/0 all_to_all 2"
            << "ep/0 all_to_all 2, world/0 all_reduce 2"
            << "rank 3 called default_pg's all_reduce at seq 2 before ep group 0's all_to_all at seq 2 (out of "
               "order); every other stuck group waits on it. 2 groups wait on it: ep group 0's all_to_all at seq 2 "
               "(ranks 0-2), default_pg's all_reduce at seq 2 (ranks 3-7) (Flight Recorder)";
        Job other;  // rank 1 calls an extra efsdp all_gather where its peers call ep's all_to_all
        other.programs[1] = "efsdp ep world efsdp efsdp ep world";
        QTest::newRow("called another collective")
            << other << std::vector<std::int64_t>{1} << "called_another_collective"
            << "ep/0 all_to_all 2"
            << "ep/0 all_to_all 2, efsdp/1 all_gather 3, world/0 all_reduce 2"
            << "";
        Job die;  // rank 2 dies at the start of step 2: no dump; rank 6 waits for it in efsdp, ranks 4, 5, 7 for 6
        die.dead = {2};
        die.stops_after[2] = 3;
        QTest::newRow("died: no record")
            << die << std::vector<std::int64_t>{2} << "no_record"
            << ""
            << "efsdp/2 all_gather 2, ep/0 all_to_all 2, ep/1 all_to_all 2"
            << "rank 2 left no record (no Flight Recorder dump, NCCL line or RAS entry): it died or hangs outside "
               "any collective; every stuck group waits on it. 3 groups wait on it: efsdp group 2's all_gather at "
               "seq 2 (rank 6), ep group 0's all_to_all at seq 2 (ranks 0, 1, 3), ep group 1's all_to_all at seq 2 "
               "(ranks 4, 5, 7) (Flight Recorder)";
        Job host;  // rank 5 never returns from host code after step 1; its dump holds step 1
        host.stops_after[5] = 3;
        QTest::newRow("hangs in host code")
            << host << std::vector<std::int64_t>{5} << "outside_collectives"
            << "world/0 all_reduce 1"
            << "efsdp/1 all_gather 2, ep/0 all_to_all 2, ep/1 all_to_all 2"
            << "rank 5 hangs outside collectives (compute, the data loader, host code): its last collective, "
               "default_pg's all_reduce at seq 1, completed on every member; every stuck group waits on it. 3 groups "
               "wait on it: efsdp group 1's all_gather at seq 2 (rank 1), ep group 0's all_to_all at seq 2 (ranks "
               "0, 2, 3), ep group 1's all_to_all at seq 2 (ranks 4, 6, 7) (Flight Recorder)";
        Job two;  // two ranks of one ep group skip the same all_to_all: one verdict naming both
        two.programs[4] = two.programs[5] = "efsdp ep world efsdp world";
        QTest::newRow("two ranks skip the same collective") << two << std::vector<std::int64_t>{4, 5} << "skipped"
                                                            << "ep/1 all_to_all 2"
                                                            << "ep/1 all_to_all 2, world/0 all_reduce 2"
                                                            << "";
        QTest::newRow("healthy") << Job{} << std::vector<std::int64_t>{} << ""
                                 << ""
                                 << ""
                                 << "";
    }
    void flight_recorder() {
        QFETCH(Job, job);
        QFETCH(std::vector<std::int64_t>, ranks);
        QFETCH(QString, message);
        const Plan plan = plan_8_1_4();
        const Diagnosis d = diagnose(run(job), &plan);
        if (ranks.empty()) {
            QVERIFY2(d.verdicts.empty(), qPrintable(ids(d)));
            QCOMPARE(d.findings.size(), std::size_t{0});
            QVERIFY(to_json(d, &plan).at("verdict").is_null());
            return;
        }
        QCOMPARE(d.verdicts.size(), std::size_t{1});
        const Verdict& v = d.verdicts.front();
        QCOMPARE(v.ranks, ranks);
        QTEST(QString::fromStdString(std::string(to_string(v.cause))), "cause");
        QTEST(v.where ? QString::fromStdString(v.where->key + " " + v.where->op + " " + std::to_string(v.where->seq))
                      : QString(),
              "where");
        QTEST(waiting_text(v), "waiting");
        // first of the findings, kind verdict; every per-group finding folded under it
        QCOMPARE(d.findings.front().finding.kind, FindingKind::verdict);
        QCOMPARE(d.findings.front().finding.id, v.id);
        QCOMPARE(d.findings.front().finding.ranks, ranks);
        for (std::size_t i = 1; i < d.findings.size(); ++i)
            QVERIFY2(d.findings[i].consequence_of == v.id, qPrintable(ids(d)));
        if (!message.isEmpty()) QCOMPARE(QString::fromStdString(d.findings.front().finding.message), message);
        // first in the JSON, the text and the import too
        const auto j = to_json(d, &plan);
        QCOMPARE(j.at("verdict").at("id").get<std::string>(), v.id);
        const auto verdict_ranks = j.at("verdict").at("ranks").get<std::vector<std::int64_t>>();
        QCOMPARE(verdict_ranks, ranks);
        for (std::size_t i = 1; i < j.at("findings").size(); ++i)
            QVERIFY2(j.at("findings").at(i).value("consequence_of", std::string()) == v.id, j.dump().c_str());
        const QString text = QString::fromStdString(to_text(d));
        QVERIFY2(text.indexOf("\nverdict: ") >= 0 && text.indexOf("\nverdict: ") < text.indexOf("\ngroups ("),
                 qPrintable(text));
        const RecordsImport import = to_records_import(d);
        QCOMPARE(import.findings.front().kind, FindingKind::verdict);
        QCOMPARE(import.findings.front().ranks, ranks);
    }

    // The progress lines never claim a group reached a seq that a member without a dump may not have reached.
    void progress_without_a_dump() {
        Job die;
        die.dead = {2};
        die.stops_after[2] = 3;
        const Plan plan = plan_8_1_4();
        const Diagnosis d = diagnose(run(die), &plan);
        QStringList progress;
        for (const auto& p : d.progress) progress << QString::fromStdString(p);
        QVERIFY2(!progress.join("\n").contains("every efsdp group"), qPrintable(progress.join("\n")));
        QVERIFY2(progress.contains("the efsdp group 2 [2, 6] reached seq 2 on the members with a dump; rank 2 left no "
                                   "Flight Recorder dump"),
                 qPrintable(progress.join("\n")));
    }
};

QTEST_APPLESS_MAIN(VerdictTest)
#include "tst_verdict.moc"
