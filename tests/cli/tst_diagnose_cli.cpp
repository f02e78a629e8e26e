// meshscope diagnose through QProcess, like a user: the fixtures' faults found (tests/records/make_*.py say what
// was injected), gzip read like plain text, JSON (meshscope.diagnosis/1), a bad file named while the rest is read,
// and for bad input exit status 2 with the exact message on stderr.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "cli_process.h"

namespace {
using Result = CliResult;

Result run(const QStringList& args) {
    return run_meshscope(QStringList{"diagnose"} + args);
}

const QString fixtures = QStringLiteral(RECORDS_FIXTURES);
}  // namespace

class DiagnoseCliTest : public QObject {
    Q_OBJECT
private slots:
    void flight_recorder_text() {
        const auto r = run({fixtures + "/fr/skip/json", "--dp", "8", "--ep", "4"});
        QCOMPARE(r.exit_code, 0);
        QCOMPARE(r.err, QString());
        QVERIFY2(r.out.startsWith("diagnosis: 8 ranks, plan (dp, cp, ep) = (8, 1, 4)\n"), qPrintable(r.out));
        QVERIFY2(r.out.contains("  the ep group 1 [4, 5, 6, 7] is stuck at seq 2 (all_reduce): rank 6 never entered\n"),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains("  every efsdp group (4) reached seq 2\n"), qPrintable(r.out));
        QVERIFY2(r.out.contains("/fr/skip/json/nccl_trace_rank_6.json"), qPrintable(r.out));
    }

