// The diagnosis on the fixtures, against what was injected into them (tests/records/make_fr_fixtures.py,
// make_nccl_logs.py, fixtures/ras/README.md): which group, which rank, which sequence id. Layout dp 8, cp 1,
// ep 4: efsdp groups [0, 4], [1, 5], [2, 6], [3, 7]; ep groups [0, 1, 2, 3], [4, 5, 6, 7] (shared/docs/domain.md's
// row-major rule worked by hand: rank r sits at efsdp r / 4, ep r % 4).
#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTest>

#include <nlohmann/json.hpp>

#include "meshscope/records/diagnose.h"

#include "records_fixtures.h"

using namespace meshscope;
using namespace meshscope::records;

namespace {
// Reads what a directory holds as meshscope diagnose does: dumps by content, anything else as a log.
RecordSet load(const QString& dir_path) {
    RecordSet set;
    const QDir dir(dir_path);
    QStringList files;
    if (QFileInfo(dir_path).isFile())
        files << dir_path;
    else
        for (const auto& name : dir.entryList(QDir::Files, QDir::Name)) files << dir.filePath(name);
    for (const auto& file : files) {
        const std::string bytes = read_file(file);
        if (!bytes.empty() && (static_cast<unsigned char>(bytes[0]) == 0x80 || bytes[0] == '{')) {
            if (bytes.find("\"communicators\"") != std::string::npos) {
                auto s = read_ras_json(bytes, QFileInfo(file).fileName().toStdString());
                if (s) set.ras.push_back(*s);
                continue;
            }
            auto d = read_fr_dump(bytes, QFileInfo(file).fileName().toStdString());
            if (d) set.dumps.push_back(*d);
            continue;
        }
        if (looks_like_ras_text(bytes)) {
            auto s = read_ras_text(bytes, QFileInfo(file).fileName().toStdString());
            if (s) set.ras.push_back(*s);
            continue;
        }
        StringSource source(QFileInfo(file).fileName().toStdString(), bytes);
        read_nccl_log(source, set.nccl);
    }
    return set;
}

Plan plan_8_1_4() {
    return Plan::make(Topology::make(8, 1, 4).value(), 8).value();
}

const SourcedFinding* find(const Diagnosis& d, const std::string& id) {
    for (const auto& f : d.findings)
        if (f.finding.id == id) return &f;
    return nullptr;
}

// The k-th finding that is no verdict (the verdict comes first, its consequences after it).
const SourcedFinding& plain(const Diagnosis& d, std::size_t k) {
    for (const auto& f : d.findings)
        if (f.finding.kind != FindingKind::verdict && k-- == 0) return f;
    qFatal("no finding %zu", k);
}

QString ids(const Diagnosis& d) {
    QStringList out;
    for (const auto& f : d.findings) out << QString::fromStdString(f.finding.id);
    return out.join(" ");
}

// A RAS status (JSON form) of a job dp 8, ep 4 at one poll: the world communicator in step (3 AllReduce each) and
// the ep group 1 communicator, whose comm ranks 0-3 are the global ranks 4-7 (node1, pids 41004-41007), with the
// AllReduce counts of `counts` ("57 57 57 56": global rank 7 launched 56).
RasStatus ep1_status(const QString& counts) {
    RasStatus status;
    status.file = "127.0.0.1:28028";
    RasCommunicator world;
    world.hash = "0x7c0ffee0d15ea5e1";
    world.size = 8;
    for (std::int64_t r = 0; r < 8; ++r) {
        RasRank rank;
        rank.rank = r;
        rank.host = r < 4 ? "node0" : "node1";
        rank.pid = 41000 + r;
        rank.collective_counts = {{"AllReduce", 3}};
        world.ranks.push_back(rank);
    }
    RasCommunicator ep;
    ep.hash = "0x2b1d5e7f9a3c4e60";
    ep.size = 4;
    const QStringList each = counts.split(' ');
    for (std::int64_t k = 0; k < 4; ++k) {
        RasRank rank;
        rank.rank = k;
        rank.host = "node1";
        rank.pid = 41004 + k;
        rank.collective_counts = {{"AllReduce", each[static_cast<int>(k)].toULongLong()}};
        ep.ranks.push_back(rank);
    }
    status.communicators = {world, ep};
    return status;
}

QString messages(const Diagnosis& d) {
    QStringList out;
    for (const auto& f : d.findings)
        if (f.finding.kind != FindingKind::verdict) out << QString::fromStdString(f.finding.message);
    return out.join("\n");
}
}  // namespace

Q_DECLARE_METATYPE(std::vector<std::int64_t>)

