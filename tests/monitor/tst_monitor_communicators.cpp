// meshscope-probe's reports through the real parser and Monitor: the "communicators" field (accepted forms and
// every error text), slow_group on hand-worked bandwidths, communicator_not_formed, and the per-group and
// per-dim figures of communicators_json. Expected values are worked by hand in the comments.
#include <QtTest>

#include "meshscope/mesh/dim_collectives.h"
#include "meshscope/monitor/event.h"
#include "meshscope/monitor/monitor.h"

using namespace meshscope;
using nlohmann::json;

namespace {

// One formed communicator entry with one result (busbw in GB/s).
json entry(const std::string& dim, std::int64_t index, std::vector<std::int64_t> members, double busbw,
           const std::string& collective = "all_to_all", std::int64_t bytes = 65536) {
    return {{"dim", dim},
            {"index", index},
            {"members", members},
            {"state", "formed"},
            {"create_seconds", 0.01},
            {"results",
             {{{"collective", collective}, {"bytes", bytes}, {"seconds", 0.001}, {"algbw", busbw}, {"busbw", busbw}}}}};
}

Event communicator_event(std::int64_t rank, std::int64_t world, json communicators) {
    json e = {{"job", "probe"},          {"rank", rank},     {"world_size", world},
              {"phase", "communicator"}, {"status", "done"}, {"communicators", std::move(communicators)}};
    auto parsed = event_from_json(e);
    if (!parsed) qFatal("%s", parsed.error().message().c_str());
    return *parsed;
}

// Every member of each ep group [2g, 2g+1] reports the group's bandwidth.
std::vector<Event> ep_groups(const std::vector<double>& busbw) {
    const auto world = static_cast<std::int64_t>(busbw.size() * 2);
    std::vector<Event> events;
    for (std::int64_t g = 0; g < static_cast<std::int64_t>(busbw.size()); ++g)
        for (std::int64_t r : {2 * g, 2 * g + 1})
            events.push_back(communicator_event(
                r, world, json::array({entry("ep", g, {2 * g, 2 * g + 1}, busbw[static_cast<std::size_t>(g)])})));
    return events;
}

QStringList kinds_and_ranks(const std::vector<Finding>& findings) {
    QStringList out;
    for (const auto& f : findings) {
        QString ranks;
        for (auto r : f.ranks) ranks += (ranks.isEmpty() ? "" : ",") + QString::number(r);
        out << QString::fromStdString(f.id) + ":[" + ranks + "]";
    }
    return out;
}

}  // namespace

class TestMonitorCommunicators : public QObject {
    Q_OBJECT
private slots:
    void the_table_gives_each_dim_its_collectives_data() {
        QTest::addColumn<QString>("dim");
        QTest::addColumn<QStringList>("collectives");
        // domain.md: ep all-to-all; efsdp, dp all-gather + reduce-scatter; expert_cp all-reduce; cp the
        // all-reduce of the non-expert gradients and, first, Ulysses' all-to-all (LlamaFactory's default cp_mode).
        QTest::addRow("ep") << "ep" << QStringList{"all_to_all"};
        QTest::addRow("efsdp") << "efsdp" << QStringList{"all_gather", "reduce_scatter"};
        QTest::addRow("dp") << "dp" << QStringList{"all_gather", "reduce_scatter"};
        QTest::addRow("cp") << "cp" << QStringList{"all_to_all", "all_reduce"};
        QTest::addRow("expert_cp") << "expert_cp" << QStringList{"all_reduce"};
        QTest::addRow("edp") << "edp" << QStringList{};
    }
    void the_table_gives_each_dim_its_collectives() {
        QFETCH(QString, dim);
        QFETCH(QStringList, collectives);
        QStringList got;
        for (const Collective c : collectives_of(dim.toStdString())) got << QString::fromUtf8(to_string(c).data());
        QCOMPARE(got, collectives);
    }

