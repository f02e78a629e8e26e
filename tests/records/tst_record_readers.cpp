// The readers of what NCCL and PyTorch record: NCCL INFO lines of every shape from NCCL 2.18 to 2.30 (expected
// fields read off each line by hand from src/init.cc's format strings), the fixture logs (counts by grep), the
// restricted pickle reader (inputs written by Python's own pickle and by hand, offsets counted by hand), Flight
// Recorder dumps written by real torch 2.15 (facts from make_fr_fixtures.py: what each rank ran) and NCCL RAS
// status (the fixture's own facts).
#include <QFile>
#include <QTest>

#include <nlohmann/json.hpp>

#include "meshscope/records/flight_recorder.h"
#include "meshscope/records/nccl_log.h"
#include "meshscope/records/nccl_ras.h"
#include "meshscope/records/pickle.h"

#include "records_fixtures.h"

using namespace meshscope::records;

namespace {
NcclLog parse(std::string_view text) {
    NcclLog log;
    NcclLogParser parser("f.log", log);
    parser.feed(text);
    parser.finish();
    return log;
}

std::string hex_bytes(std::string_view hex) {
    std::string out;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
        out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
    return out;
}
}  // namespace

class RecordReadersTest : public QObject {
    Q_OBJECT
private slots:
    void init_line_data() {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("host");
        QTest::addColumn<qint64>("pid");
        QTest::addColumn<int>("stage");
        QTest::addColumn<QString>("function");
        QTest::addColumn<qint64>("rank");
        QTest::addColumn<qint64>("nranks");
        QTest::addColumn<QString>("comm_id");  // hex, or empty
        QTest::addColumn<QString>("parent");
        QTest::addColumn<qint64>("color");        // -1: none
        QTest::addColumn<qint64>("key");          // -1: none
        QTest::addColumn<qint64>("split_count");  // -1: none
        QTest::addColumn<qint64>("rank_prefix");  // -1: none
        QTest::addColumn<qint64>("launcher");     // -1: none
        QTest::addColumn<QString>("timestamp");
        const int start = static_cast<int>(NcclStage::init_start),
                  complete = static_cast<int>(NcclStage::init_complete),
                  abort = static_cast<int>(NcclStage::abort_start);
        QTest::addRow("2.18 START") << "gpu-a:100:101 [3] NCCL INFO comm 0x55aa rank 3 nranks 8 cudaDev 3 nvmlDev 3 "
                                       "busId 1b000 commId 0x9ad9b5e4ab2566da - Init START"
                                    << "gpu-a" << 100LL << start << "" << 3LL << 8LL << "9ad9b5e4ab2566da"
                                    << "" << -1LL << -1LL << -1LL << -1LL << -1LL << "";
        QTest::addRow("2.18 Abort COMPLETE, no nvmlDev")
            << "gpu-a:100:101 [3] NCCL INFO comm 0x55aa rank 3 nranks 8 cudaDev 3 busId 1b000 - Abort COMPLETE"
            << "gpu-a" << 100LL << static_cast<int>(NcclStage::abort_complete) << "" << 3LL << 8LL << ""
            << "" << -1LL << -1LL << -1LL << -1LL << -1LL << "";
        QTest::addRow("2.21 InitRank under torchrun")
            << "[rank5]:node1:41005:41105 [1] NCCL INFO ncclCommInitRank comm 0x5501 rank 5 nranks 8 cudaDev 1 nvmlDev "
               "1 busId 2b000 commId 0x7c0ffee0d15ea5e1 - Init COMPLETE"
            << "node1" << 41005LL << complete << "ncclCommInitRank" << 5LL << 8LL << "7c0ffee0d15ea5e1"
            << "" << -1LL << -1LL << -1LL << -1LL << 5LL << "";
        QTest::addRow("2.21 split with commId")
            << "myhost:7:8 [0] NCCL INFO ncclCommSplit comm 0x5951 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1a000 "
               "parent 0x5950 color 1684518034 key 0 commId 0x5a16c3838ce6f1f8 - Init START"
            << "myhost" << 7LL << start << "ncclCommSplit" << 0LL << 2LL << "5a16c3838ce6f1f8"
            << "0x5950" << 1684518034LL << 0LL << -1LL << -1LL << -1LL << "";
        QTest::addRow("2.23 split key N- Init START")
            << "h:7:8 [0] NCCL INFO ncclCommSplit comm 0x2 rank 1 nranks 4 cudaDev 0 nvmlDev 0 busId 1a000 parent 0x1 "
               "color 3 key 5- Init START"
            << "h" << 7LL << start << "ncclCommSplit" << 1LL << 4LL << ""
            << "0x1" << 3LL << 5LL << -1LL << -1LL << -1LL << "";
        QTest::addRow("2.26 splitCount under mpirun")
            << "[1,12]<stdout>:node3:9:10 [4] NCCL INFO ncclCommSplit comm 0x2 rank 1 nranks 4 cudaDev 4 nvmlDev 4 "
               "busId 1a000 parent 0x1 splitCount 2 color 3 key 12 - Init COMPLETE"
            << "node3" << 9LL << complete << "ncclCommSplit" << 1LL << 4LL << ""
            << "0x1" << 3LL << 12LL << 2LL << -1LL << 12LL << "";
        QTest::addRow("2.29 [Rank N] with a timestamp")
            << "[2026-12-03 14:00:01.123456] node0:41003:41103 [3] NCCL INFO [Rank 3] ncclCommInitRankConfig comm 0x3 "
               "rank 3 nranks 8 cudaDev 3 nvmlDev 3 busId 4b000 commId 0x7c0ffee0d15ea5e1 - Init START"
            << "node0" << 41003LL << start << "ncclCommInitRankConfig" << 3LL << 8LL << "7c0ffee0d15ea5e1"
            << "" << -1LL << -1LL << -1LL << 3LL << -1LL << "[2026-12-03 14:00:01.123456]";
        QTest::addRow("2.29 childCount under srun")
            << " 7: node1:41007:41107 [3] NCCL INFO ncclCommSplit comm 0x3 rank 3 nranks 4 cudaDev 3 nvmlDev 3 busId "
               "4b000 parent 0x1 childCount 2 color 1 key 7- Init START"
            << "node1" << 41007LL << start << "ncclCommSplit" << 3LL << 4LL << ""
            << "0x1" << 1LL << 7LL << 2LL << -1LL << 7LL << "";
        QTest::addRow("2.28 Abort START") << "node1:41004:41104 [0] NCCL INFO comm 0x550402a0001000 rank 0 nRanks 4 "
                                             "cudaDev 0 busId 1b000 - Abort START"
                                          << "node1" << 41004LL << abort << "" << 0LL << 4LL << ""
                                          << "" << -1LL << -1LL << -1LL << -1LL << -1LL << "";
        QTest::addRow("a host name with markup stays text")
            << "<b>x</b>:5:6 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1 commId 0x1 - Init START\r"
            << "<b>x</b>" << 5LL << start << "" << 0LL << 2LL << "1"
            << "" << -1LL << -1LL << -1LL << -1LL << -1LL << "";
    }
    void init_line() {
        QFETCH(QString, line);
        const NcclLog log = parse(line.toStdString() + "\n");
        QCOMPARE(log.problems.size(), std::size_t{0});
        QCOMPARE(log.comm_lines.size(), std::size_t{1});
        const NcclCommLine& c = log.comm_lines.front();
        QTEST(QString::fromStdString(c.process.host), "host");
        QTEST(static_cast<qint64>(c.process.pid), "pid");
        QTEST(static_cast<int>(c.stage), "stage");
        QTEST(QString::fromStdString(c.function), "function");
        QTEST(static_cast<qint64>(c.rank), "rank");
        QTEST(static_cast<qint64>(c.nranks), "nranks");
        QTEST(c.comm_id ? QString::number(*c.comm_id, 16) : QString(), "comm_id");
        QTEST(QString::fromStdString(c.parent), "parent");
        QTEST(static_cast<qint64>(c.color.value_or(-1)), "color");
        QTEST(static_cast<qint64>(c.key.value_or(-1)), "key");
        QTEST(static_cast<qint64>(c.split_count.value_or(-1)), "split_count");
        QTEST(static_cast<qint64>(c.rank_prefix.value_or(-1)), "rank_prefix");
        QTEST(static_cast<qint64>(c.launcher_rank.value_or(-1)), "launcher");
        QTEST(QString::fromStdString(c.timestamp), "timestamp");
        QCOMPARE(c.source.text(), std::string("f.log:1"));
    }

