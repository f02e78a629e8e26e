// `meshscope ARGS...` run as a user runs it (MESHSCOPE_EXECUTABLE, a compile definition of each CLI test): its exit
// status, stdout and stderr. A run that does not end within 60 s, or ends by a crash, gives exit_code -1: a crash
// is never a valid answer.
#pragma once

#include <QProcess>
#include <QString>
#include <QStringList>

struct CliResult {
    int exit_code = -1;
    QString out, err;
};

inline CliResult run_meshscope(const QStringList& args) {
    QProcess process;
    process.start(QStringLiteral(MESHSCOPE_EXECUTABLE), args);
    if (!process.waitForFinished(60000)) {
        process.kill();
        process.waitForFinished();
        return {};
    }
    if (process.exitStatus() != QProcess::NormalExit) return {};
    return {process.exitCode(), QString::fromUtf8(process.readAllStandardOutput()),
            QString::fromUtf8(process.readAllStandardError())};
}
