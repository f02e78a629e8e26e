// meshscope peers through QProcess, like a user: the JSON (meshscope.peers/1), the text side by side, a
// framework's refusal beside the others' layouts, and for bad input exit status 2 with the exact message and a
// hint line on stderr (nothing on stdout). Groups worked by hand (shared/docs/domain.md, section 3).
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include "cli_process.h"

namespace {
CliResult run_peers(const QStringList& args) {
    return run_meshscope(QStringList{"peers"} + args);
}

QJsonArray range(int from, int to, int step = 1) {
    QJsonArray out;
    for (int v = from; v < to; v += step) out.append(v);
    return out;
}
}  // namespace

class PeersCliTest : public QObject {
    Q_OBJECT
private slots:
    void json_contract() {
        const auto r = run_peers({"--world", "16", "--cp", "2", "--ep", "2", "--format", "json"});
        QCOMPARE(r.exit_code, 0);
        QVERIFY(r.err.isEmpty());
        const auto doc = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(doc["schema"].toString(), QStringLiteral("meshscope.peers/1"));
        QCOMPARE(doc["gpus_per_node"].toInt(), 8);
        const auto frameworks = doc["frameworks"].toArray();
        QCOMPARE(frameworks.size(), 3);
        const auto ep_of = [&](int i) { return frameworks[i].toObject()["dims"].toArray()[0].toObject(); };
        QCOMPARE(ep_of(0)["groups"].toArray()[0].toArray(), (QJsonArray{0, 2}));
        QCOMPARE(ep_of(0)["groups"].toArray()[1].toArray(), (QJsonArray{1, 3}));
        QCOMPARE(ep_of(0)["groups"].toArray()[2].toArray(), (QJsonArray{4, 6}));
        QCOMPARE(ep_of(1)["groups"].toArray()[1].toArray(), (QJsonArray{2, 3}));
        QCOMPARE(ep_of(2)["groups"].toArray()[1].toArray(), (QJsonArray{2, 3}));
        // world 64, cp 2, ep 8: FSDPTurbo's ep [0, 2, ..., 14] leaves its node; the peers' [0..7] stays.
        const auto wide = QJsonDocument::fromJson(
                              run_peers({"--world", "64", "--cp", "2", "--ep", "8", "--format", "json"}).out.toUtf8())
                              .object()["frameworks"]
                              .toArray();
        const auto ep64 = [&](int i) { return wide[i].toObject()["dims"].toArray()[0].toObject(); };
        QCOMPARE(ep64(0)["groups"].toArray()[0].toArray(), range(0, 16, 2));
        QCOMPARE(ep64(0)["cross_node_groups"].toInt(), 8);
        QCOMPARE(ep64(1)["groups"].toArray()[0].toArray(), range(0, 8));
        QCOMPARE(ep64(1)["cross_node_groups"].toInt(), 0);
        QCOMPARE(ep64(2)["cross_node_groups"].toInt(), 0);
    }

    void text() {
        const auto r = run_peers({"--world", "16", "--cp", "2", "--ep", "2"});
        QCOMPARE(r.exit_code, 0);
        const QString out = r.out;
        QVERIFY2(out.startsWith("peers: world 16, cp 2, ep 2, 8 GPUs per node\n"), qPrintable(out));
        QVERIFY2(out.contains("\nfsdpturbo\n  ep: 8 groups of 2, 0 across nodes\n      [0, 2] [1, 3] [4, 6] [5, 7]"),
                 qPrintable(out));
        QVERIFY2(out.contains("\ntorchtitan\n  ep: 8 groups of 2, 0 across nodes\n      [0, 1] [2, 3] [4, 5]"),
                 qPrintable(out));
        QVERIFY2(out.contains("  efsdp: 2 groups of 8, 2 across nodes\n"), qPrintable(out));
        QVERIFY2(out.contains("\nmegatron\n  ep: 8 groups of 2, 0 across nodes\n"), qPrintable(out));
        QVERIFY2(out.contains("  expt_dp: 2 groups of 8, 2 across nodes\n"), qPrintable(out));
        QVERIFY2(out.endsWith("\nep groups inside one node: fsdpturbo, torchtitan, megatron\n"
                              "ep groups across nodes: none\n"),
                 qPrintable(out));
        const auto four = run_peers({"--world", "16", "--cp", "2", "--ep", "4", "--gpus-per-node", "4"}).out;
        QVERIFY2(four.endsWith("\nep groups inside one node: torchtitan, megatron\n"
                               "ep groups across nodes: fsdpturbo (4 of 4)\n"),
                 qPrintable(four));
    }

    // One framework refuses; the others still lay it out: exit 0 and the refusal in the answer.
    void refusal() {
        const auto r = run_peers({"--world", "16", "--cp", "4", "--ep", "8"});
        QCOMPARE(r.exit_code, 0);
        QVERIFY2(r.out.contains("\nfsdpturbo\n  refuses it: ValueError: dp_size must be divisible by ep_size, got 4 % "
                                "8 != 0.\n"),
                 qPrintable(r.out));
        // Every framework refuses: the answer is still printed, and the exit status says bad input.
        const auto none = run_peers({"--world", "16", "--cp", "3", "--ep", "1", "--format", "json"});
        QCOMPARE(none.exit_code, 2);
        const auto frameworks = QJsonDocument::fromJson(none.out.toUtf8()).object()["frameworks"].toArray();
        QCOMPARE(frameworks[1].toObject()["error"].toObject()["message"].toString(),
                 QStringLiteral("Invalid parallel dims: dp_replicate(1) * dp_shard(5) * cp(3) * tp(1) * pp(1) != "
                                "WORLD_SIZE(16)"));
        QCOMPARE(none.err, QString("no framework lays out world 16 with cp 3 and ep 1\n"
                                   "hint: cp must divide world, and ep must divide world (FSDPTurbo: world / cp)\n"));
    }

    void bad_input_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QByteArray>("err");
        const QByteArray usage =
            "hint: meshscope peers --world W [--cp C] --ep E [--gpus-per-node G] [--format text|json]\n";
        QTest::addRow("ep 0") << QStringList{"--world", "16", "--ep", "0"}
                              << QByteArray(
                                     "ep_size must be positive, got 0.\n"
                                     "hint: ep is a positive integer; each framework says which ep it takes\n");
        QTest::addRow("world too large") << QStringList{"--world", "70000", "--ep", "2"}
                                         << QByteArray(
                                                "world_size (70000) exceeds the largest world meshscope lays "
                                                "out for peers (65536).\n"
                                                "hint: meshscope lays out peers for worlds of 1 to 65536 "
                                                "ranks\n");
        QTest::addRow("not an integer") << QStringList{"--world", "16", "--ep", "2", "--cp", "x"}
                                        << "meshscope peers: --cp expects an integer, got 'x'.\n" + usage;
        QTest::addRow("no ep") << QStringList{"--world", "16"} << "meshscope peers: --ep is required\n" + usage;
        QTest::addRow("bad format") << QStringList{"--world", "16", "--ep", "2", "--format", "yaml"}
                                    << "meshscope peers: --format: yaml not in {text,json}\n" + usage;
    }
    void bad_input() {
        QFETCH(QStringList, args);
        QFETCH(QByteArray, err);
        const auto r = run_peers(args);
        QCOMPARE(r.exit_code, 2);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(r.err, QString::fromUtf8(err));
    }
};

QTEST_GUILESS_MAIN(PeersCliTest)
#include "tst_peers_cli.moc"
