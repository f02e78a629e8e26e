// `meshscope --tour NAME --step K --screenshot FILE` as a user runs it, one step of every shipped tour: the PNG
// shows the window on the step's page with the tour panel and the purple frame around the step's anchor
// (tour-highlight of core/src/monitor/palette.cpp, written out). The pictures stay in the temp folder to be looked at
// (tour-NAME.png).
#include <QDir>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "screenshot_run.h"

#include <set>

using test::count_colour;
using test::Run;
using test::run_meshscope;

class TestTourScreenshot : public QObject {
    Q_OBJECT

private slots:
    void renders_a_step_of_every_tour_data() {
        QTest::addColumn<QString>("tour");
        QTest::addColumn<int>("step");
        QTest::addColumn<QString>("theme");
        // One step with an anchor of each tour (resources/tours/NAME.json).
        QTest::addRow("mesh-basics") << "mesh-basics" << 6 << "light";
        QTest::addRow("expert-mesh") << "expert-mesh" << 3 << "light";
        QTest::addRow("creation-order") << "creation-order" << 2 << "dark";
        QTest::addRow("singleton-pitfall") << "singleton-pitfall" << 5 << "light";
        QTest::addRow("live-job") << "live-job" << 2 << "light";
        QTest::addRow("read-a-hang") << "read-a-hang" << 2 << "light";
        QTest::addRow("peers") << "peers" << 2 << "light";
    }
    void renders_a_step_of_every_tour() {
        QFETCH(QString, tour);
        QFETCH(int, step);
        QFETCH(QString, theme);
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("tour.png"));
        const Run run = run_meshscope({QStringLiteral("--tour"), tour, QStringLiteral("--step"), QString::number(step),
                                       QStringLiteral("--theme"), theme, QStringLiteral("--screenshot"), file});
        QVERIFY2(run.status == 0, qPrintable(run.err));
        const QImage image(file);
        QVERIFY(!image.isNull());
        QCOMPARE(image.size(), QSize(1440, 900));
        std::set<QRgb> colours;
        for (int y = 0; y < image.height(); y += 3)
            for (int x = 0; x < image.width(); x += 3) colours.insert(image.pixel(x, y));
        QVERIFY2(colours.size() > 50, qPrintable(QString::number(colours.size())));
        // The frame around the step's anchor: 3 px of tour-highlight around an item of at least 100 x 40.
        const QRgb highlight = theme == QLatin1String("dark") ? qRgb(0xD2, 0xA8, 0xFF) : qRgb(0x82, 0x50, 0xDF);
        QVERIFY2(count_colour(image, highlight) > 600, qPrintable(QString::number(count_colour(image, highlight))));
        QVERIFY(image.save(QStringLiteral("%1/tour-%2.png").arg(QDir::tempPath(), tour)));  // to look at
    }
};

QTEST_GUILESS_MAIN(TestTourScreenshot)
#include "tst_tour_screenshot.moc"