class DiagnoseTest : public QObject {
    Q_OBJECT
private slots:
    // The hang map on real torch jobs (fixtures/fr-verdict, make_verdict_jobs.py): where each of the 16 ranks stands,
    // worked out by hand from the fault each job injected. A step runs, on the rank's own groups: an efsdp
    // all_gather, an ep all_to_all, an efsdp all_reduce, a dp all_reduce; so step s is seq s on ep and dp, and seqs
    // 2s-1, 2s on efsdp. ep group g = [4g..4g+3], efsdp group g = [g, g+4, g+8, g+12], one dp group of all 16: torch's
    // default group, which DeviceMesh reuses for a dim that spans the world (its dumps say default_pg), so it is
    // placed as the world group, dim "world".
    void hang_map_data() {
        QTest::addColumn<QString>("job");
        QTest::addColumn<QString>("summary");
        QTest::addColumn<QString>("some");  // "rank=standing dim seq op" for a few ranks, ';'-separated
        // Rank 13 skips step 2's all_to_all and goes on: its ep peers wait there; it completes the efsdp all_reduce
        // with 1, 5, 9 and waits in the dp all_reduce with them; the other efsdp groups wait for 12, 14, 15.
        QTest::addRow("skip")
            << "skip"
            << "root cause: rank 13; waiting in efsdp seq 4: 9 ranks; in world seq 2: 4; in ep seq 2: 3"
            << "13=waiting world 2 all_reduce root;12=waiting ep 2 all_to_all;0=waiting efsdp 4 "
               "all_reduce;5=waiting world 2 all_reduce";
        // Rank 2 dies before step 2: its efsdp peers wait in the all_gather, every ep group then waits for the
        // member stuck there (or for rank 2).
        QTest::addRow("die")
            << "die"
            << "root cause: rank 2; waiting in ep seq 2: 12 ranks; in efsdp seq 3: 3; no record: rank 2"
            << "2=no_record root;6=waiting efsdp 3 all_gather;0=waiting ep 2 all_to_all";
        // Rank 9 never leaves host code after step 1: its last collective (dp all_reduce, seq 1) completed.
        QTest::addRow("host") << "host"
                              << "root cause: rank 9; waiting in ep seq 2: 12 ranks; in efsdp seq 3: 3; outside "
                                 "collectives: rank 9"
                              << "9=outside_collectives world 1 all_reduce root;13=waiting efsdp 3 all_gather;"
                                 "8=waiting ep 2 all_to_all";
        QTest::addRow("healthy")
            << "healthy"
            << "outside collectives: 16 ranks"
            << "0=outside_collectives world 3 all_reduce;15=outside_collectives world 3 all_reduce";
    }
    void hang_map() {
        QFETCH(QString, job);
        QFETCH(QString, summary);
        QFETCH(QString, some);
        const Plan plan = Plan::make(Topology::make(16, 1, 4).value(), 8).value();
        const Diagnosis d = diagnose(load(QStringLiteral(RECORDS_FIXTURES) + "/fr-verdict/" + job), &plan);
        QCOMPARE(d.positions.size(), std::size_t{16});
        const auto hang = hang_summary(d);
        QVERIFY(hang);
        QCOMPARE(QString::fromStdString(hang->text), summary);
        for (const QString& item : some.split(';')) {
            const QStringList parts = item.split('=');
            const std::int64_t rank = parts[0].toLongLong();
            const QStringList want = parts[1].split(' ');
            const HangPosition& p = d.positions[static_cast<std::size_t>(rank)].second;
            QCOMPARE(d.positions[static_cast<std::size_t>(rank)].first, rank);
            QCOMPARE(QString::fromStdString(std::string(to_string(p.standing))), want[0]);
            QCOMPARE(p.root_cause, want.endsWith("root"));
            if (want.size() >= 4) {
                QCOMPARE(QString::fromStdString(p.dim), want[1]);
                QCOMPARE(p.seq, want[2].toLongLong());
                QCOMPARE(QString::fromStdString(p.op), want[3]);
            }
        }
        // What meshscope import sends: the plan, and every rank of the world with its position, the dead one too.
        const RecordsImport sent = to_records_import(d);
        QVERIFY(sent.topology);
        QCOMPARE(sent.topology->ep, std::int64_t{4});
        QVERIFY(!sent.topology_proposed);
        QCOMPARE(sent.ranks.size(), std::size_t{16});
        for (const auto& r : sent.ranks) QVERIFY(r.position);
    }

    // A rank's last collectives per group, latest first: rank 13 of the skip job completed efsdp seq 4 and waits in
    // the dp (world) group at seq 2; its last ep collective is seq 1 (it skipped seq 2).
    void last_collectives() {
        const Plan plan = Plan::make(Topology::make(16, 1, 4).value(), 8).value();
        const Diagnosis d = diagnose(load(QStringLiteral(RECORDS_FIXTURES) + "/fr-verdict/skip"), &plan);
        const HangPosition& p = d.positions[13].second;
        QString text;
        for (const RecordsCall& c : p.last)
            text += QStringLiteral("%1/%2 %3 %4 %5; ")
                        .arg(QString::fromStdString(c.dim))
                        .arg(c.group)
                        .arg(c.seq)
                        .arg(QString::fromStdString(c.op))
                        .arg(c.completed ? "completed" : "waiting");
        QCOMPARE(
            text,
            QString("world/0 2 all_reduce waiting; efsdp/1 4 all_reduce completed; ep/3 1 all_to_all completed; "));
    }

