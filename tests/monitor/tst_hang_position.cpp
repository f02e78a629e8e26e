// Where each rank stands in a hang (core/hang_position.h): the job's summary worked out by hand, the JSON both ways
// with its refusals, and the monitor keeping an import's positions, plan and summary (a later import replaces
// them). Every expected value is written out by hand.
#include <QtTest>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "meshscope/monitor/hang_place.h"
#include "meshscope/monitor/hang_position.h"
#include "meshscope/monitor/monitor.h"
#include "meshscope/monitor/records_import.h"
#include "monitor_test_support.h"

using meshscope::HangPlace;
using meshscope::HangPosition;
using meshscope::HangStanding;
using meshscope::RankedPosition;
using meshscope::RecordsImport;
using meshscope::RecordsRank;
using monitor_test::q;

Q_DECLARE_METATYPE(HangPosition)
Q_DECLARE_METATYPE(HangPlace)

namespace {
HangPosition waiting(std::string dim, std::int64_t group, std::int64_t seq, std::string op) {
    HangPosition p;
    p.standing = HangStanding::waiting;
    p.dim = std::move(dim);
    p.group = group;
    p.seq = seq;
    p.op = std::move(op);
    return p;
}

HangPosition standing(HangStanding s) {
    HangPosition p;
    p.standing = s;
    return p;
}

// "e12 e14 e15 d0 d1 ... R13 n2 o9 x4": e = waiting in ep seq 2, d = waiting in dp seq 2, n = no record, o = outside
// collectives, x = dead; R marks the root cause (waiting in dp seq 2).
std::vector<std::pair<std::int64_t, HangPosition>> job(const QString& spec) {
    std::vector<std::pair<std::int64_t, HangPosition>> out;
    for (const QString& item : spec.split(' ', Qt::SkipEmptyParts)) {
        const std::int64_t rank = item.mid(1).toLongLong();
        HangPosition p;
        switch (item[0].toLatin1()) {
            case 'e': p = waiting("ep", rank / 4, 2, "all_to_all"); break;
            case 'd': p = waiting("dp", 0, 2, "all_reduce"); break;
            case 'R':
                p = waiting("dp", 0, 2, "all_reduce");
                p.root_cause = true;
                break;
            case 'n': p = standing(HangStanding::no_record); break;
            case 'o': p = standing(HangStanding::outside_collectives); break;
            case 'x': p = standing(HangStanding::dead); break;
        }
        out.emplace_back(rank, p);
    }
    return out;
}

QString summary_text(const QString& spec) {
    const auto positions = job(spec);
    std::vector<RankedPosition> ranks;
    for (const auto& [rank, p] : positions) ranks.push_back({rank, &p});
    return q(meshscope::summarize_hang(ranks).text);
}
}  // namespace

class HangPositionTest : public QObject {
    Q_OBJECT
private slots:
    void summary_data() {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("text");
        QTest::addRow("one rank skips its ep collective")
            << "e12 e14 e15 d0 d1 d3 d4 d5 d6 d7 d8 d9 d10 d11 R13 n2"
            << "root cause: rank 13; waiting in dp seq 2: 12 ranks; in ep seq 2: 3; no record: rank 2";
        QTest::addRow("waiting ranks are counted") << "e4 e5 d0"
                                                   << "waiting in ep seq 2: 2 ranks; in dp seq 2: 1";
        QTest::addRow("many ranks are counted") << "e0 e1 e2 e3 x7"
                                                << "waiting in ep seq 2: 4 ranks; dead: rank 7";
        QTest::addRow("healthy") << "o0 o1 o2 o3"
                                 << "outside collectives: 4 ranks";
        QTest::addRow("order: no record, dead, outside") << "o1 x2 n3"
                                                         << "no record: rank 3; dead: rank 2; "
                                                            "outside collectives: rank 1";
        QTest::addRow("nothing") << ""
                                 << "";
    }
    void summary() {
        QFETCH(QString, spec);
        QTEST(summary_text(spec), "text");
    }