    void round_trips_an_event_with_communicators() {
        json comm = entry("efsdp", 1, {1, 5}, 2.5, "all_gather", 1024);
        comm["results"].push_back(
            {{"collective", "reduce_scatter"}, {"bytes", 1024}, {"seconds", 0.5}, {"algbw", 1}, {"busbw", 0.5}});
        json bad = {{"dim", "ep"},           {"index", 0},     {"members", {0, 2}},
                    {"state", "not_formed"}, {"missing", {2}}, {"error", "rank 2 never joined within 5 s"}};
        const Event e = communicator_event(1, 8, json::array({comm, bad}));
        QCOMPARE(e.communicators.size(), std::size_t{2});
        QCOMPARE(e.communicators[0].results[1].collective, std::string("reduce_scatter"));
        QCOMPARE(e.communicators[1].state, CommunicatorState::not_formed);
        QCOMPARE(e.communicators[1].missing, std::vector<std::int64_t>{2});
        const auto back = event_from_json(to_json(e));
        QVERIFY(back.has_value());
        QVERIFY(*back == e);
    }

    void refuses_bad_communicators_data() {
        QTest::addColumn<QString>("patch");  // JSON merged into a valid entry at index 0 ("!" replaces the field)
        QTest::addColumn<QString>("error");
        QTest::addRow("not an array") << R"({"!": {}})"
                                      << R"(field "communicators" must be an array)";
        QTest::addRow("dim missing") << R"({"dim": null})"
                                     << R"(field "communicators[0].dim" is required)";
        QTest::addRow("dim empty") << R"({"dim": ""})"
                                   << R"(field "communicators[0].dim" must be a string of 1 to 256 bytes)";
        QTest::addRow("index too large")
            << R"({"index": 8})"
            << R"(field "communicators[0].index" must be a group index below world_size (8))";
        QTest::addRow("member out of world")
            << R"({"members": [0, 8]})"
            << R"(field "communicators[0].members" must be an array of ranks below world_size (8))";
        QTest::addRow("member repeated") << R"({"members": [2, 2]})"
                                         << R"(field "communicators[0].members" must not repeat a rank)";
        QTest::addRow("no members") << R"({"members": []})"
                                    << R"(field "communicators[0].members" must not be empty)";
        QTest::addRow("state")
            << R"({"state": "hung"})"
            << R"(field "communicators[0].state" must be one of formed, not_formed, wrong_result, failed)";
        QTest::addRow("create_seconds") << R"({"create_seconds": -1})"
                                        << R"(field "communicators[0].create_seconds" must be a non-negative number)";
        QTest::addRow("collective")
            << R"({"results": [{"collective": "broadcast", "bytes": 1, "seconds": 0, "algbw": 0, "busbw": 0}]})"
            << R"(field "communicators[0].results[0].collective" must be one of all_reduce, all_gather, reduce_scatter, all_to_all)";
        QTest::addRow("bytes")
            << R"({"results": [{"collective": "all_reduce", "bytes": 0, "seconds": 0, "algbw": 0, "busbw": 0}]})"
            << R"(field "communicators[0].results[0].bytes" must be a positive integer)";
        QTest::addRow("busbw missing")
            << R"({"results": [{"collective": "all_reduce", "bytes": 1, "seconds": 0, "algbw": 0}]})"
            << R"(field "communicators[0].results[0].busbw" is required)";
        QTest::addRow("missing rank")
            << R"({"missing": [9]})"
            << R"(field "communicators[0].missing" must be an array of ranks below world_size (8))";
        QTest::addRow("error") << R"({"error": 5})"
                               << R"(field "communicators[0].error" must be a string)";
    }
    void refuses_bad_communicators() {
        QFETCH(QString, patch);
        QFETCH(QString, error);
        json e = {{"job", "probe"}, {"rank", 0}, {"world_size", 8}, {"phase", "communicator"}, {"status", "done"}};
        const json p = json::parse(patch.toStdString());
        if (p.contains("!")) {
            e["communicators"] = p["!"];
        } else {
            json c = entry("ep", 0, {0, 2}, 1.0);
            for (const auto& [key, value] : p.items()) {
                if (value.is_null())
                    c.erase(key);
                else
                    c[key] = value;
            }
            e["communicators"] = json::array({c});
        }
        const auto parsed = parse_events(e.dump());
        QVERIFY(!parsed.has_value());
        QCOMPARE(QString::fromStdString(parsed.error().message()), "event 0: " + error);
    }

