// `meshscope --screenshot` as a user runs it: the PNG shows the window with node colours and the selected
// rank's groups; bad flags exit 2 with a clear message.
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "screenshot_run.h"

#include <set>

using test::count_colour;
using test::Run;
// The planner renders no live job: 45 s is its bound.
inline Run run_meshscope(const QStringList& args) {
    return test::run_meshscope(args, 45000);
}

class TestScreenshot : public QObject {
    Q_OBJECT

private slots:
    void renders_a_known_plan_data() {
        QTest::addColumn<QString>("theme");
        QTest::addColumn<QRgb>("node0");
        QTest::addColumn<QRgb>("node1");
        QTest::addColumn<QRgb>("selection");
        // The palette table's grid-node-0, grid-node-1 and selection (core/src/monitor/palette.cpp), written out.
        QTest::addRow("light") << "light" << qRgb(0xE3, 0xEE, 0xFB) << qRgb(0xFC, 0xEB, 0xD9) << qRgb(0x21, 0x21, 0x21);
        QTest::addRow("dark") << "dark" << qRgb(0x23, 0x3A, 0x55) << qRgb(0x4A, 0x36, 0x22) << qRgb(0xFA, 0xFA, 0xFA);
    }

    void renders_a_known_plan() {
        QFETCH(QString, theme);
        QFETCH(QRgb, node0);
        QFETCH(QRgb, node1);
        QFETCH(QRgb, selection);
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("shot.png"));
        const Run run =
            run_meshscope({QStringLiteral("--screenshot"), file, QStringLiteral("--dp"), QStringLiteral("16"),
                           QStringLiteral("--cp"), QStringLiteral("1"), QStringLiteral("--ep"), QStringLiteral("8"),
                           QStringLiteral("--gpus-per-node"), QStringLiteral("8"), QStringLiteral("--select-rank"),
                           QStringLiteral("13"), QStringLiteral("--theme"), theme});
        QVERIFY2(run.status == 0, qPrintable(run.err));
        const QImage image(file);
        QVERIFY(!image.isNull());
        QCOMPARE(image.size(), QSize(1440, 900));
        // Not blank: a real window has many colours.
        std::set<QRgb> colours;
        for (int y = 0; y < image.height(); y += 3)
            for (int x = 0; x < image.width(); x += 3) colours.insert(image.pixel(x, y));
        QVERIFY2(colours.size() > 50, qPrintable(QString::number(colours.size())));
        // Node 0 and node 1 cells are both there.
        QVERIFY(count_colour(image, node0) > 2000);
        QVERIFY(count_colour(image, node1) > 2000);
        // The selected rank and its groups: the ep frame (orange) and the efsdp rings (purple).
        QVERIFY(count_colour(image, selection) > 1000);
        QVERIFY(count_colour(image, qRgb(0xF5, 0x7C, 0x00)) > 300);
        QVERIFY(count_colour(image, qRgb(0x8E, 0x24, 0xAA)) > 100);
    }

    // LlamaFactory's model mesh drawn: (2, 8) on 16 ranks, rank 13 selected; its mp_shard group [8..15] framed in
    // teal and its mp_replicate group [5, 13] ringed in brown (ui/planner/dim_style.cpp, written out).
    void renders_the_model_mesh() {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("model.png"));
        const Run run = run_meshscope({QStringLiteral("--screenshot"), file, QStringLiteral("--dp"),
                                       QStringLiteral("16"), QStringLiteral("--ep"), QStringLiteral("8"),
                                       QStringLiteral("--mp-replicate"), QStringLiteral("2"), QStringLiteral("--view"),
                                       QStringLiteral("model"), QStringLiteral("--select-rank"), QStringLiteral("13")});
        QVERIFY2(run.status == 0, qPrintable(run.err));
        const QImage image(file);
        QVERIFY(!image.isNull());
        QVERIFY(count_colour(image, qRgb(0x00, 0x89, 0x7B)) > 300);
        QVERIFY(count_colour(image, qRgb(0x6D, 0x4C, 0x41)) > 50);
        QVERIFY(image.save(QStringLiteral("%1/planner-model-mesh.png").arg(QDir::tempPath())));  // to look at
    }

    // The Cost panel for the question, Qwen3-30B-A3B on 64 H200s, ep 8: the memory bar's optimizer and
    // activation segments and the communication bars of dp and efsdp, whose groups cross nodes, in the palette's
    // colours (memory-optimizer, memory-activations, comm-inter-node of core/src/monitor/palette.cpp, written out).
    // Without a model none of them is drawn.
    void renders_the_cost_panel_data() {
        QTest::addColumn<QString>("theme");
        QTest::addColumn<QRgb>("optimizer");
        QTest::addColumn<QRgb>("activations");
        QTest::addColumn<QRgb>("inter_node");
        QTest::addRow("light") << "light" << qRgb(0xE1, 0x57, 0x59) << qRgb(0x59, 0xA1, 0x4F) << qRgb(0xD9, 0x76, 0x3A);
        QTest::addRow("dark") << "dark" << qRgb(0xE8, 0x68, 0x6A) << qRgb(0x62, 0xB2, 0x57) << qRgb(0xE5, 0x8A, 0x4F);
    }
    void renders_the_cost_panel() {
        QFETCH(QString, theme);
        QFETCH(QRgb, optimizer);
        QFETCH(QRgb, activations);
        QFETCH(QRgb, inter_node);
        QTemporaryDir dir;
        const QStringList plan{
            QStringLiteral("--world"),    QStringLiteral("64"),   QStringLiteral("--ep"),    QStringLiteral("8"),
            QStringLiteral("--hardware"), QStringLiteral("h200"), QStringLiteral("--theme"), theme};
        const QString with = dir.filePath(QStringLiteral("cost.png"));
        const QString without = dir.filePath(QStringLiteral("none.png"));
        Run run = run_meshscope(QStringList{QStringLiteral("--screenshot"), with, QStringLiteral("--model"),
                                            QStringLiteral("qwen3-30b-a3b")} +
                                plan);
        QVERIFY2(run.status == 0, qPrintable(run.err));
        run = run_meshscope(QStringList{QStringLiteral("--screenshot"), without} + plan);
        QVERIFY2(run.status == 0, qPrintable(run.err));
        const QImage cost(with);
        const QImage none(without);
        QVERIFY(count_colour(cost, optimizer) > 200);
        QVERIFY(count_colour(cost, activations) > 1000);
        QVERIFY(count_colour(cost, inter_node) > 1500);
        for (const QRgb colour : {optimizer, activations, inter_node}) QCOMPARE(count_colour(none, colour), 0);
    }

    // At 16,384 ranks the fitted grid is too small for rank numbers and labels only every k-th block, so the
    // selection carries a chip ("5000 · efsdp 312") in the selection colour: hundreds of pixels more than
    // the few the tiny cell itself adds.
    void small_zoom_labels_the_selection() {
        QTemporaryDir dir;
        const QStringList plan{QStringLiteral("--page"), QStringLiteral("planner"), QStringLiteral("--world"),
                               QStringLiteral("16384"),  QStringLiteral("--ep"),    QStringLiteral("8"),
                               QStringLiteral("--cp"),   QStringLiteral("2")};
        const QString with = dir.filePath(QStringLiteral("with.png"));
        const QString without = dir.filePath(QStringLiteral("without.png"));
        Run run = run_meshscope(
            QStringList{QStringLiteral("--screenshot"), with, QStringLiteral("--select-rank"), QStringLiteral("5000")} +
            plan);
        QVERIFY2(run.status == 0, qPrintable(run.err));
        run = run_meshscope(QStringList{QStringLiteral("--screenshot"), without} + plan);
        QVERIFY2(run.status == 0, qPrintable(run.err));
        const QRgb selection = qRgb(0x21, 0x21, 0x21);
        const int added = count_colour(QImage(with), selection) - count_colour(QImage(without), selection);
        QVERIFY2(added > 600, qPrintable(QString::number(added)));
    }

    void bad_flags_exit_2_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::addRow("unknown flag") << QStringList{QStringLiteral("--bogus")} << "meshscope: Unknown option 'bogus'.";
        QTest::addRow("not a number") << QStringList{QStringLiteral("--ep"), QStringLiteral("x")}
                                      << "meshscope: --ep expects an integer, got 'x'";
        QTest::addRow("bad theme") << QStringList{QStringLiteral("--theme"), QStringLiteral("blue")}
                                   << "meshscope: --theme must be light or dark, got 'blue'";
        QTest::addRow("bad view") << QStringList{QStringLiteral("--view"), QStringLiteral("tensor")}
                                  << "meshscope: --view must be expert or data or model, got 'tensor'";
        QTest::addRow("two sizes") << QStringList{QStringLiteral("--dp"), QStringLiteral("8"),
                                                  QStringLiteral("--world"), QStringLiteral("8")}
                                   << "meshscope: give one of --dp, --world and --nodes";
        QTest::addRow("rank outside") << QStringList{QStringLiteral("--screenshot"),  QStringLiteral("/tmp/x.png"),
                                                     QStringLiteral("--dp"),          QStringLiteral("16"),
                                                     QStringLiteral("--select-rank"), QStringLiteral("16")}
                                      << "meshscope: --select-rank 16 is outside the plan's 16 ranks";
    }

    void bad_flags_exit_2() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Run run = run_meshscope(args);
        QCOMPARE(run.status, 2);
        QVERIFY2(run.err.contains(message), qPrintable(run.err));  // Qt may log a line before ours
    }
};

QTEST_GUILESS_MAIN(TestScreenshot)
#include "tst_screenshot.moc"