    void other_lines() {
        const NcclLog log = parse(
            "NCCL version 2.21.5+cuda12.4\n"
            "h:1:2 [0] NCCL INFO comm 0x1 rank 0 nRanks 8 nNodes 2 localRanks 4 localRank 0 MNNVL 0\n"
            "h:1:2 [0] NCCL INFO Init timings - ncclCommInitRank: rank 0 nranks 8 total 1.27 (kernels 0.31, alloc "
            "0.05)\n"
            "h:1:2 [0] NCCL INFO Channel 00/02 :    0   1\n"
            "\n"
            "[2026-12-03 14:00:02] h:1:3 [0] transport/net_ib.cc:1287 (ncclIbTest) NCCL WARN NET/IB : Got completion "
            "with error 12\n"
            "[rank0]:[W1203 ProcessGroupNCCL.cpp:4721] using GPU 0\n");
        QCOMPARE(log.lines, std::int64_t{7});
        QCOMPARE(log.versions.size(), std::size_t{1});
        QCOMPARE(log.versions[0].version, std::string("2.21.5+cuda12.4"));
        QCOMPARE(log.shapes.size(), std::size_t{1});
        QCOMPARE(log.shapes[0].nranks, std::int64_t{8});
        QCOMPARE(log.shapes[0].nnodes, std::int64_t{2});
        QCOMPARE(log.shapes[0].local_ranks, std::int64_t{4});
        QCOMPARE(log.timings.size(), std::size_t{1});
        QCOMPARE(log.timings[0].function, std::string("ncclCommInitRank"));
        QCOMPARE(log.timings[0].total_seconds, 1.27);
        QCOMPARE(log.warnings.size(), std::size_t{1});
        QCOMPARE(log.warnings[0].where, std::string("transport/net_ib.cc:1287 (ncclIbTest)"));
        QCOMPARE(log.warnings[0].message, std::string("NET/IB : Got completion with error 12"));
        QCOMPARE(log.warnings[0].source.line, std::int64_t{6});
        QCOMPARE(log.comm_lines.size(), std::size_t{0});
    }