    void finds_slow_groups_data() {
        QTest::addColumn<QList<double>>("busbw");  // GB/s of ep groups 0, 1, ...: [2g, 2g+1]
        QTest::addColumn<QStringList>("findings");
        // log2 [2, 2, 2, 2, 3, -3]: median 2, MAD 0 -> threshold max(0, log2(1/0.25) = 2) below: < 1 GB/s.
        QTest::addRow("one group 32x slower")
            << QList<double>{4, 4, 4, 4, 8, 0.125} << QStringList{"slow_group/ep/5:[10,11]"};
        // 2.5 GB/s is 0.63 of the median: below the minimum effect (a quarter of the median).
        QTest::addRow("small effect") << QList<double>{4, 4, 4, 4, 2.5} << QStringList{};
        // log2 [0, 1, 2, 3, 4, -1]: median 1.5, MAD 1.5 -> 3 * 1.4826 * 1.5 = 6.7 below: nothing is an outlier.
        QTest::addRow("wide spread") << QList<double>{1, 2, 4, 8, 16, 0.5} << QStringList{};
        // log2 [0, 1, 2, -5]: median 0.5, deviations [0.5, 0.5, 1.5, 5.5], MAD 1 -> 3 * 1.4826 = 4.45 below:
        // 0.5 - 4.45 = -3.95 > -5: slow, 45x under the median (at 5 MADs, 7.4 below, it went unjudged).
        QTest::addRow("four groups, healthy ones spread")
            << QList<double>{1, 2, 4, 0.03125} << QStringList{"slow_group/ep/3:[6,7]"};
        // Two groups only: below slow_group_min_groups (3), no judgement.
        QTest::addRow("too few groups") << QList<double>{4, 0.01} << QStringList{};
        QTest::addRow("three groups") << QList<double>{4, 4, 0.01} << QStringList{"slow_group/ep/2:[4,5]"};
    }
    void finds_slow_groups() {
        QFETCH(QList<double>, busbw);
        QFETCH(QStringList, findings);
        Monitor monitor;
        const auto events = ep_groups({busbw.begin(), busbw.end()});
        monitor.ingest(events, 1.0);
        QCOMPARE(kinds_and_ranks(monitor.findings("probe")), findings);
    }

    void slow_group_text() {
        Monitor monitor;
        monitor.ingest(ep_groups({4, 4, 4, 4, 8, 0.125}), 1.0);
        const auto findings = monitor.findings("probe");
        QCOMPARE(findings.size(), std::size_t{1});
        QCOMPARE(to_string(findings[0].kind), std::string_view("slow_group"));
        QCOMPARE(findings[0].message, std::string("ep group 5 [10, 11] reaches 0.12 GB/s bus bandwidth in all_to_all "
                                                  "of 64 KiB; the median of the 6 ep groups is 4.00 GB/s"));
        QCOMPARE(findings[0].fix,
                 std::string("Check the links between these ranks (NCCL_DEBUG=INFO, NIC and NVLink errors, PCIe "
                             "placement, CPU contention); every step's all_to_all on this group waits for its "
                             "slowest link."));
    }

    void the_slowest_member_is_the_group() {
        // Group 0's members disagree: rank 1 measured 0.1 GB/s; the group's figure is the slower one.
        auto events = ep_groups({4, 4, 4, 4});
        events[1] = communicator_event(1, 8, json::array({entry("ep", 0, {0, 1}, 0.1)}));
        Monitor monitor;
        monitor.ingest(events, 1.0);
        QCOMPARE(kinds_and_ranks(monitor.findings("probe")), QStringList{"slow_group/ep/0:[0,1]"});
        // Rank 1 measures again and is healthy: the finding goes.
        monitor.ingest(communicator_event(1, 8, json::array({entry("ep", 0, {0, 1}, 4)})), 2.0);
        QCOMPARE(kinds_and_ranks(monitor.findings("probe")), QStringList{});
    }