    void flight_recorder_data() {
        QTest::addColumn<QString>("dir");
        QTest::addColumn<QString>("ids");  // every finding, in the collector's order
        QTest::addColumn<QString>("id");
        QTest::addColumn<std::vector<std::int64_t>>("ranks");
        QTest::addColumn<QString>("message");
        for (const QString format : {"", "/json"}) {
            const QString tag = format.isEmpty() ? "pickle" : "json";
            // rank 6 skipped step 2's ep all_reduce: ep group 1 is stuck at its seq 2; ranks 4, 5, 7 wait there,
            // so the world all_reduce of step 2 (seq 3) misses them.
            QTest::addRow("skip %s", qPrintable(tag))
                << "skip" + format << "verdict/6 collective_stuck/world/0 collective_stuck/ep/1"
                << "collective_stuck/ep/1" << std::vector<std::int64_t>{6}
                << "the ep group 1 [4, 5, 6, 7] is stuck at seq 2 (all_reduce): rank 6 never entered it; ranks 4, 5, 7 "
                   "entered it; rank 6 last recorded default_pg seq 3 (all_reduce) (Flight Recorder)";
            QTest::addRow("skip world %s", qPrintable(tag))
                << "skip" + format << "verdict/6 collective_stuck/world/0 collective_stuck/ep/1"
                << "collective_stuck/world/0" << std::vector<std::int64_t>{4, 5, 7}
                << "the world group [0, 1, 2, 3, 4, 5, 6, 7] is stuck at seq 3 (all_reduce): ranks 4, 5, 7 never "
                   "entered it; ranks 0-3, 6 entered it; ranks 4, 5, 7 last recorded ep group 1 seq 2 (all_reduce) "
                   "(Flight Recorder)";
            // rank 3 never created ep group 0: no member of it recorded a collective on it; ranks 0-2 wait in its
            // creation after the first world all_reduce, rank 3 went on to the second.
            QTest::addRow("nogroup %s", qPrintable(tag))
                << "nogroup" + format
                << "verdict/3 communicator_not_formed/ep/0 collective_stuck/efsdp/0 collective_stuck/world/0 "
                   "collective_stuck/efsdp/1 collective_stuck/efsdp/2 collective_stuck/ep/1"
                << "communicator_not_formed/ep/0" << std::vector<std::int64_t>{3}
                << "the ep group 0 [0, 1, 2, 3] communicator never ran a collective (no member recorded one) while 1 "
                   "other ep group did; ranks 0-2 stopped after default_pg seq 1 (all_reduce); rank 3 stopped after "
                   "default_pg seq 2 (all_reduce): rank 3 went on without creating it (Flight Recorder)";
            QTest::addRow("healthy %s", qPrintable(tag)) << "healthy" + format << ""
                                                         << "" << std::vector<std::int64_t>{} << "";
        }
    }
    void flight_recorder() {
        QFETCH(QString, dir);
        QFETCH(QString, id);
        const Plan plan = plan_8_1_4();
        const Diagnosis d = diagnose(load(fixtures() + "/fr/" + dir), &plan);
        QTEST(ids(d), "ids");
        // the world, 4 efsdp and 2 ep groups; without ep group 0, which no member recorded, when rank 3 skipped it
        QCOMPARE(d.groups.size(), std::size_t{dir.startsWith("nogroup") ? 6u : 7u});
        if (id.isEmpty()) return;
        const SourcedFinding* f = find(d, id.toStdString());
        QVERIFY(f);
        QTEST(f->finding.ranks, "ranks");
        QTEST(QString::fromStdString(f->finding.message), "message");
        QVERIFY(!f->sources.empty());
    }

