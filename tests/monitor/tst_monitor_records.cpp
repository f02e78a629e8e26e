// Monitor::import_records and meshscope.records/1 (core/records_import.h), without a collector: imported findings
// join the hook's as records/<n> with their sources and the "From:" line, ranks join the rank list with host and pid
// (the hook's own report wins), a second import replaces the first with the changes it makes told, and the
// document goes through to_json and back unchanged. Every value below is written out by hand.
#include <QtTest>

#include <nlohmann/json.hpp>

#include "meshscope/monitor/records_import.h"
#include "monitor_test_support.h"

using meshscope::Finding;
using meshscope::FindingKind;
using meshscope::RecordsImport;
using meshscope::RecordsRank;
using monitor_test::q;

namespace {
Finding imported(FindingKind kind, std::vector<std::int64_t> ranks, std::string message,
                 std::vector<std::string> sources) {
    Finding f;
    f.kind = kind;
    f.ranks = std::move(ranks);
    f.message = std::move(message);
    f.fix = "fix it";
    f.sources = std::move(sources);
    return f;
}

RecordsImport first_import() {
    RecordsImport r;
    r.findings = {imported(FindingKind::collective_stuck, {6}, "stuck", {"fr/nccl_trace_rank_6.json"}),
                  imported(FindingKind::group_disagreement, {1, 5}, "split",
                           {"a.log:1", "b.log:2", "c.log:3", "d.log:4", "e.log:5"})};
    r.ranks = {RecordsRank{0, "node0", 41000, std::nullopt}, RecordsRank{6, "node1", std::nullopt, std::nullopt},
               RecordsRank{9, std::nullopt, 7, std::nullopt}};
    return r;
}
}  // namespace

class MonitorRecordsTest : public QObject {
    Q_OBJECT
private slots:
    void sources_line_data() {
        QTest::addColumn<QStringList>("sources");
        QTest::addColumn<QString>("line");
        QTest::addRow("none") << QStringList{} << QString();
        QTest::addRow("one") << QStringList{"a.json"} << "From: a.json";
        QTest::addRow("three") << QStringList{"a", "b", "c"} << "From: a, b, c";
        QTest::addRow("five") << QStringList{"a", "b", "c", "d", "e"} << "From: a, b, c and 2 more";
    }
    void sources_line() {
        QFETCH(QStringList, sources);
        std::vector<std::string> list;
        for (const auto& s : sources) list.push_back(s.toStdString());
        QTEST(q(meshscope::sources_line(list)), "line");
    }

    void imported_findings_join_the_hooks() {
        meshscope::Monitor::Options options;
        options.record_changes = true;
        meshscope::Monitor monitor(options);
        // Rank 0 of an 8-rank job reports through the hook, with its own process.
        auto e = meshscope::test::event("j", 0, 8, meshscope::Phase::launch, meshscope::Status::failed);
        e.host = "hooked";
        e.pid = 1;
        monitor.ingest(e, 10.0);
        (void)monitor.take_changes();
        monitor.import_records("j", first_import(), 20.0);

        const auto findings = monitor.findings("j");
        QCOMPARE(monitor_test::summary(findings),
                 QString("group_disagreement:[1,5] rank_error:[0] collective_stuck:[6]"));
        QCOMPARE(q(findings[0].id), QString("records/2"));
        QCOMPARE(q(findings[2].id), QString("records/1"));
        const auto json = monitor.findings_json("j").value();
        const auto& stuck = json["findings"][2];
        QCOMPARE(q(stuck["sources"].dump()), QString(R"(["fr/nccl_trace_rank_6.json"])"));
        QCOMPARE(q(stuck["from"].get<std::string>()), QString("From: fr/nccl_trace_rank_6.json"));
        QCOMPARE(q(json["findings"][0]["from"].get<std::string>()),
                 QString("From: a.log:1, b.log:2, c.log:3 and 2 more"));
        QVERIFY(!json["findings"][1].contains("from"));  // the hook's: no sources

        // Rank 0 keeps the hook's process; rank 6 and 9 come from the records, pending (never reported).
        QCOMPARE(q(*monitor.rank("j", 0)->host), QString("hooked"));
        QCOMPARE(*monitor.rank("j", 0)->pid, std::int64_t{1});
        const auto r6 = monitor.rank("j", 6).value();
        QCOMPARE(q(*r6.host), QString("node1"));
        QVERIFY(!r6.pid);
        QCOMPARE(r6.state, meshscope::RankStateKind::pending);
        QCOMPARE(*monitor.rank("j", 9)->pid, std::int64_t{7});
        QCOMPARE(monitor.ranks("j").size(), std::size_t{10});  // world 8, and rank 9 the records name

        // Told: two findings added, ranks 6 and 9 changed (rank 0 had its process already).
        QStringList told;
        for (const auto& c : monitor.take_changes())
            told << q(std::string(meshscope::to_string(c.kind))) +
                        (c.finding ? " " + q(c.finding->id) : " " + QString::number(c.rank));
        QCOMPARE(told, (QStringList{"finding_added records/1", "finding_added records/2", "rank_changed 6",
                                    "rank_changed 9"}));

        // A second import replaces the first: records/1 updated, records/2 removed.
        RecordsImport second;
        second.findings = {imported(FindingKind::peer_unreachable, {3}, "dead", {"10.0.0.1:28028"})};
        monitor.import_records("j", second, 30.0);
        QCOMPARE(monitor_test::summary(monitor.findings("j")), QString("rank_error:[0] peer_unreachable:[3]"));
        told.clear();
        for (const auto& c : monitor.take_changes())
            told << q(std::string(meshscope::to_string(c.kind))) + " " + q(c.finding->id);
        QCOMPARE(told, (QStringList{"finding_updated records/1", "finding_removed records/2"}));
        // A job only records name is made for them.
        monitor.import_records("fresh", second, 40.0);
        QCOMPARE(monitor.job("fresh")->findings, std::int64_t{1});
    }