    void names_a_communicator_that_never_formed() {
        Monitor monitor;
        json waiting = {{"dim", "ep"},           {"index", 1},     {"members", {1, 3}},
                        {"state", "not_formed"}, {"missing", {3}}, {"error", "rank 3 did not join within 5.0 s"}};
        monitor.ingest(communicator_event(1, 4, json::array({entry("cp", 0, {0, 1}, 1.0, "all_reduce"), waiting})),
                       1.0);
        const auto findings = monitor.findings("probe");
        QCOMPARE(kinds_and_ranks(findings), QStringList{"communicator_not_formed/ep/1:[3]"});
        QCOMPARE(findings[0].message,
                 std::string("the ep group 1 [1, 3] communicator never formed: rank 3 never joined"));
        QCOMPARE(findings[0].fix,
                 std::string("Start every rank with the same plan (dp, cp, ep and creation order) and check that rank "
                             "3 is running and can reach its peers; a communicator waits for every member and NCCL "
                             "would hang here."));
        // Without a missing list, the members are named and the reporter's reason is quoted.
        waiting.erase("missing");
        Monitor other;
        other.ingest(communicator_event(1, 4, json::array({waiting})), 1.0);
        QCOMPARE(other.findings("probe").at(0).message,
                 std::string("the ep group 1 [1, 3] communicator never formed: rank 3 did not join within 5.0 s"));
        QCOMPARE(other.findings("probe").at(0).ranks, (std::vector<std::int64_t>{1, 3}));
        const auto summary = other.job("probe");
        QCOMPARE(summary->findings_by_kind[static_cast<std::size_t>(FindingKind::communicator_not_formed)],
                 std::int64_t{1});
    }

    void figures_per_group_and_per_dim() {
        Monitor monitor;
        monitor.ingest(ep_groups({4, 4, 2, 0.125}), 1.0);
        const auto doc = monitor.communicators_json("probe");
        QVERIFY(doc.has_value());
        QVERIFY(!monitor.communicators_json("nope").has_value());
        // One dim, one collective; 4 groups measured at 64 KiB, [0.125, 2, 4, 4]: the median is taken on the
        // logarithm (as slow_group judges), between 2 and 4: sqrt(2 * 4).
        const json& dims = (*doc)["dims"];
        QCOMPARE(dims.size(), std::size_t{1});
        QCOMPARE(dims[0]["dim"].get<std::string>(), std::string("ep"));
        QCOMPARE(dims[0]["collective"].get<std::string>(), std::string("all_to_all"));
        QCOMPARE(dims[0]["groups"].get<int>(), 4);
        QCOMPARE(dims[0]["measured"].get<int>(), 4);
        QCOMPARE(dims[0]["bytes"].get<int>(), 65536);
        QCOMPARE(dims[0]["median_busbw"].get<double>(), std::sqrt(8.0));
        QCOMPARE(dims[0]["min_busbw"].get<double>(), 0.125);
        QCOMPARE(dims[0]["max_busbw"].get<double>(), 4.0);
        const json& groups = (*doc)["groups"];
        QCOMPARE(groups.size(), std::size_t{4});
        QCOMPARE(groups[3]["members"], json({6, 7}));
        QCOMPARE(groups[3]["reported"].get<int>(), 2);
        QCOMPARE(groups[3]["state"].get<std::string>(), std::string("formed"));
        QCOMPARE(groups[3]["results"][0]["busbw"].get<double>(), 0.125);
        // log2 [2, 2, 1, -3]: median 1.5, MAD 0.5 -> max(3 * 1.4826 * 0.5 = 2.2, log2(4) = 2) below: 1.5 - 2.2 = -0.7 >
        // -3: slow.
        QCOMPARE(groups[3]["slow"].get<bool>(), true);
        QCOMPARE(groups[2]["slow"].get<bool>(), false);
    }
};

QTEST_GUILESS_MAIN(TestMonitorCommunicators)
#include "tst_monitor_communicators.moc"