    void places_name_their_ranks() {
        const auto positions = job("e12 e14 e15 R13 n2");
        std::vector<RankedPosition> ranks;
        for (const auto& [rank, p] : positions) ranks.push_back({rank, &p});
        const auto s = meshscope::summarize_hang(ranks);
        QCOMPARE(s.places.size(), std::size_t{3});
        QCOMPARE(q(s.places[0].text), QString("waiting in ep seq 2 (all_to_all)"));
        QCOMPARE(s.places[0].ranks, std::int64_t{3});
        QCOMPARE(s.places[0].some, (std::vector<std::int64_t>{12, 14, 15}));
        QCOMPARE(q(s.places[1].text), QString("waiting in dp seq 2 (all_reduce)"));
        QCOMPARE(q(s.places[2].text), QString("no record"));
        QCOMPARE(s.root_cause, (std::vector<std::int64_t>{13}));
        // Read back from its JSON unchanged.
        const auto back = meshscope::hang_summary_from_json(to_json(s), "hang");
        QVERIFY(back);
        QCOMPARE(*back, s);
    }

    // stands_in: the rule the Live pages' place filter keeps a place's ranks by, worked by hand: a waiting rank by
    // its dim (its group's label off the plan), seq and op; the others by their standing alone.
    void stands_in_data() {
        QTest::addColumn<HangPosition>("position");
        QTest::addColumn<HangPlace>("place");
        QTest::addColumn<bool>("in");
        const auto place = [](HangStanding s, std::string dim, std::int64_t seq, std::string op) {
            HangPlace p;
            p.standing = s;
            p.dim = std::move(dim);
            p.seq = seq;
            p.op = std::move(op);
            return p;
        };
        const HangPlace ep = place(HangStanding::waiting, "ep", 2, "all_to_all");
        QTest::addRow("its collective") << waiting("ep", 3, 2, "all_to_all") << ep << true;
        QTest::addRow("another group of the dim") << waiting("ep", 1, 2, "all_to_all") << ep << true;
        QTest::addRow("another seq") << waiting("ep", 3, 3, "all_to_all") << ep << false;
        QTest::addRow("another op") << waiting("ep", 3, 2, "all_reduce") << ep << false;
        QTest::addRow("another dim") << waiting("dp", 0, 2, "all_to_all") << ep << false;
        HangPosition off_plan = waiting("", -1, 2, "all_reduce");
        off_plan.label = "communicator commId 0x5ae7 (4 ranks)";
        QTest::addRow("off the plan: by its label")
            << off_plan << place(HangStanding::waiting, "communicator commId 0x5ae7 (4 ranks)", 2, "all_reduce")
            << true;
        QTest::addRow("off the plan, another label")
            << off_plan << place(HangStanding::waiting, "communicator commId 0x9999 (4 ranks)", 2, "all_reduce")
            << false;
        QTest::addRow("no record") << standing(HangStanding::no_record) << place(HangStanding::no_record, "", 0, "")
                                   << true;
        QTest::addRow("no record is not dead")
            << standing(HangStanding::no_record) << place(HangStanding::dead, "", 0, "") << false;
        QTest::addRow("waiting is not no record")
            << waiting("ep", 3, 2, "all_to_all") << place(HangStanding::no_record, "", 0, "") << false;
        HangPosition outside = standing(HangStanding::outside_collectives);
        outside.dim = "dp";  // its last completed collective: not part of the place
        outside.seq = 1;
        outside.op = "all_reduce";
        QTest::addRow("outside collectives, whatever it completed last")
            << outside << place(HangStanding::outside_collectives, "", 0, "") << true;
    }
    void stands_in() {
        QFETCH(HangPosition, position);
        QFETCH(HangPlace, place);
        QTEST(meshscope::stands_in(position, place), "in");
    }

    // Every rank stands in the one place of the summary that counts it.
    void every_rank_stands_in_its_place() {
        const auto positions = job("e12 e14 e15 d0 d1 d3 R13 n2 o9 x4");
        std::vector<RankedPosition> ranks;
        for (const auto& [rank, p] : positions) ranks.push_back({rank, &p});
        const auto s = meshscope::summarize_hang(ranks);
        for (const auto& [rank, p] : positions) {
            std::int64_t in = 0;
            for (const HangPlace& place : s.places) {
                if (!meshscope::stands_in(p, place)) continue;
                ++in;
                QVERIFY2(std::find(place.some.begin(), place.some.end(), rank) != place.some.end(),
                         qPrintable(QStringLiteral("rank %1 in %2").arg(rank).arg(q(place.text))));
            }
            QCOMPARE(in, std::int64_t{1});
        }
    }