    // The verdict on each fixture: the rank its fault broke (make_fr_fixtures.py, make_nccl_logs.py,
    // fixtures/ras/README.md), in one sentence, with its process where a record gives it.
    void verdicts_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("sentence");
        QTest::addColumn<QString>("process");  // "host pid", or "" when no record gives it
        QTest::addColumn<QString>("consequences");
        QTest::newRow("fr skip") << "fr/skip"
                                 << "rank 6 skipped ep group 1's all_reduce at seq 2"
                                 << ""
                                 << "collective_stuck/world/0 collective_stuck/ep/1";
        QTest::newRow("fr nogroup") << "fr/nogroup"
                                    << "rank 3 went on without creating the ep group 0 [0, 1, 2, 3]"
                                    << ""
                                    << "communicator_not_formed/ep/0 collective_stuck/efsdp/0 collective_stuck/world/0 "
                                       "collective_stuck/efsdp/1 collective_stuck/efsdp/2 collective_stuck/ep/1";
        QTest::newRow("nccl 2.26") << "nccl-logs/v2.26-mpirun.log"
                                   << "rank 6 hangs outside collectives (compute, the data loader, host code): "
                                      "nothing it recorded is pending"
                                   << "node1 41006"
                                   << "communicator_not_formed/ep/1";
        QTest::newRow("ras json") << "ras/status.json"
                                  << "rank 6 (node1 pid 41006) is dead (NCCL RAS could not reach it for 60 s or more)"
                                  << "node1 41006"
                                  << "communicator_not_formed/efsdp/2 collective_stuck/ep/1 peer_unreachable/6";
        QTest::newRow("ras text") << "ras/status.txt"
                                  << "rank 6 (10.1.0.2 pid 41006) is dead (NCCL RAS could not reach it for 60 s or "
                                     "more)"
                                  << "10.1.0.2 41006"
                                  << "communicator_not_formed/efsdp/2 collective_stuck/ep/1 peer_unreachable/6";
    }
    void verdicts() {
        QFETCH(QString, path);
        QFETCH(QString, process);
        const Plan plan = plan_8_1_4();
        const Diagnosis d = diagnose(load(fixtures() + "/" + path), &plan);
        QCOMPARE(d.verdicts.size(), std::size_t{1});
        const Verdict& v = d.verdicts.front();
        QTEST(QString::fromStdString(v.sentence), "sentence");
        QStringList folded;
        for (const auto& f : d.findings)
            if (f.consequence_of == v.id) folded << QString::fromStdString(f.finding.id);
        QTEST(folded.join(" "), "consequences");
        const QString fix = QString::fromStdString(d.findings.front().finding.fix);
        if (process.isEmpty()) {
            QVERIFY(!v.pid);
            QVERIFY2(fix.contains("no record gives its host and pid"), qPrintable(fix));
            return;
        }
        const QStringList p = process.split(' ');
        QCOMPARE(QString::fromStdString(v.host.value_or("")), p[0]);
        QCOMPARE(v.pid.value_or(0), p[1].toLongLong());
        QVERIFY2(fix.contains("py-spy dump --pid " + p[1] + " on " + p[0]), qPrintable(fix));
        // the JSON's ranks carry the process too
        const auto j = to_json(d, &plan);
        QCOMPARE(QString::fromStdString(j.at("ranks")[6].value("host", std::string())), p[0]);
    }

    // A communicator no plan places: its absent members are known only as communicator ranks, and the fix asks
    // for those, never for the ranks that started init and wait for them.
    void unplaced_communicator_fix() {
        const Diagnosis d = diagnose(load(fixtures() + "/nccl-logs/v2.26-mpirun.log"), nullptr);
        const SourcedFinding* f = nullptr;
        for (const auto& x : d.findings)
            if (x.finding.kind == FindingKind::communicator_not_formed) f = &x;
        QVERIFY2(f, qPrintable(ids(d)));
        const QString message = QString::fromStdString(f->finding.message);
        QVERIFY2(message.contains("communicator rank 2 never appeared; ranks 4, 5, 7 started init"),
                 qPrintable(message));
        QVERIFY(f->finding.ranks.empty());
        QCOMPARE(f->finding.fix,
                 std::string("Start every rank with the same plan (dp, cp, ep and creation order) and check that the "
                             "processes of communicator rank 2 (their global ranks: give --plan or --dp --cp --ep) "
                             "are running and can reach their peers; a communicator waits for every member and NCCL "
                             "would hang here."));
    }

    // rank 5 gathered tensors of shape [2, 2] where rank 1 gathered [4] (Flight Recorder's sizes as torch wrote them).
    void size_mismatch() {
        const Plan plan = plan_8_1_4();
        for (const QString format : {"", "/json"}) {
            const Diagnosis d = diagnose(load(fixtures() + "/fr/sizes" + format), &plan);
            QCOMPARE(ids(d), QString("collective_mismatch/efsdp/1"));
            const Finding& f = plain(d, 0).finding;
            QCOMPARE(f.kind, FindingKind::collective_mismatch);
            QCOMPARE(f.ranks, (std::vector<std::int64_t>{5}));
            const QString m = QString::fromStdString(f.message);
            QVERIFY2(
                m.startsWith("the efsdp group 1 [1, 5] disagrees at seq 1 (all_gather): rank 5 has sizes [[2, 2]] -> "),
                qPrintable(m));
            QVERIFY2(m.contains(" where rank 1 has [[4]] -> "), qPrintable(m));
            QVERIFY2(m.endsWith(" (SIZE_OR_SYNTAX_MISMATCH, Flight Recorder)"), qPrintable(m));
        }
    }

    void healthy_progress() {
        const Plan plan = plan_8_1_4();
        const Diagnosis d = diagnose(load(fixtures() + "/fr/healthy"), &plan);
        // 3 steps: one efsdp all_gather and one ep all_reduce each; 4 world all_reduces and a barrier
        QCOMPARE(d.progress,
                 (std::vector<std::string>{"every efsdp group (4) reached seq 3", "every ep group (2) reached seq 3",
                                           "the world group [0, 1, 2, 3, 4, 5, 6, 7] reached seq 5"}));
        // One latest arrival per dim, at the last seq every member entered (the times are real, so not who).
        QCOMPARE(d.arrivals.size(), std::size_t{3});
        const QRegularExpression arrival(
            R"(^(efsdp|ep|world): rank [0-7] arrived last at seq (3|5) \((all_gather|all_reduce|barrier)\) of the )"
            R"((efsdp|ep|world) group .* [0-9]+\.[0-9] ms after the first member$)");
        for (const auto& a : d.arrivals) QVERIFY2(arrival.match(QString::fromStdString(a)).hasMatch(), a.c_str());
        QVERIFY(QString::fromStdString(d.arrivals[0]).startsWith("efsdp: "));
        QVERIFY(QString::fromStdString(d.arrivals[0]).contains(" at seq 3 (all_gather) of the efsdp group "));
        QVERIFY(QString::fromStdString(d.arrivals[2]).contains(" at seq 5 (barrier) of the world group "));
        const auto j = to_json(d, &plan);
        QCOMPARE(j.at("schema").get<std::string>(), std::string("meshscope.diagnosis/1"));
        QCOMPARE(j.at("ranks").size(), std::size_t{8});
        // rank 5: efsdp 5 / 4 = 1, ep 5 % 4 = 1
        QCOMPARE(QString::fromStdString(j.at("ranks")[5].at("coordinates").at("expert").dump()),
                 QString(R"({"edp":0,"efsdp":1,"ep":1,"expert_cp":0})"));
    }

    // Without a plan: the named groups (mesh_efsdp of 2 ranks, mesh_ep of 4) fit only (dp, cp, ep) = (8, 1, 4).
    void proposes_a_layout() {
        const Diagnosis d = diagnose(load(fixtures() + "/fr/healthy/json"), nullptr);
        QVERIFY(d.proposed);
        QCOMPARE(d.candidates.size(), std::size_t{1});
        QCOMPARE(d.topology->tuple_string(), std::string("(8, 1, 4)"));
        QCOMPARE(d.groups[1].place->label(), std::string("efsdp group 0 [0, 4]"));
        // An excerpt of 5 ranks of a 64-rank world holds no complete group: said so, nothing proposed.
        const Diagnosis none = diagnose(load(fixtures() + "/nccl-logs/v2.19-world-excerpt.log"), nullptr);
        QVERIFY(!none.proposed);
        QCOMPARE(none.plan_note, std::string("no complete group found in the records, so no layout is proposed (give "
                                             "--plan or --dp --cp --ep)"));
        // The 2.23 log's world, 4 splits of 2 and 2 of 4: dp 8 with ep 4 (efsdp [0, 4]), and also dp 2 with cp 4
        // (dp groups [0, 4], cp groups [0, 1, 2, 3]) and dp 2, cp 4, ep 2 (the same groups as its expert mesh's).
        const Diagnosis three = diagnose(load(fixtures() + "/nccl-logs/v2.23-torchrun.log"), nullptr);
        QVERIFY(!three.proposed);
        QCOMPARE(three.candidates.size(), std::size_t{3});
        QCOMPARE(three.plan_note,
                 std::string("3 layouts of world 8 have every group found; give --plan or --dp --cp --ep"));
    }

    void nccl_logs_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("ids");
        QTest::addColumn<QString>("message");  // of the first finding
        QTest::addColumn<std::vector<std::int64_t>>("ranks");
        QTest::addRow("2.23 torchrun, healthy") << "v2.23-torchrun.log"
                                                << ""
                                                << "" << std::vector<std::int64_t>{};
        QTest::addRow("2.26 mpirun, rank 6 never starts its ep split")
            << "v2.26-mpirun.log"
            << "verdict/6 communicator_not_formed/ep/1"
            << "the ep group 1 [4, 5, 6, 7] communicator never formed: rank 6 never appeared; ranks 4, 5, 7 started "
               "init; none completed (NCCL log)"
            << std::vector<std::int64_t>{6};
        QTest::addRow("2.29 per rank, rank 5 splits with color 0")
            << "v2.29-per-rank"
            << "group_disagreement/commId 0x7c0ffee0d15ea5e1 split 1 color 1 "
               "group_disagreement/commId 0x7c0ffee0d15ea5e1 split 1 color 0"
            << "the communicator commId 0x7c0ffee0d15ea5e1 split 1 color 1 (1 rank) [1] is not a group of the plan "
               "(dp, cp, ep) = (8, 1, 4); the nearest is efsdp group 1 [1, 5] (1 shared) (NCCL log)"
            << std::vector<std::int64_t>{1};
        QTest::addRow("2.18 pdsh, rank 6 never completes")
            << "v2.18-pdsh.log"
            << "communicator_not_formed/world/0"
            << "the world group [0, 1, 2, 3, 4, 5, 6, 7] communicator formed, but rank 6 never completed its init; "
               "ranks 0-5, 7 completed (NCCL log)"
            << std::vector<std::int64_t>{6};
    }
    void nccl_logs() {
        QFETCH(QString, path);
        QFETCH(QString, message);
        const Plan plan = plan_8_1_4();
        const Diagnosis d = diagnose(load(fixtures() + "/nccl-logs/" + path), &plan);
        QTEST(ids(d), "ids");
        if (message.isEmpty()) {
            QCOMPARE(d.groups.size(), std::size_t{7});
            for (const auto& g : d.groups) QVERIFY2(g.place, g.id.c_str());
            return;
        }
        QCOMPARE(QString::fromStdString(plain(d, 0).finding.message), message);
        QTEST(plain(d, 0).finding.ranks, "ranks");
    }

    // A 64-rank job written here in NCCL 2.28's format under srun -l: dp 32, cp 2, ep 4, so the expert mesh is
    // (edp, efsdp, ep, expert_cp) = (1, 8, 4, 2) with strides (64, 8, 2, 1). Worked by hand from the row-major rule:
    // rank r sits at efsdp r / 8, ep (r / 2) % 4, expert_cp r % 2; its ep group is {8 * efsdp + 2 * e + expert_cp}
    // and comes at index 2 * efsdp + expert_cp of the ep groups' creation order. Rank 13 never starts its ep split:
    // the ep group 3 [9, 11, 13, 15].
    void written_64_rank_job() {
        std::string log;
        const auto prefix = [](int r) {
            return std::to_string(r) + ": node" + std::to_string(r / 8) + ":" + std::to_string(5000 + r) + ":" +
                   std::to_string(6000 + r) + " [" + std::to_string(r % 8) + "] NCCL INFO ";
        };
        const auto comm = [](int r, int k) { return "0x7f" + std::to_string(100 + r) + std::to_string(k) + "00"; };
        for (int r = 0; r < 64; ++r)
            for (const char* stage : {"Init START", "Init COMPLETE"})
                log += prefix(r) + "ncclCommInitRankConfig comm " + comm(r, 0) + " rank " + std::to_string(r) +
                       " nranks 64 cudaDev 0 nvmlDev 0 busId 1b000 commId 0xabc - " + stage + "\n";
        for (int r = 0; r < 64; ++r) {
            if (r == 13) continue;
            const int efsdp = r / 8, ep = (r / 2) % 4, ecp = r % 2;
            // ep split: color = the group's first member, key = rank; the comm rank is the position in the group
            log += prefix(r) + "ncclCommSplit comm " + comm(r, 2) + " rank " + std::to_string(ep) +
                   " nranks 4 cudaDev 0 nvmlDev 0 busId 1b000 parent " + comm(r, 0) + " splitCount 2 color " +
                   std::to_string(8 * efsdp + ecp) + " key " + std::to_string(r) + "- Init START\n";
            // the efsdp split, made first by every rank, completes everywhere
            log += prefix(r) + "ncclCommSplit comm " + comm(r, 1) + " rank " + std::to_string(efsdp) +
                   " nranks 8 cudaDev 0 nvmlDev 0 busId 1b000 parent " + comm(r, 0) + " splitCount 1 color " +
                   std::to_string(2 * ep + ecp) + " key " + std::to_string(r) + " - Init COMPLETE\n";
        }
        // ep groups without rank 13 complete; rank 13's peers wait
        for (int r = 0; r < 64; ++r) {
            const int efsdp = r / 8, ep = (r / 2) % 4, ecp = r % 2;
            if (efsdp == 1 && ecp == 1) continue;
            log += prefix(r) + "ncclCommSplit comm " + comm(r, 2) + " rank " + std::to_string(ep) +
                   " nranks 4 cudaDev 0 nvmlDev 0 busId 1b000 parent " + comm(r, 0) + " splitCount 2 color " +
                   std::to_string(8 * efsdp + ecp) + " key " + std::to_string(r) + " - Init COMPLETE\n";
        }
        RecordSet set;
        StringSource source("job.log", log);
        read_nccl_log(source, set.nccl);
        QCOMPARE(set.nccl.problems.size(), std::size_t{0});
        const Plan plan = Plan::make(Topology::make(32, 2, 4).value(), 8).value();
        const Diagnosis d = diagnose(set, &plan);
        QCOMPARE(ids(d), QString("verdict/13 communicator_not_formed/ep/3"));
        // rank 13 printed its world init, then nothing: it hangs outside collectives, on node1 as pid 5013
        QCOMPARE(d.verdicts.front().cause, Verdict::Cause::outside);
        QCOMPARE(d.verdicts.front().host, std::optional<std::string>("node1"));
        QCOMPARE(d.verdicts.front().pid, std::optional<std::int64_t>(5013));
        QVERIFY(QString::fromStdString(d.findings.front().finding.fix).contains("py-spy dump --pid 5013 on node1"));
        QCOMPARE(plain(d, 0).finding.message,
                 std::string("the ep group 3 [9, 11, 13, 15] communicator never formed: rank 13 never appeared; ranks "
                             "9, 11, 15 started init; none completed (NCCL log)"));
        QCOMPARE(plain(d, 0).finding.ranks, (std::vector<std::int64_t>{13}));
        // 1 world + 8 efsdp + 16 ep communicators, each on the plan
        QCOMPARE(d.groups.size(), std::size_t{25});
        int efsdp = 0, ep = 0;
        for (const auto& g : d.groups) {
            QVERIFY2(g.place, g.id.c_str());
            efsdp += g.place->dim == "efsdp";
            ep += g.place->dim == "ep";
        }
        QCOMPARE(efsdp, 8);
        QCOMPARE(ep, 16);
    }

    void ras() {
        const Plan plan = plan_8_1_4();
        const Diagnosis d = diagnose(load(fixtures() + "/ras/status.json"), &plan);
        QCOMPARE(ids(d), QString("verdict/6 communicator_not_formed/efsdp/2 collective_stuck/ep/1 peer_unreachable/6"));
        QCOMPARE(plain(d, 0).finding.message,
                 std::string("the efsdp group 2 [2, 6] communicator never formed: rank 2 is still in init (NCCL RAS)"));
        QCOMPARE(plain(d, 1).finding.message,
                 std::string("the ep group 1 [4, 5, 6, 7] communicator: rank 7 launched 56 collectives, ranks 4, 5 "
                             "launched 57; rank 7 is behind (NCCL RAS)"));
        QCOMPARE(plain(d, 1).finding.ranks, (std::vector<std::int64_t>{7}));
        QCOMPARE(plain(d, 2).finding.message,
                 std::string("rank 6 (node1 pid 41006) is dead (NCCL RAS could not reach it for 60 s or more)"));
        QCOMPARE(plain(d, 2).sources, (std::vector<std::string>{"status.json"}));
    }

    // A plan smaller than the job: the RAS status names ranks 0-7 (fixtures/ras/README.md), the plan dp 4 has 0-3.
    void ranks_beyond_the_plan() {
        const Plan plan = Plan::make(Topology::make(4, 1, 2).value(), 8).value();
        const Diagnosis d = diagnose(load(fixtures() + "/ras/status.json"), &plan);
        const SourcedFinding* f = find(d, "topology_mismatch/world");
        QVERIFY2(f, qPrintable(ids(d)));
        QCOMPARE(f->finding.message,
                 std::string("the records name ranks 4-7, beyond the plan's world of 4 (dp 4, cp 1, "
                             "ep 2): the job runs another layout than the plan"));
        QCOMPARE(f->finding.ranks, (std::vector<std::int64_t>{4, 5, 6, 7}));
        QCOMPARE(f->sources, (std::vector<std::string>{"status.json"}));
        const Plan fits = plan_8_1_4();
        QVERIFY(!find(diagnose(load(fixtures() + "/ras/status.json"), &fits), "topology_mismatch/world"));
    }

    // serve --ras's stall rule, poll by poll (RasPollDiagnosis): the ep group 1's ranks behind are a finding only
    // at a poll whose differing counts are those of the poll before; each row's findings worked by hand.
    void ras_stall_rule_data() {
        // the ep group 1's AllReduce counts, global ranks 4-7; "*" first: a poll out of turn (a MONITOR event's)
        QTest::addColumn<QStringList>("polls");
        QTest::addColumn<QStringList>("findings");  // each poll's finding messages ("" for none)
        const QString stalled7 =
            "the ep group 1 [4, 5, 6, 7] communicator: rank 7 launched 56 collectives, ranks 4-6 launched 57; "
            "rank 7 is behind, and no count changed since the previous poll (NCCL RAS)";
        QTest::newRow("in step") << QStringList{"57 57 57 57", "57 57 57 57"} << QStringList{"", ""};
        QTest::newRow("behind once, then in step") << QStringList{"57 57 57 56", "60 60 60 60"} << QStringList{"", ""};
        // A healthy job polled while its ranks run ahead of each other: out of step at every poll, never stalled.
        QTest::newRow("out of step at every poll, moving")
            << QStringList{"57 57 57 56", "60 59 60 60", "63 63 62 63", "66 66 66 65"} << QStringList{"", "", "", ""};
        QTest::newRow("stalled") << QStringList{"57 57 57 56", "57 57 57 56", "57 57 57 56"}
                                 << QStringList{"", stalled7, stalled7};
        QTest::newRow("stalled, then moves again")
            << QStringList{"57 57 57 56", "57 57 57 56", "58 58 58 58", "58 58 58 57"}
            << QStringList{"", stalled7, "", ""};
        QTest::newRow("moves, then stalls at other counts")
            << QStringList{"57 57 57 56", "58 58 57 58", "58 58 57 58"}
            << QStringList{"", "",
                           "the ep group 1 [4, 5, 6, 7] communicator: rank 6 launched 57 collectives, ranks 4, 5, 7 "
                           "launched 58; rank 6 is behind, and no count changed since the previous poll (NCCL RAS)"};
        QTest::newRow("two behind, stalled")
            << QStringList{"57 56 57 56", "57 56 57 56"}
            << QStringList{"",
                           "the ep group 1 [4, 5, 6, 7] communicator: ranks 5, 7 launched 56 collectives, ranks "
                           "4, 6 launched 57; ranks 5, 7 are behind, and no count changed since the previous "
                           "poll (NCCL RAS)"};
        // An event's poll moments after a poll finds the same counts: no evidence that they stopped moving.
        QTest::newRow("out of step, then a poll out of turn")
            << QStringList{"57 57 57 56", "*57 57 57 56", "60 60 60 59"} << QStringList{"", "", ""};
        QTest::newRow("stalled, then a poll out of turn")
            << QStringList{"57 57 57 56", "57 57 57 56", "*57 57 57 56", "57 57 57 56"}
            << QStringList{"", stalled7, stalled7, stalled7};
        // The poll in turn after it compares with the one before it: moved.
        QTest::newRow("stalled, then moved, seen out of turn")
            << QStringList{"57 57 57 56", "57 57 57 56", "*58 58 58 57", "58 58 58 57"}
            << QStringList{"", stalled7, "", ""};
    }
    void ras_stall_rule() {
        QFETCH(QStringList, polls);
        QFETCH(QStringList, findings);
        const Plan plan = plan_8_1_4();
        RasPollDiagnosis watched;
        for (int i = 0; i < polls.size(); ++i) {
            const bool in_turn = !polls[i].startsWith('*');
            const Diagnosis d = watched.next(ep1_status(polls[i].mid(in_turn ? 0 : 1)), &plan, in_turn);
            QVERIFY2(messages(d) == findings[i], qPrintable(QString("poll %1: %2").arg(i + 1).arg(messages(d))));
            for (const auto& f : d.findings)
                if (f.finding.kind != FindingKind::verdict)
                    QCOMPARE(f.finding.id, std::string("collective_stuck/ep/1"));
            // ranks behind and stalled: the verdict names them, the ranks ahead wait on them
            if (!findings[i].isEmpty()) QCOMPARE(d.verdicts.size(), std::size_t{1});
        }
    }

    // The committed status (both forms), polled twice unchanged: its three findings at the second poll, the ranks
    // behind in the stall's words; at the first, the other two only.
    void ras_stall_rule_fixtures_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("behind");
        QTest::newRow("json") << "status.json"
                              << "the ep group 1 [4, 5, 6, 7] communicator: rank 7 launched 56 collectives, ranks 4, "
                                 "5 launched 57; rank 7 is behind, and no count changed since the previous poll "
                                 "(NCCL RAS)";
        QTest::newRow("text") << "status.txt"
                              << "the ep group 1 [4, 5, 6, 7] communicator: rank 7 launched 56 AllReduce, 2 unnamed "
                                 "ranks launched 57; rank 7 is behind, and no count changed since the previous poll "
                                 "(NCCL RAS)";
    }
    void ras_stall_rule_fixtures() {
        QFETCH(QString, file);
        const Plan plan = plan_8_1_4();
        const RecordSet set = load(fixtures() + "/ras/" + file);
        QCOMPARE(set.ras.size(), std::size_t{1});
        RasPollDiagnosis watched;
        const Diagnosis first = watched.next(set.ras.front(), &plan);
        QCOMPARE(ids(first), QString("verdict/6 communicator_not_formed/efsdp/2 peer_unreachable/6"));
        const Diagnosis second = watched.next(set.ras.front(), &plan);
        QCOMPARE(ids(second),
                 QString("verdict/6 communicator_not_formed/efsdp/2 collective_stuck/ep/1 peer_unreachable/6"));
        QTEST(QString::fromStdString(plain(second, 1).finding.message), "behind");
        QCOMPARE(plain(second, 1).finding.ranks, (std::vector<std::int64_t>{7}));
    }

    // The same job as status.json in RAS's text form (fixtures/ras/README.md): the same three findings, though
    // the text names only rank 7 of the ep group (its comm rank 3, placed by the dead rank 6 at comm rank 2) and
    // says only "INIT" of the efsdp group 2 (its rank that answered, 2, is in init).
    void ras_text() {
        const Plan plan = plan_8_1_4();
        const Diagnosis d = diagnose(load(fixtures() + "/ras/status.txt"), &plan);
        QCOMPARE(ids(d), QString("verdict/6 communicator_not_formed/efsdp/2 collective_stuck/ep/1 peer_unreachable/6"));
        QCOMPARE(d.world, std::int64_t{8});
        QCOMPARE(plain(d, 0).finding.message,
                 std::string("the efsdp group 2 [2, 6] communicator never formed: rank 2 is still in init (NCCL RAS)"));
        QCOMPARE(plain(d, 1).finding.message,
                 std::string("the ep group 1 [4, 5, 6, 7] communicator: rank 7 launched 56 AllReduce, 2 unnamed ranks "
                             "launched 57; rank 7 is behind (NCCL RAS)"));
        QCOMPARE(plain(d, 1).finding.ranks, (std::vector<std::int64_t>{7}));
        QCOMPARE(plain(d, 2).finding.message,
                 std::string("rank 6 (10.1.0.2 pid 41006) is dead (NCCL RAS could not reach it for 60 s or more)"));
        QCOMPARE(plain(d, 2).sources, (std::vector<std::string>{"status.txt"}));

        // NCCL 2.24's text names the world's missing rank by number only: still rank 6, without its process.
        {
            QFile in(fixtures() + "/ras/status.txt");
            QVERIFY(in.open(QIODevice::ReadOnly));
            QByteArray text = in.readAll();
            text.replace("  Rank 6 -- GPU 2 managed by process 41006 on node 10.1.0.2\n", "  The missing rank: 6\n");
            RecordSet set;
            set.ras.push_back(read_ras_text(text.toStdString(), "old.txt").value());
            const Diagnosis old = diagnose(set, &plan);
            const auto* f = find(old, "peer_unreachable/6");
            QVERIFY(f);
            QCOMPARE(f->finding.message, std::string("rank 6 is unresponsive (NCCL RAS reaches its host, not it)"));
        }

        // status-mixed.txt: a 4-rank world whose rank 1 aborted with a remote error and launched 9 AllReduce
        // (2 unnamed ranks 10), rank 3 (pid 503) silent; no plan, so no group is placed.
        const Diagnosis m = diagnose(load(fixtures() + "/ras/status-mixed.txt"), nullptr);
        // rank 3 is silent: the verdict, the others wait on it; rank 1's error stays beside it
        QCOMPARE(ids(m), QString("verdict/3 collective_stuck/0xf00dfeed000a11 peer_unreachable/3 "
                                 "rank_error/ras/0xf00dfeed000a11"));
        QCOMPARE(plain(m, 0).finding.message,
                 std::string("the communicator commId 0xf00dfeed000a11 (4 ranks) communicator: rank 1 launched 9 "
                             "AllReduce, 2 unnamed ranks launched 10; rank 1 is behind (NCCL RAS)"));
        QCOMPARE(plain(m, 1).finding.message,
                 std::string("rank 3 (10.2.0.7 pid 503) is unresponsive (NCCL RAS reaches its host, not it)"));
    }
};

QTEST_APPLESS_MAIN(DiagnoseTest)
#include "tst_diagnose.moc"
