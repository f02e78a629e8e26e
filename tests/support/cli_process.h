// `meshscope ARGS...` run as a user runs it (MESHSCOPE_EXECUTABLE, a compile definition of each CLI test): its exit
// status, stdout and stderr (UTF-8). A run that does not end within timeout_ms, or ends by a crash, gives exit_code
// -1: a crash is never a valid answer. Every test of tests/cli runs the binary through this one function.
#pragma once

#include <QProcess>
#include <QString>
#include <QStringList>

struct CliResult {
    int exit_code = -1;
    QString out, err;
};

inline CliResult run_meshscope(const QStringList& args, int timeout_ms = 60000) {
    QProcess process;
    process.start(QStringLiteral(MESHSCOPE_EXECUTABLE), args);
    if (!process.waitForFinished(timeout_ms)) {
        process.kill();
        process.waitForFinished();
        return {};
    }
    if (process.exitStatus() != QProcess::NormalExit) return {};
    return {process.exitCode(), QString::fromUtf8(process.readAllStandardOutput()),
            QString::fromUtf8(process.readAllStandardError())};
}