    void bad_lines_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("problem");
        QTest::addRow("rank not a number")
            << "h:1:2 [0] NCCL INFO comm 0x1 rank x nranks 8 cudaDev 0 busId 1 - Init START"
            << "f.log:1: the rank \"x\" is not a number in an NCCL \"Init START\" line, skipped";
        QTest::addRow("rank past nranks")
            << "h:1:2 [0] NCCL INFO comm 0x1 rank 9 nranks 8 cudaDev 0 busId 1 - Init COMPLETE"
            << "f.log:1: no valid rank and nranks in an NCCL \"Init COMPLETE\" line, skipped";
        QTest::addRow("commId not hex")
            << "h:1:2 [0] NCCL INFO comm 0x1 rank 1 nranks 8 commId 0xzz - Init START"
            << "f.log:1: the commId \"0xzz\" is not a number in an NCCL \"Init START\" line, skipped";
        QTest::addRow("no prefix") << "NCCL INFO comm 0x1 rank 1 nranks 8 - Init START"
                                   << "";  // no " NCCL " with a space before it: not an NCCL line at all
        QTest::addRow("no host:pid:tid") << "garbage NCCL INFO comm 0x1 rank 1 nranks 8 - Init START"
                                         << "f.log:1: an NCCL init line without the host:pid:tid [dev] prefix, skipped";
    }
    void bad_lines() {
        QFETCH(QString, text);
        QFETCH(QString, problem);
        const NcclLog log = parse(text.toStdString() + "\n");
        QCOMPARE(log.comm_lines.size(), std::size_t{0});
        if (problem.isEmpty())
            QCOMPARE(log.problems.size(), std::size_t{0});
        else {
            QCOMPARE(log.problems.size(), std::size_t{1});
            QCOMPARE(QString::fromStdString(log.problems[0].message), problem);
        }
    }

    // Lines split anywhere across chunks read as when whole; a line longer than the limit is named and skipped.
    void chunks() {
        const std::string text = read_file(fixtures() + "/nccl-logs/v2.26-mpirun.log");
        QVERIFY(!text.empty());
        const NcclLog whole = parse(text);
        for (const std::size_t step : {1u, 7u, 4096u}) {
            NcclLog log;
            NcclLogParser parser("f.log", log);
            for (std::size_t i = 0; i < text.size(); i += step) parser.feed(std::string_view(text).substr(i, step));
            parser.finish();
            QCOMPARE(log.comm_lines.size(), whole.comm_lines.size());
            QCOMPARE(log.comm_lines.back().source.line, whole.comm_lines.back().source.line);
            QCOMPARE(log.warnings.size(), whole.warnings.size());
        }
        const std::string long_line(NcclLogParser::max_line + 10, 'x');
        const NcclLog log = parse("a\n" + long_line + "\nh:1:2 [0] NCCL INFO comm 0x1 rank 0 nranks 1 - Init START");
        QCOMPARE(log.problems.size(), std::size_t{1});
        QCOMPARE(log.problems[0].message, std::string("f.log:2: line longer than 65536 bytes, skipped"));
        QCOMPARE(log.comm_lines.size(), std::size_t{1});
        QCOMPARE(log.comm_lines[0].source.line, std::int64_t{3});
    }

    // The fixture logs (tests/records/fixtures/nccl-logs/README.md): counts by grep.
    void fixture_logs_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("starts");
        QTest::addColumn<int>("completes");
        QTest::addColumn<int>("aborts");
        QTest::addColumn<int>("warnings");
        QTest::addColumn<int>("versions");
        QTest::addColumn<int>("shapes");
        QTest::addColumn<int>("timings");
        QTest::addRow("2.18 pdsh") << "v2.18-pdsh.log" << 8 << 7 << 0 << 1 << 0 << 1 << 0;
        QTest::addRow("2.19 excerpt") << "v2.19-world-excerpt.log" << 0 << 5 << 0 << 0 << 1 << 0 << 0;
        QTest::addRow("2.21 init rank") << "v2.21-init-rank.log" << 8 << 8 << 0 << 0 << 1 << 0 << 2;
        QTest::addRow("2.21 split") << "v2.21-split.log" << 2 << 3 << 0 << 0 << 0 << 1 << 0;
        QTest::addRow("2.23 torchrun") << "v2.23-torchrun.log" << 24 << 24 << 0 << 0 << 8 << 8 << 8;
        QTest::addRow("2.26 mpirun") << "v2.26-mpirun.log" << 23 << 20 << 3 << 3 << 8 << 8 << 8;
    }
    void fixture_logs() {
        QFETCH(QString, file);
        const NcclLog log = parse(read_file(fixtures() + "/nccl-logs/" + file));
        QCOMPARE(log.problems.size(), std::size_t{0});
        int starts = 0, completes = 0, aborts = 0;
        for (const auto& c : log.comm_lines) {
            starts += c.stage == NcclStage::init_start;
            completes += c.stage == NcclStage::init_complete;
            aborts += c.stage == NcclStage::abort_start;
        }
        QTEST(starts, "starts");
        QTEST(completes, "completes");
        QTEST(aborts, "aborts");
        QTEST(static_cast<int>(log.warnings.size()), "warnings");
        QTEST(static_cast<int>(log.versions.size()), "versions");
        QTEST(static_cast<int>(log.shapes.size()), "shapes");
        QTEST(static_cast<int>(log.timings.size()), "timings");
    }

    void pickle_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("json");   // what it reads as, or empty
        QTest::addColumn<QString>("error");  // the exact error, or empty
        QTest::addColumn<int>("max_values");
        QTest::addColumn<int>("max_depth");
        // Python 3.11: pickle.dumps({'a': (1, 2.5, None, True, b'\xff', 'x'), 'big': 2**40, 'neg': -(2**40)},
        // protocol=4)
        QTest::addRow("python protocol 4")
            << QByteArray::fromStdString(
                   hex_bytes("8004953d000000000000007d94288c016194284b014740040000000000004e884301ff948c01789474948c036"
                             "26967948a060000000000018c036e6567948a060000000000ff752e"))
            << R"({"a":[1,2.5,null,true,"ÿ","x"],"big":1099511627776,"neg":-1099511627776})"
            << "" << 1 << 64;
        // The same at protocol 2 pickles bytes through _codecs.encode: a GLOBAL at byte 28 (pickletools.dis).
        QTest::addRow("python protocol 2 bytes: GLOBAL")
            << QByteArray::fromStdString(
                   hex_bytes("80027d7100285801000000617101284b014740040000000000004e88635f636f646563730a656e636f64650a7"
                             "1025802000000c3bf710358060000006c6174696e317104867105527106580100000078710774710858030000"
                             "0062696771098a0600000000000158030000006e6567710a8a060000000000ff752e"))
            << ""
            << "p at byte 28: opcode 0x63 ('c') names or calls Python code; a Flight Recorder dump never does, so it "
               "is refused"
            << 1 << 64;
        QTest::addRow("REDUCE") << QByteArray("\x80\x02)R.", 5) << ""
                                << "p at byte 3: opcode 0x52 ('R') names or calls Python code; a Flight Recorder dump "
                                   "never does, so it is refused"
                                << 1 << 64;
        QTest::addRow("a set") << QByteArray("\x80\x04\x8f.", 4) << ""
                               << "p at byte 2: opcode 0x8f is not one Flight Recorder writes; refused" << 1 << 64;
        QTest::addRow("truncated") << QByteArray("\x80\x02}", 3) << ""
                                   << "p at byte 3: truncated pickle (no STOP opcode)" << 1 << 64;
        QTest::addRow("argument past the end") << QByteArray(
                                                      "\x80\x02X\x10\x00\x00\x00"
                                                      "ab",
                                                      9)
                                               << ""
                                               << "p at byte 2: a length of 16 runs past the end" << 1 << 64;
        QTest::addRow("empty") << QByteArray() << ""
                               << "p at byte 0: truncated pickle (no STOP opcode)" << 1 << 64;
        QTest::addRow("int key") << QByteArray("\x80\x02}K\x01K\x02s.", 9) << ""
                                 << "p at byte 7: a dict key that is not a string; Flight Recorder's keys are strings"
                                 << 1 << 64;
        QTest::addRow("two values at STOP")
            << QByteArray("\x80\x02NN.", 5) << ""
            << "p at byte 4: STOP with 2 items on the stack (one value expected)" << 1 << 64;
        QTest::addRow("unknown memo") << QByteArray("\x80\x02h\x05.", 5) << ""
                                      << "p at byte 2: memo 5 was never stored" << 1 << 64;
        // ']' 'q0', then 4 times '(' 'h0' 'h0' 'l' 'q0': [x, x] stored over x. Values counted by hand: 2 after the
        // first list, then 8, 22, 52, and the 4th BINPUT (at byte 5 + 3 * 8 + 6 = 35) would make 114 > 100.
        QTest::addRow("memo doubling")
            << QByteArray("\x80\x02]q\x00(h\x00h\x00lq\x00(h\x00h\x00lq\x00(h\x00h\x00lq\x00(h\x00h\x00lq\x00.", 38)
            << ""
            << "p at byte 35: more than 100 values (memo copies included)" << 100 << 64;
        QTest::addRow("too deep") << QByteArray("\x80\x02((((]llll.", 12) << ""
                                  << "p at byte 10: nested deeper than 3 levels" << 1 << 3;
    }
    void pickle() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, json);
        QFETCH(QString, error);
        QFETCH(int, max_values);
        QFETCH(int, max_depth);
        PickleLimits limits;
        if (max_values > 1) limits.max_values = static_cast<std::size_t>(max_values);
        limits.max_depth = static_cast<std::size_t>(max_depth);
        const auto out =
            read_plain_pickle(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())), "p", limits);
        if (error.isEmpty()) {
            QVERIFY2(out.has_value(), out.has_value() ? "" : out.error().message().c_str());
            QCOMPARE(QString::fromStdString(out->dump()), json);
        } else {
            QVERIFY(!out.has_value());
            QCOMPARE(QString::fromStdString(out.error().message()), error);
        }
    }

    // Real dumps: the pickle and the JSON form of each rank hold the same entries; each entry is what the script ran.
    void fr_dumps_data() {
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<int>("rank");
        QTest::addColumn<QString>("ran");  // pg desc + seq + collective + input sizes, in record order
        const QString healthy =
            "default_pg#1 all_reduce [[2]]; mesh_efsdp#1 all_gather [[4]]; mesh_ep#1 all_reduce [[3]]; default_pg#2 "
            "all_reduce [[2]]; "
            "mesh_efsdp#2 all_gather [[4]]; mesh_ep#2 all_reduce [[3]]; default_pg#3 all_reduce [[2]]; mesh_efsdp#3 "
            "all_gather [[4]]; "
            "mesh_ep#3 all_reduce [[3]]; default_pg#4 all_reduce [[2]]; default_pg#5 barrier []";
        QTest::addRow("healthy 0") << "healthy" << 0 << healthy;
        QTest::addRow("healthy 7") << "healthy" << 7 << healthy;
        // rank 6 skips step 2's ep all_reduce, then waits in the world all_reduce of step 2 (seq 3)
        QTest::addRow("skip 6")
            << "skip" << 6
            << "default_pg#1 all_reduce [[2]]; mesh_efsdp#1 all_gather [[4]]; mesh_ep#1 all_reduce [[3]]; "
               "default_pg#2 all_reduce [[2]]; mesh_efsdp#2 all_gather [[4]]; default_pg#3 all_reduce [[2]]";
        // its ep peers wait in that ep all_reduce (seq 2)
        QTest::addRow("skip 5")
            << "skip" << 5
            << "default_pg#1 all_reduce [[2]]; mesh_efsdp#1 all_gather [[4]]; mesh_ep#1 all_reduce [[3]]; "
               "default_pg#2 all_reduce [[2]]; mesh_efsdp#2 all_gather [[4]]; mesh_ep#2 all_reduce [[3]]";
        // rank 5 gathers [2, 2] at step 1
        QTest::addRow("sizes 5")
            << "sizes" << 5
            << "default_pg#1 all_reduce [[2]]; mesh_efsdp#1 all_gather [[2, 2]]; mesh_ep#1 all_reduce [[3]]; "
               "default_pg#2 all_reduce [[2]]; mesh_efsdp#2 all_gather [[4]]; mesh_ep#2 all_reduce [[3]]; "
               "default_pg#3 all_reduce [[2]]; mesh_efsdp#3 all_gather [[4]]; mesh_ep#3 all_reduce [[3]]; "
               "default_pg#4 all_reduce [[2]]; default_pg#5 barrier []";
        // rank 3 never creates its ep group: its peers 0-2 wait in creating it after the first world all_reduce
        QTest::addRow("nogroup 0") << "nogroup" << 0 << "default_pg#1 all_reduce [[2]]";
        QTest::addRow("nogroup 3")
            << "nogroup" << 3
            << "default_pg#1 all_reduce [[2]]; mesh_efsdp#1 all_gather [[4]]; default_pg#2 all_reduce [[2]]";
    }
    void fr_dumps() {
        QFETCH(QString, scenario);
        QFETCH(int, rank);
        QFETCH(QString, ran);
        const QString dir = fixtures() + "/fr/" + scenario;
        const QString pickle_file = dir + "/nccl_trace_rank_" + QString::number(rank);
        const QString json_file = dir + "/json/nccl_trace_rank_" + QString::number(rank) + ".json";
        const auto p = read_fr_dump(read_file(pickle_file), pickle_file.toStdString());
        QVERIFY2(p.has_value(), p.has_value() ? "" : p.error().message().c_str());
        const auto j = read_fr_dump(read_file(json_file), json_file.toStdString());
        QVERIFY2(j.has_value(), j.has_value() ? "" : j.error().message().c_str());
        QCOMPARE(p->format, std::string("pickle"));
        QCOMPARE(j->format, std::string("json"));
        QCOMPARE(p->rank, std::int64_t{rank});
        QCOMPARE(j->rank, std::int64_t{rank});
        QCOMPARE(p->version, std::string("2.10"));
        for (const FrDump* d : {&*p, &*j}) {
            QStringList parts;
            for (const auto& e : d->entries) {
                QString sizes = "[";
                for (std::size_t i = 0; i < e.input_sizes().size(); ++i) {
                    QStringList dims;
                    for (const auto v : e.input_sizes()[i]) dims << QString::number(v);
                    sizes += (i ? ", [" : "[") + dims.join(", ") + "]";
                }
                parts << QString::fromStdString(e.pg_desc()) + "#" + QString::number(e.collective_seq_id) + " " +
                             QString::fromStdString(std::string(e.collective())) + " " + sizes + "]";
                QCOMPARE(e.state(), std::string("scheduled"));  // gloo records no start or completion
                QVERIFY(!e.time_discovered_completed_ns);
            }
            QCOMPARE(parts.join("; "), ran);
        }
        QCOMPARE(p->pg_status.size(), j->pg_status.size());
        for (const auto& [id, s] : p->pg_status) {
            QCOMPARE(j->pg_status.at(id).last_enqueued, s.last_enqueued);
            QCOMPARE(j->pg_status.at(id).last_completed, s.last_completed);
        }
    }

    void fr_errors_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("error");
        QTest::addRow("empty") << QByteArray("  \n") << "f_3: empty file (no Flight Recorder dump)";
        QTest::addRow("not JSON") << QByteArray("{\"version\": ") << "f_3 at byte 12: not valid JSON";
        // 1e999 is past a double's largest (about 1.8e308): nlohmann refuses it with an out_of_range, not a
        // parse_error.
        QTest::addRow("number out of range")
            << QByteArray("{\"version\": 1e999}") << "f_3: not valid JSON: a number is out of range";
        QTest::addRow("no version") << QByteArray("{\"entries\": []}") << "f_3: version is missing";
        // JSON's one depth bound (json_limits.h): 65 levels are refused before the rest is read; 64 are read.
        // A NUL ends nlohmann's input: what follows it would go unread, so the dump is refused at that byte.
        QTest::addRow("NUL after the dump")
            << QByteArray("{\"version\": \"2.9\"}\0{", 20) << "f_3 at byte 18: not valid JSON";
        QTest::addRow("nested 65 deep") << "{\"version\": " + QByteArray(64, '[') + QByteArray(64, ']') + "}"
                                        << "f_3: invalid JSON: nested deeper than 64 levels";
        QTest::addRow("nested 60000 deep") << "{\"entries\": " + QByteArray(60000, '[') + QByteArray(60000, ']') + "}"
                                           << "f_3: invalid JSON: nested deeper than 64 levels";
        QTest::addRow("nested 64 deep") << "{\"entries\": " + QByteArray(63, '[') + QByteArray(63, ']') + "}"
                                        << "f_3: version is missing";
        QTest::addRow("seq not an integer")
            << QByteArray(
                   R"({"version": "2.10", "entries": [{"process_group": ["0", "default_pg"], "collective_seq_id": [1], "profiling_name": "gloo:barrier"}]})")
            << "f_3: entries[0].collective_seq_id must be an integer, got [1]";
        QTest::addRow("process_group not a pair")
            << QByteArray(
                   R"({"version": "2.10", "entries": [{"process_group": "0", "collective_seq_id": 1, "profiling_name": "x"}]})")
            << "f_3: entries[0].process_group must be (name, desc), got \"0\"";
        QTest::addRow("sizes")
            << QByteArray(
                   R"({"version": "2.10", "entries": [{"process_group": ["0", ""], "collective_seq_id": 1, "profiling_name": "x", "input_sizes": [[1, "2"]]}]})")
            << "f_3: entries[0].input_sizes[0][1] must be an integer, got \"2\"";
        QTest::addRow("pg_config ranks") << QByteArray(
                                                R"({"version": "2.10", "pg_config": {"0": {"ranks": "[0, x]"}}})")
                                         << "f_3: pg_config[\"0\"].ranks must be a list of ranks, got \"[0, x]\"";
        QTest::addRow("a pickle that calls code") << QByteArray(
                                                         "\x80\x02"
                                                         "cos\nsystem\n.",
                                                         14)
                                                  << "f_3 at byte 2: opcode 0x63 ('c') names or calls Python code; a "
                                                     "Flight Recorder dump never does, so it is refused";
    }
    void fr_errors() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, error);
        const auto d = read_fr_dump(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())), "f_3");
        QVERIFY(!d.has_value());
        QCOMPARE(QString::fromStdString(d.error().message()), error);
    }

    void rank_from_name_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("rank");
        QTest::addRow("default prefix") << "/tmp/nccl_trace_rank_13" << 13;
        QTest::addRow("json") << "d/json/nccl_trace_rank_7.json" << 7;
        QTest::addRow("host in the prefix") << "dumps/node-12.example_trace_4" << 4;
        QTest::addRow("no digits") << "trace_rank_" << -1;
    }
    void rank_from_name() {
        QFETCH(QString, name);
        QTEST(static_cast<int>(rank_from_file_name(name.toStdString()).value_or(-1)), "rank");
    }

    void ras_status() {
        const QString file = fixtures() + "/ras/status.json";
        const auto s = read_ras_json(read_file(file), "status.json");
        QVERIFY2(s.has_value(), s.has_value() ? "" : s.error().message().c_str());
        QCOMPARE(s->nccl_version, std::string("2.28.9"));
        QCOMPARE(s->communicators.size(), std::size_t{3});
        const RasCommunicator& world = s->communicators[0];
        QCOMPARE(world.hash, std::string("0x7c0ffee0d15ea5e1"));
        QCOMPARE(world.size, std::int64_t{8});
        QCOMPARE(world.ranks.size(), std::size_t{7});
        QCOMPARE(world.missing_ranks.size(), std::size_t{1});
        QCOMPARE(world.missing_ranks[0].rank, std::int64_t{6});
        QCOMPARE(world.missing_ranks[0].host, std::string("node1"));
        QVERIFY(world.missing_ranks[0].considered_dead);
        QCOMPARE(s->communicators[1].ranks[2].collective_counts.at("AllReduce"), std::uint64_t{56});
        QCOMPARE(s->communicators[2].ranks[0].init_state, std::int64_t{7});
        QCOMPARE(s->timeouts_count, std::int64_t{1});
        // RAS prints host names unescaped: a quote in one breaks the document, named at the byte it breaks
        // (3013: the '<' after the quote, found with Python's bytes.index).
        const auto bad = read_ras_json(read_file(fixtures() + "/ras/status-bad-host.json"), "bad.json");
        QVERIFY(!bad.has_value());
        QCOMPARE(bad.error().message(), std::string("bad.json at byte 3013: not valid JSON"));
        const auto missing =
            read_ras_json(R"({"nccl_version": "2.28.9", "communicators": [{"hash": "0x1", "size": 2}]})", "m.json");
        QCOMPARE(missing.error().message(), std::string("m.json: communicators[0].ranks is missing"));
        const auto huge = read_ras_json("-4222222222222222222222222222222222222222.2e2222222222", "huge.json");
        QCOMPARE(huge.error().message(), std::string("huge.json: not valid JSON: a number is out of range"));
        const auto nul = read_ras_json(std::string("{}\0", 3), "nul.json");
        QCOMPARE(nul.error().message(), std::string("nul.json at byte 2: not valid JSON"));
        const auto deep = read_ras_json(std::string(100000, '[') + std::string(100000, ']'), "deep.json");
        QCOMPARE(deep.error().message(), std::string("deep.json: invalid JSON: nested deeper than 64 levels"));
    }

    // The text form of the job in fixtures/ras/README.md (status.txt), and a second job with every block kind
    // (status-mixed.txt); each expected value is read off the fixture by hand.
    void ras_text() {
        const auto s = read_ras_text(read_file(fixtures() + "/ras/status.txt"), "status.txt");
        QVERIFY2(s.has_value(), s.has_value() ? "" : s.error().message().c_str());
        QVERIFY(s->text_form);
        QCOMPARE(s->nccl_version, std::string("2.27.7"));
        QCOMPARE(s->collection_time_sec, 0.412);
        QCOMPARE(s->timeouts_count, std::int64_t{1});
        QCOMPARE(s->largest_comm_size, std::int64_t{8});
        QCOMPARE(s->dead_processes.size(), std::size_t{1});
        QCOMPARE(s->dead_processes[0].host, std::string("10.1.0.2"));
        QCOMPARE(s->dead_processes[0].pid, std::int64_t{41006});
        QCOMPARE(s->dead_processes[0].gpus, std::string("2"));
        QCOMPARE(s->communicators.size(), std::size_t{3});
        const RasCommunicator& world = s->communicators[0];
        QCOMPARE(world.hash, std::string("0x7c0ffee0d15ea5e1"));
        QCOMPARE(world.size, std::int64_t{8});
        QCOMPARE(world.status, std::string("RUNNING"));
        QCOMPARE(world.errors, std::string("INCOMPLETE"));
        QCOMPARE(world.ranks.size(), std::size_t{0});
        QCOMPARE(world.missing_ranks.size(), std::size_t{1});
        QCOMPARE(world.missing_ranks[0].rank, std::int64_t{6});
        QCOMPARE(world.missing_ranks[0].pid, std::int64_t{41006});
        QCOMPARE(world.missing_ranks[0].cuda_dev, std::int64_t{2});
        QVERIFY(world.missing_ranks[0].unresponsive);
        QVERIFY(world.missing_ranks[0].considered_dead);
        const RasCommunicator& ep = s->communicators[1];
        QCOMPARE(ep.hash, std::string("0x2b1d5e7f9a3c4e60"));
        QCOMPARE(ep.size, std::int64_t{4});
        QCOMPARE(ep.errors, std::string("INCOMPLETE,MISMATCH"));
        QCOMPARE(ep.missing_ranks.size(), std::size_t{1});
        QCOMPARE(ep.missing_ranks[0].rank, std::int64_t{2});
        QCOMPARE(ep.ranks.size(), std::size_t{1});
        QCOMPARE(ep.ranks[0].rank, std::int64_t{3});
        QCOMPARE(ep.ranks[0].host, std::string("10.1.0.2"));
        QCOMPARE(ep.ranks[0].pid, std::int64_t{41007});
        QCOMPARE(ep.ranks[0].collective_counts.at("AllReduce"), std::uint64_t{56});
        QCOMPARE(ep.mismatched_ops, std::vector<std::string>{"AllReduce"});
        QCOMPARE(ep.unnamed.size(), std::size_t{1});
        QCOMPARE(ep.unnamed[0].op, std::string("AllReduce"));
        QCOMPARE(ep.unnamed[0].count, std::uint64_t{57});
        QCOMPARE(ep.unnamed[0].ranks, std::int64_t{2});
        const RasCommunicator& efsdp = s->communicators[2];
        QCOMPARE(efsdp.hash, std::string("0x44aa0c0ffee0e002"));
        QCOMPARE(efsdp.size, std::int64_t{2});
        QCOMPARE(efsdp.status, std::string("INIT"));
        QCOMPARE(efsdp.missing_ranks[0].rank, std::int64_t{1});

        const auto m = read_ras_text(read_file(fixtures() + "/ras/status-mixed.txt"), "mixed.txt");
        QVERIFY2(m.has_value(), m.has_value() ? "" : m.error().message().c_str());
        QCOMPARE(m->nccl_version, std::string("2.26.6"));
        QCOMPARE(m->timeouts_count, std::int64_t{2});
        QCOMPARE(m->largest_comm_size, std::int64_t{4});
        QCOMPARE(m->dead_processes.size(), std::size_t{0});
        QCOMPARE(m->silent_processes.size(), std::size_t{1});
        QCOMPARE(m->silent_processes[0].pid, std::int64_t{503});
        QCOMPARE(m->silent_processes[0].gpus, std::string("3 (NVML 7)"));
        QCOMPARE(m->communicators.size(), std::size_t{2});
        const RasCommunicator& a = m->communicators[0];
        QCOMPARE(a.hash, std::string("0xf00dfeed000a11"));  // printed %016lx: leading zeros dropped as JSON's %lx
        QCOMPARE(a.status, std::string("ABORT"));
        QCOMPARE(a.errors, std::string("INCOMPLETE,ERROR,MISMATCH"));
        QCOMPARE(a.missing_ranks.size(), std::size_t{1});
        QCOMPARE(a.missing_ranks[0].rank, std::int64_t{3});
        QCOMPARE(a.missing_ranks[0].cuda_dev, std::int64_t{3});
        QCOMPARE(a.missing_ranks[0].nvml_dev, std::int64_t{7});
        QVERIFY(!a.missing_ranks[0].considered_dead);
        QCOMPARE(a.ranks.size(), std::size_t{1});
        QCOMPARE(a.ranks[0].rank, std::int64_t{1});
        QCOMPARE(a.ranks[0].async_error, std::int64_t{6});  // "Remote process error": ncclRemoteError
        QCOMPARE(a.ranks[0].init_state, std::int64_t{0});
        QVERIFY(a.ranks[0].abort_flag);
        QCOMPARE(a.ranks[0].collective_counts.at("AllReduce"), std::uint64_t{9});
        QCOMPARE(a.unnamed.size(), std::size_t{1});
        QCOMPARE(a.unnamed[0].count, std::uint64_t{10});
        QCOMPARE(a.unnamed[0].ranks, std::int64_t{2});
        const RasCommunicator& c = m->communicators[1];
        QCOMPARE(c.hash, std::string("0x9e3779b97f4a7c15"));
        QCOMPARE(c.errors, std::string("MISMATCH"));
        QCOMPARE(c.ranks.size(), std::size_t{1});
        QCOMPARE(c.ranks[0].pid, std::int64_t{500});
        QCOMPARE(c.ranks[0].nvml_dev, std::int64_t{4});
        QCOMPARE(c.missing_ranks.size(), std::size_t{1});
        QCOMPARE(c.missing_ranks[0].rank, std::int64_t{1});
        QCOMPARE(c.missing_ranks[0].pid, std::int64_t{502});
        QVERIFY(!c.missing_ranks[0].unresponsive);  // NOCOMM: it answered, not as a member
        QCOMPARE(c.unnamed.size(), std::size_t{0});
    }

    // NCCL 2.24 and 2.25 print a communicator's missing ranks as a list of numbers and count all collectives
    // together (client_support.cc at v2.24.3-1): status.txt with those lines in place of 2.27's.
    void ras_text_2_24() {
        QByteArray text = QByteArray::fromStdString(read_file(fixtures() + "/ras/status.txt"));
        text.replace("  Rank 6 -- GPU 2 managed by process 41006 on node 10.1.0.2\n", "  The missing rank: 6\n");
        text.replace("different AllReduce operation counts", "different collective operation counts");
        text.replace("Communicators... (0.412s)", "Communicators... (0.41s)");
        const auto s = read_ras_text(text.toStdString(), "old.txt");
        QVERIFY2(s.has_value(), s.has_value() ? "" : s.error().message().c_str());
        QCOMPARE(s->collection_time_sec, 0.41);
        const RasCommunicator& world = s->communicators[0];
        QCOMPARE(world.missing_ranks.size(), std::size_t{1});
        QCOMPARE(world.missing_ranks[0].rank, std::int64_t{6});
        QCOMPARE(world.missing_ranks[0].pid, std::int64_t{0});
        QVERIFY(world.missing_ranks[0].unresponsive);
        QCOMPARE(world.unnamed.size(), std::size_t{0});
        const RasCommunicator& ep = s->communicators[1];
        QCOMPARE(ep.mismatched_ops, std::vector<std::string>{"collective"});
        QCOMPARE(ep.ranks[0].collective_counts.at("collective"), std::uint64_t{56});
        QCOMPARE(ep.unnamed[0].op, std::string("collective"));
        QCOMPARE(ep.unnamed[0].count, std::uint64_t{57});
        // "Rank 1,3 has status UNKNOWN" (2.24's NOCOMM) in a status block
        QByteArray unknown = QByteArray::fromStdString(read_file(fixtures() + "/ras/status-mixed.txt"));
        unknown.replace("  Rank 1 has status NOCOMM -- GPU 2 (NVML 6) managed by process 502 on node 10.2.0.7",
                        "  Rank 1 has status UNKNOWN");
        const auto u = read_ras_text(unknown.toStdString(), "u.txt");
        QVERIFY2(u.has_value(), u.has_value() ? "" : u.error().message().c_str());
        QCOMPARE(u->communicators[1].missing_ranks.size(), std::size_t{1});
        QCOMPARE(u->communicators[1].missing_ranks[0].rank, std::int64_t{1});
        QVERIFY(!u->communicators[1].missing_ranks[0].unresponsive);
    }

    void ras_text_errors_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("error");
        const QByteArray good = QByteArray::fromStdString(read_file(fixtures() + "/ras/status.txt"));
        const auto cut = [&](const char* at) { return good.left(good.indexOf(at)); };
        const auto swap = [&](const char* from, const char* to) {
            QByteArray b = good;
            return b.replace(from, to);
        };
        QTest::addRow("empty") << QByteArray() << "e.txt: empty, not NCCL RAS status";
        QTest::addRow("not RAS") << QByteArray("hello\n")
                                 << "e.txt:1: not NCCL RAS status: it starts with \"hello\", not \"NCCL version\"";
        QTest::addRow("summary only") << cut("Communicators...")
                                      << "e.txt: ends before its Errors section (10 lines): the status was cut short";
        QTest::addRow("cut before Warnings")
            << cut("Warnings") << "e.txt: ends before its Warnings section (40 lines): the status was cut short";
        QTest::addRow("unknown block") << swap("DEAD", "DEAF")
                                       << "e.txt:25: not a line of NCCL RAS's text status: \"DEAF\"";
        QTest::addRow("bad row") << swap("    0         1         2       3-4", "    0         x         2       3-4")
                                 << "e.txt:16: not a row of the communicators table: \"    0         x         2    "
                                    "   3-4         8         7   RU...\"";
        QTest::addRow("no such row") << swap("#4-0", "#9-0")
                                     << "e.txt:37: a communicator block for no row of the table: \"#9-0 "
                                        "(44aa0c0ffee0e002) INCOMPLETE\"";
        QTest::addRow("bad rank line") << swap("  Rank 6 -- GPU 2", "  Rank 6 -- CPU 2")
                                       << "e.txt:31: not a line of NCCL RAS's text status: \"  Rank 6 -- CPU 2 "
                                          "managed by process 41006 on node 10.1.0.2\"";
        QTest::addRow("table header") << swap("Group     Comms", "Group  Comms")
                                      << "e.txt:14: expected \"Group     Comms     Nodes     Ranks     Ranks     "
                                         "Ranks    Status  Errors\", got \"Group  Comms     Nodes     Ranks     "
                                         "Ranks     Ranks    Stat...\"";
    }

    void ras_text_errors() {
        QFETCH(QByteArray, text);
        const auto s = read_ras_text(text.toStdString(), "e.txt");
        QVERIFY(!s.has_value());
        QTEST(QString::fromStdString(s.error().message()), "error");
    }

    // client.cc: strncasecmp on "SERVER PROTOCOL ", then strtol; anything else is not RAS.
    void ras_server_protocol_data() {
        QTest::addColumn<QString>("line");
        QTest::addColumn<int>("version");  // -1: not the answer
        QTest::addRow("2") << "SERVER PROTOCOL 2" << 2;
        QTest::addRow("newer, CR") << "SERVER PROTOCOL 3\r" << 3;
        QTest::addRow("lower case") << "server protocol 2" << 2;
        QTest::addRow("no number") << "SERVER PROTOCOL " << -1;
        QTest::addRow("junk after") << "SERVER PROTOCOL 2x" << -1;
        QTest::addRow("http") << "HTTP/1.0 400 Bad Request" << -1;
        QTest::addRow("error") << "ERROR: Unknown command CLIENT PROTOCOL 2" << -1;
    }

    void ras_server_protocol() {
        QFETCH(QString, line);
        const auto v = meshscope::records::ras_server_protocol(line.toStdString());
        QTEST(v ? static_cast<int>(*v) : -1, "version");
    }

    // Ray's rule over polls of status.json's ep group (ranks 4, 5 at 57 AllReduce, rank 7 at 56): mismatched and
    // unchanged from one poll to the next is stalled; counts that move reset it; counts that agree are no stall.
    void ras_stall_watch() {
        const auto base = read_ras_json(read_file(fixtures() + "/ras/status.json"), "s.json");
        QVERIFY(base.has_value());
        RasStatus moved = *base;
        for (auto& r : moved.communicators[1].ranks) ++r.collective_counts["AllReduce"];
        RasStatus agreed = moved;
        agreed.communicators[1].ranks[2].collective_counts["AllReduce"] = 58;
        RasStallWatch watch;
        const auto polls = [&](const RasStatus& s) {
            QStringList out;
            for (const auto& stall : watch.observe(s))
                out << QString::fromStdString(stall.hash) + "x" + QString::number(stall.polls);
            return out.join(" ");
        };
        QCOMPARE(polls(*base), QString());  // first sight of the mismatch
        QCOMPARE(polls(*base), QString("0x2b1d5e7f9a3c4e60x2"));
        QCOMPARE(polls(*base), QString("0x2b1d5e7f9a3c4e60x3"));
        QCOMPARE(polls(moved), QString());  // it moved
        QCOMPARE(polls(moved), QString("0x2b1d5e7f9a3c4e60x2"));
        QCOMPARE(polls(agreed), QString());  // the counts agree: nothing to wait for
        QCOMPARE(polls(agreed), QString());
        // The text form: MISMATCH with the same named and unnamed counts twice.
        const auto text = read_ras_text(read_file(fixtures() + "/ras/status.txt"), "s.txt");
        QVERIFY(text.has_value());
        RasStallWatch text_watch;
        QCOMPARE(text_watch.observe(*text).size(), std::size_t{0});
        const auto again = text_watch.observe(*text);
        QCOMPARE(again.size(), std::size_t{1});
        QCOMPARE(again[0].hash, std::string("0x2b1d5e7f9a3c4e60"));
    }
};

QTEST_APPLESS_MAIN(RecordReadersTest)
#include "tst_record_readers.moc"