    void document_round_trip() {
        const RecordsImport r = first_import();
        const auto json = meshscope::to_json(r);
        QCOMPARE(q(json["format"].get<std::string>()), QString("meshscope.records/1"));
        QCOMPARE(q(json["ranks"][1].dump()), QString(R"({"host":"node1","rank":6})"));
        const auto back = meshscope::records_import_from_json(json);
        QVERIFY(back.has_value());
        QVERIFY(*back == r);
        // Ranks come back sorted; a repeat is refused.
        auto unsorted = json;
        unsorted["findings"][1]["ranks"] = {5, 1};
        QCOMPARE(meshscope::records_import_from_json(unsorted)->findings[1].ranks, (std::vector<std::int64_t>{1, 5}));
        unsorted["findings"][1]["ranks"] = {5, 5};
        QCOMPARE(q(meshscope::records_import_from_json(unsorted).error().message()),
                 QString(R"(field "findings[1].ranks" must be an array of distinct ranks from 0 to 1048575)"));
        // The world: written when known, read back; outside 1 to 1048576 refused.
        RecordsImport sized = r;
        sized.world_size = 16;
        QCOMPARE(meshscope::to_json(sized)["world_size"].get<std::int64_t>(), std::int64_t{16});
        QVERIFY(!json.contains("world_size"));
        QVERIFY(*meshscope::records_import_from_json(meshscope::to_json(sized)) == sized);
        for (const nlohmann::json& bad : {nlohmann::json(0), nlohmann::json(1048577), nlohmann::json("8")}) {
            auto doc = json;
            doc["world_size"] = bad;
            QCOMPARE(q(meshscope::records_import_from_json(doc).error().message()),
                     QString(R"(field "world_size" must be an integer from 1 to 1048576)"));
        }
    }

    // The communicators a document carries (the per-communicator series of GET /metrics): written, read back as they
    // were; each field out of shape refused with its exact message.
    void communicators_data() {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("value");  // JSON
        QTest::addColumn<QString>("error");
        QTest::newRow("nranks missing") << "nranks"
                                        << ""
                                        << R"(field "communicators[1].nranks" is required)";
        QTest::newRow("nranks zero") << "nranks"
                                     << "0"
                                     << R"(field "communicators[1].nranks" must be an integer from 1 to 1048576)";
        QTest::newRow("nranks text") << "nranks"
                                     << R"("8")"
                                     << R"(field "communicators[1].nranks" must be an integer from 1 to 1048576)";
        QTest::newRow("seen negative") << "seen"
                                       << "-1"
                                       << R"(field "communicators[1].seen" must be an integer from 0 to 1048576)";
        QTest::newRow("state unknown")
            << "state"
            << R"("hung")"
            << R"(field "communicators[1].state" must be formed, not_formed, stuck or failed)";
        QTest::newRow("comm_id upper case")
            << "comm_id"
            << R"("0x7C0FFEE")"
            << R"(field "communicators[1].comm_id" must be "0x" and 1 to 16 lowercase hex digits without leading zeros)";
        QTest::newRow("comm_id leading zero")
            << "comm_id"
            << R"("0x07c0ffee")"
            << R"(field "communicators[1].comm_id" must be "0x" and 1 to 16 lowercase hex digits without leading zeros)";
        QTest::newRow("comm_id 17 digits")
            << "comm_id"
            << R"("0x17c0ffee0d15ea5e1")"
            << R"(field "communicators[1].comm_id" must be "0x" and 1 to 16 lowercase hex digits without leading zeros)";
        QTest::newRow("name missing") << "name"
                                      << ""
                                      << R"(field "communicators[1].name" is required)";
        QTest::newRow("name empty") << "name"
                                    << R"("")"
                                    << R"(field "communicators[1].name" must not be empty)";
        QTest::newRow("index negative") << "index"
                                        << "-2"
                                        << R"(field "communicators[1].index" must be an integer from 0 to 1048576)";
        QTest::newRow("dim number") << "dim"
                                    << "3"
                                    << R"(field "communicators[1].dim" must be a string of at most 256 bytes)";
    }
    void communicators() {
        QFETCH(QString, field);
        QFETCH(QString, value);
        QFETCH(QString, error);
        RecordsImport r = first_import();
        meshscope::RecordsCommunicator world;
        world.name = "0x7c0ffee0d15ea5e1";
        world.comm_id = "0x7c0ffee0d15ea5e1";
        world.nranks = 8;
        world.seen = 8;
        world.source = "NCCL log";
        world.dim = "world";
        world.index = 0;
        meshscope::RecordsCommunicator split;
        split.name = "commId 0x7c0ffee0d15ea5e1 split 2 color 1";
        split.nranks = 4;
        split.seen = 3;
        split.state = "not_formed";
        r.communicators = {world, split};
        auto json = meshscope::to_json(r);
        QCOMPARE(
            q(json["communicators"][1].dump()),
            QString(
                R"({"name":"commId 0x7c0ffee0d15ea5e1 split 2 color 1","nranks":4,"seen":3,"state":"not_formed"})"));
        QVERIFY(*meshscope::records_import_from_json(json) == r);
        QVERIFY(!meshscope::to_json(first_import()).contains("communicators"));
        if (value.isEmpty())
            json["communicators"][1].erase(field.toStdString());
        else
            json["communicators"][1][field.toStdString()] = nlohmann::json::parse(value.toStdString());
        QCOMPARE(q(meshscope::records_import_from_json(json).error().message()), error);
    }
};

QTEST_APPLESS_MAIN(MonitorRecordsTest)
#include "tst_monitor_records.moc"