    void gzip_log_and_json() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QProcess gzip;
        gzip.setStandardOutputFile(dir.filePath("mpirun.log.gz"));
        gzip.start("gzip", {"-c", fixtures + "/nccl-logs/v2.26-mpirun.log"});
        QVERIFY(gzip.waitForFinished(30000));
        QCOMPARE(gzip.exitCode(), 0);
        const auto r = run({dir.path(), "--dp", "8", "--ep", "4", "--format", "json"});
        QCOMPARE(r.exit_code, 0);
        const auto doc = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(doc["schema"].toString(), QString("meshscope.diagnosis/1"));
        const auto findings = doc["findings"].toArray();
        QCOMPARE(findings.size(), 2);  // the verdict (rank 6, which never started the split), then the finding
        QCOMPARE(findings[0].toObject()["id"].toString(), QString("verdict/6"));
        QCOMPARE(findings[1].toObject()["id"].toString(), QString("communicator_not_formed/ep/1"));
        QCOMPARE(findings[1].toObject()["ranks"].toArray(), (QJsonArray{6}));
        QVERIFY(findings[1].toObject()["sources"].toArray()[0].toString().endsWith("mpirun.log.gz:62"));
    }

    void proposes_without_plan() {
        const auto r = run({fixtures + "/fr/healthy/json"});
        QCOMPARE(r.exit_code, 0);
        QVERIFY2(r.out.startsWith("diagnosis: 8 ranks, proposed layout (dp, cp, ep) = (8, 1, 4)\n"), qPrintable(r.out));
    }

    // A corrupt dump among good ones: named on stderr and in the report, the others still read.
    void bad_file_named() {
        QTemporaryDir dir;
        QFile bad(dir.filePath("nccl_trace_rank_9"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write(
            QByteArray("\x80\x02"
                       "cos\nsystem\n.",
                       14));
        bad.close();
        const auto r = run({fixtures + "/ras/status.json", bad.fileName(), "--dp", "8", "--ep", "4"});
        QCOMPARE(r.exit_code, 0);
        const QString problem = bad.fileName() +
                                " at byte 2: opcode 0x63 ('c') names or calls Python code; a Flight Recorder dump "
                                "never does, so it is refused";
        QCOMPARE(r.err, "meshscope diagnose: " + problem + "\n");
        QVERIFY2(r.out.contains("\nnot read (1):\n  " + problem + "\n"), qPrintable(r.out));
        QVERIFY2(r.out.contains("peer_unreachable: rank 6 (node1 pid 41006) is dead"), qPrintable(r.out));
    }

    // `ncclras -v` saved to a file: found by its first line, read as RAS's text status; one cut short is named.
    void ras_text_file() {
        const auto r = run({fixtures + "/ras/status.txt", "--dp", "8", "--ep", "4"});
        QCOMPARE(r.exit_code, 0);
        QCOMPARE(r.err, QString());
        QVERIFY2(r.out.contains("  collective_stuck: the ep group 1 [4, 5, 6, 7] communicator: rank 7 launched 56 "
                                "AllReduce, 2 unnamed ranks launched 57; rank 7 is behind (NCCL RAS)\n"),
                 qPrintable(r.out));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QFile in(fixtures + "/ras/status.txt");
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray text = in.readAll();
        QFile cut(dir.filePath("ras.txt"));
        QVERIFY(cut.open(QIODevice::WriteOnly));
        cut.write(text.left(text.indexOf("Warnings")));
        cut.close();
        const auto c = run({cut.fileName()});
        QCOMPARE(c.exit_code, 2);
        QVERIFY2(c.err.startsWith("meshscope diagnose: " + cut.fileName() +
                                  ": ends before its Warnings section (40 lines): the status was cut short\n"),
                 qPrintable(c.err));
    }

    void bad_input_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("err");
        QTest::addRow("no path") << QStringList{}
                                 << "meshscope diagnose: paths is required\n"
                                    "hint: meshscope diagnose PATH... [--plan FILE | --dp D [--cp C] [--ep E]] "
                                    "[--format text|json] [--trace FILE]\n";
        QTest::addRow("plan and dp") << QStringList{"x", "--plan", "p.json", "--dp", "8"}
                                     << "meshscope diagnose: --plan excludes --dp\n"
                                        "hint: meshscope diagnose PATH... [--plan FILE | --dp D [--cp C] [--ep E]] "
                                        "[--format text|json] [--trace FILE]\n";
        QTest::addRow("ep does not divide dp") << QStringList{"x", "--dp", "16", "--ep", "3"}
                                               << "dp_size must be divisible by ep_size, got 16 % 3 != 0.\n"
                                                  "hint: ep must divide dp = 16; valid ep: 1, 2, 4, 8, 16\n";
        QTest::addRow("dp not a number") << QStringList{"x", "--dp", "eight"}
                                         << "meshscope diagnose: --dp expects an integer, got 'eight'.\n"
                                            "hint: meshscope diagnose PATH... [--plan FILE | --dp D [--cp C] [--ep E]] "
                                            "[--format text|json] [--trace FILE]\n";
        QTest::addRow("nothing there")
            << QStringList{"/nonexistent/records"}
            << "meshscope diagnose: /nonexistent/records: no such file or directory\n"
               "meshscope diagnose: no NCCL init line, Flight Recorder dump or RAS status found in 1 path\n"
               "hint: give NCCL_DEBUG=INFO logs, TORCH_FR_DUMP_TEMP_FILE dumps or `ncclras -f json` output\n";
        QTest::addRow("plan file missing") << QStringList{"x", "--plan", "/nonexistent/plan.json"}
                                           << "meshscope diagnose: /nonexistent/plan.json: cannot open the plan\n"
                                              "hint: meshscope diagnose PATH... [--plan FILE | --dp D [--cp C] [--ep "
                                              "E]] [--format text|json] [--trace FILE]\n";
    }
    void bad_input() {
        QFETCH(QStringList, args);
        const auto r = run(args);
        QCOMPARE(r.exit_code, 2);
        QTEST(r.err, "err");
        QCOMPARE(r.out, QString());
    }

    // A plan file is JSON from outside: 100,000 levels deep, it is refused at JSON's one depth bound.
    void deep_plan() {
        QTemporaryDir dir;
        QFile plan(dir.filePath("plan.json"));
        QVERIFY(plan.open(QIODevice::WriteOnly));
        plan.write("{\"topology\": " + QByteArray(100000, '[') + QByteArray(100000, ']') + "}");
        plan.close();
        const auto r = run({"x", "--plan", plan.fileName()});
        QCOMPARE(r.exit_code, 2);
        QCOMPARE(r.err, "meshscope diagnose: " + plan.fileName() +
                            ": invalid JSON: nested deeper than 64 levels\n"
                            "hint: meshscope diagnose PATH... [--plan FILE | --dp D [--cp C] [--ep E]] [--format "
                            "text|json] [--trace FILE]\n");
        QCOMPARE(r.out, QString());
    }
};

QTEST_APPLESS_MAIN(DiagnoseCliTest)
#include "tst_diagnose_cli.moc"
