// `meshscope` run as a user runs it, for the screenshot tests (tests/planner, tests/teach): exit status and
// standard error, with a render that logged a QML warning counted as a failure. Needs MESHSCOPE_BINARY.
#pragma once

#include <QImage>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace test {
struct Run {
    int status = -1;
    QString err;
};

inline Run run_meshscope(const QStringList& args, int timeout_ms = 60000) {
    QProcess process;
    process.start(QStringLiteral(MESHSCOPE_BINARY), args);
    if (!process.waitForFinished(timeout_ms)) {
        process.kill();
        process.waitForFinished();
        return {};
    }
    Run run{process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardError())};
    // A render that logged a QML warning (binding error, polish loop, component not ready) is no success.
    for (const char* sign : {".qml:", "QQmlComponent", "Polish loop", "Binding loop"})
        if (run.status == 0 && run.err.contains(QLatin1String(sign))) {
            qWarning("meshscope logged: %s", qPrintable(run.err));
            run.status = -2;
        }
    return run;
}

inline int count_colour(const QImage& image, QRgb colour) {
    int n = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            if ((image.pixel(x, y) & 0xFFFFFF) == (colour & 0xFFFFFF)) ++n;
    return n;
}
}  // namespace test
