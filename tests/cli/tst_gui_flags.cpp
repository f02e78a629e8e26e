// `meshscope` (the dashboard) with bad flags, as a user runs it: exit status 2 and the exact message, then
// the usage hint. The flags are CLI11's (app/commands/gui_command.cpp); the texts are MeshScope's, written
// out here by hand. Flag errors stop before any window exists, so no display is needed.
#include <QtTest>

#include "cli_process.h"

class TestGuiFlags : public QObject {
    Q_OBJECT

private slots:
    void bad_flags_exit_2_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::addRow("unknown flag") << QStringList{"--bogus"} << "meshscope: Unknown option 'bogus'.";
        QTest::addRow("unknown flag with a value")
            << QStringList{"--bogus", "3"} << "meshscope: Unknown option 'bogus'.";
        QTest::addRow("a stray word") << QStringList{"--dp", "8", "extra"} << "meshscope: unknown command 'extra'";
        QTest::addRow("not an integer") << QStringList{"--ep", "x"} << "meshscope: --ep expects an integer, got 'x'";
        QTest::addRow("integer and more")
            << QStringList{"--gpus-per-node", "8x"} << "meshscope: --gpus-per-node expects an integer, got '8x'";
        QTest::addRow("too large an integer")
            << QStringList{"--world", "99999999999"} << "meshscope: --world expects an integer, got '99999999999'";
        QTest::addRow("select-rank not an integer")
            << QStringList{"--select-rank", "1.5"} << "meshscope: --select-rank expects an integer, got '1.5'";
        QTest::addRow("bad theme") << QStringList{"--theme", "blue"}
                                   << "meshscope: --theme must be light or dark, got 'blue'";
        QTest::addRow("bad order") << QStringList{"--order", "torch27"}
                                   << "meshscope: --order must be torch29 or torch28, got 'torch27'";
        QTest::addRow("bad view") << QStringList{"--view", "pipeline"}
                                  << "meshscope: --view must be expert or data or model, got 'pipeline'";
        QTest::addRow("bad page") << QStringList{"--page", "charts"}
                                  << "meshscope: --page must be planner or live, got 'charts'";
        // The Cost panel's names, judged by core with core's messages.
        QTest::addRow("unknown model")
            << QStringList{"--model", "llama"}
            << "meshscope: unknown model 'llama'; known: qwen3-30b-a3b, qwen3-235b-a22b, deepseek-v3, mixtral-8x7b, "
               "qwen3.5-35b-a3b";
        QTest::addRow("unknown hardware") << QStringList{"--model", "deepseek-v3", "--hardware", "x100"}
                                          << "meshscope: unknown hardware 'x100'; known: a100, h100, h200, b200, gb200";
        QTest::addRow("unknown network") << QStringList{"--network", "edr"}
                                         << "meshscope: unknown network 'edr'; known: ndr, hdr";
        QTest::addRow("dp and world") << QStringList{"--dp", "8", "--world", "8"}
                                      << "meshscope: give one of --dp, --world and --nodes";
        QTest::addRow("world and nodes") << QStringList{"--world", "16", "--nodes", "2"}
                                         << "meshscope: give one of --dp, --world and --nodes";
        QTest::addRow("connect without a scheme")
            << QStringList{"--connect", "localhost:7077"}
            << "meshscope: --connect expects an http:// or https:// URL with a host, got 'localhost:7077'";
        QTest::addRow("token alone") << QStringList{"--token", "t"} << "meshscope: --token needs --connect";
        QTest::addRow("size not WxH") << QStringList{"--size", "big"}
                                      << "meshscope: --size must be WxH between 640x480 and 8192x8192, got 'big'";
        QTest::addRow("size too small") << QStringList{"--size", "320x200"}
                                        << "meshscope: --size must be WxH between 640x480 and 8192x8192, got '320x200'";
        QTest::addRow("screenshot without a name")
            << QStringList{"--screenshot", ""} << "meshscope: --screenshot needs a file name";
        // The teaching mode: the shipped tours (resources/tours, in docs/tours.md's order) and their steps.
        QTest::addRow("unknown tour") << QStringList{"--tour", "nope"}
                                      << "meshscope: unknown tour 'nope'; the tours are mesh-basics, expert-mesh, "
                                         "creation-order, singleton-pitfall, live-job, read-a-hang, peers";
        QTest::addRow("step past the tour")
            << QStringList{"--tour", "peers", "--step", "7"}
            << "meshscope: --step 7 is outside the tour 'peers', whose steps are 1 to 6";
        QTest::addRow("step 0") << QStringList{"--tour", "peers", "--step", "0"}
                                << "meshscope: --step 0 is outside the tour 'peers', whose steps are 1 to 6";
        QTest::addRow("step without a tour") << QStringList{"--step", "2"} << "meshscope: --step needs --tour";
        QTest::addRow("step not an integer")
            << QStringList{"--tour", "peers", "--step", "two"} << "meshscope: --step expects an integer, got 'two'";
        // Judged against the plan, once the application exists (offscreen: a screenshot).
        QTest::addRow("rank outside") << QStringList{"--screenshot", "/tmp/x.png", "--dp", "16", "--select-rank", "16"}
                                      << "meshscope: --select-rank 16 is outside the plan's 16 ranks";
        QTest::addRow("dim not in the mesh")
            << QStringList{"--screenshot", "/tmp/x.png", "--dp",       "16", "--ep", "8",
                           "--view",       "data",       "--show-dim", "ep"}
            << "meshscope: --show-dim 'ep' is not a dim of the data mesh";
    }
    void bad_flags_exit_2() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const CliResult run = run_meshscope(args);
        QCOMPARE(run.exit_code, 2);
        const QStringList lines = run.err.split(QLatin1Char('\n'));
        const qsizetype at = lines.indexOf(message);  // Qt may log a line before ours
        QVERIFY2(at >= 0, qPrintable(run.err));
        QCOMPARE(lines.value(at + 1), QStringLiteral("Run 'meshscope --help' for usage."));
        QVERIFY(run.out.isEmpty());
    }

    // A flag without its value: CLI11's own words, still exit 2 and the usage hint.
    void missing_value() {
        const CliResult run = run_meshscope({"--dp"});
        QCOMPARE(run.exit_code, 2);
        QVERIFY2(run.err.startsWith(QStringLiteral("meshscope: --dp")), qPrintable(run.err));
        QVERIFY(run.err.endsWith(QStringLiteral("Run 'meshscope --help' for usage.\n")));
    }

    // Help from the dashboard's own parser: every flag, exit 0.
    void help_lists_the_flags() {
        const CliResult run = run_meshscope({"--dp", "8", "--help"});
        QCOMPARE(run.exit_code, 0);
        for (const char* flag :
             {"--dp",       "--world",       "--nodes",      "--cp",    "--ep",       "--gpus-per-node",
              "--experts",  "--select-rank", "--order",      "--view",  "--show-dim", "--model",
              "--hardware", "--network",     "--screenshot", "--theme", "--size",     "--page",
              "--connect",  "--token",       "--tour",       "--step"})
            QVERIFY2(run.out.contains(QLatin1String(flag)), flag);
        QVERIFY(run.out.contains(QStringLiteral("torch29 or torch28")));  // core's names
    }
};

QTEST_GUILESS_MAIN(TestGuiFlags)
#include "tst_gui_flags.moc"