    void position_json() {
        HangPosition p = waiting("ep", 3, 2, "all_to_all");
        p.label = "ep group 3 [12, 13, 14, 15]";
        p.root_cause = true;
        p.last = {{"ep", 3, 2, "all_to_all", false}, {"efsdp", 0, 4, "all_reduce", true}};
        const auto j = to_json(p);
        QCOMPARE(q(j.dump()),
                 QString(R"({"dim":"ep","group":3,"label":"ep group 3 [12, 13, 14, 15]","last":[{"completed":false,)"
                         R"("dim":"ep","group":3,"op":"all_to_all","seq":2},{"completed":true,"dim":"efsdp",)"
                         R"("group":0,"op":"all_reduce","seq":4}],"op":"all_to_all","root_cause":true,"seq":2,)"
                         R"("standing":"waiting"})"));
        const auto back = meshscope::hang_position_from_json(j, "position");
        QVERIFY(back);
        QCOMPARE(*back, p);
        // A rank no record names says only that.
        QCOMPARE(q(to_json(standing(HangStanding::no_record)).dump()), QString(R"({"standing":"no_record"})"));
    }

    void refusals_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("message");
        QTest::addRow("not an object") << "[]"
                                       << R"(field "ranks[3].position" must be an object)";
        QTest::addRow("no standing") << "{}"
                                     << R"(field "ranks[3].position.standing" is required)";
        QTest::addRow("unknown standing")
            << R"({"standing": "stuck"})"
            << R"(field "ranks[3].position.standing" must be one of waiting, outside_collectives, no_record, dead)";
        QTest::addRow("negative seq") << R"({"standing": "waiting", "seq": -1})"
                                      << R"(field "ranks[3].position.seq" must be a non-negative integer)";
        QTest::addRow("root_cause not a bool") << R"({"standing": "waiting", "root_cause": 1})"
                                               << R"(field "ranks[3].position.root_cause" must be true or false)";
        QTest::addRow("a call not an object") << R"({"standing": "waiting", "last": [3]})"
                                              << R"(field "ranks[3].position.last[0]" must be an object)";
        QTest::addRow("too many calls")
            << R"({"standing": "waiting", "last": [{},{},{},{},{},{},{},{},{},{},{},{},)"
               R"({},{},{},{},{}]})"
            << R"(field "ranks[3].position.last" must be an array of at most 16 collectives)";
    }
    void refusals() {
        QFETCH(QString, json);
        const auto parsed =
            meshscope::hang_position_from_json(nlohmann::json::parse(json.toStdString()), "ranks[3].position");
        QVERIFY(!parsed);
        QTEST(q(parsed.error().message()), "message");
    }

    // An import's positions and plan reach the job: its summary, its topology, each rank's JSON; a later import
    // without positions takes them away.
    void monitor_keeps_the_last_import() {
        meshscope::Monitor monitor;
        RecordsImport r;
        r.world_size = 16;
        r.topology = meshscope::ReportedTopology{8, 2, 4};
        r.topology_proposed = true;
        for (const auto& [rank, p] : job("e12 e14 e15 R13 n2"))
            r.ranks.push_back(RecordsRank{rank, std::nullopt, std::nullopt, p});
        monitor.import_records("hang", r, 1.0);

        const auto summary = to_json(monitor.job("hang").value());
        QCOMPARE(q(summary["hang"]["text"].get<std::string>()),
                 QString("root cause: rank 13; waiting in ep seq 2: 3 ranks; in dp seq 2: 1; no record: rank 2"));
        QCOMPARE(q(summary["topology"].dump()), QString(R"({"cp":2,"dp":8,"ep":4})"));
        const auto rank13 = monitor.rank("hang", 13).value();
        QVERIFY(rank13.position);
        QVERIFY(rank13.position->root_cause);
        QCOMPARE(q(to_json(rank13)["position"]["standing"].get<std::string>()), QString("waiting"));

        RecordsImport later;
        later.world_size = 16;
        monitor.import_records("hang", later, 2.0);
        QVERIFY(!to_json(monitor.job("hang").value()).contains("hang"));
        QVERIFY(!monitor.rank("hang", 13).value().position);
    }
};

QTEST_APPLESS_MAIN(HangPositionTest)
#include "tst_hang_position.moc"
