// Helpers for the collector tests: the HTTP helpers of tests/support/http_test_support.h, and `meshscope serve`
// / `simulate` as real processes.
#pragma once

#include <functional>

#include <QByteArray>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QTcpSocket>
#include <QTest>
#include <QTimer>

#include <memory>

#include "http_test_support.h"

namespace test {

// `meshscope serve` on a free port; the port comes from its first stdout line.
class ServeProcess {
public:
    explicit ServeProcess(QStringList arguments) {
        process_.setProgram(MESHSCOPE_BIN);
        process_.setArguments(QStringList{"serve", "--listen", "127.0.0.1:0"} + arguments);
        process_.setProcessChannelMode(QProcess::SeparateChannels);
        process_.start();
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < 15000 && !process_.canReadLine()) {
            if (process_.state() == QProcess::NotRunning) break;
            process_.waitForReadyRead(100);
        }
        const auto line = QJsonDocument::fromJson(process_.readLine()).object();
        port_ = static_cast<quint16>(line.value("port").toInt());
        rebuilt_ = line.value("events_rebuilt").toInteger();
    }
    ~ServeProcess() { stop(); }
    void stop() {
        if (process_.state() == QProcess::NotRunning) return;
        process_.terminate();
        if (!process_.waitForFinished(10000)) {
            process_.kill();
            process_.waitForFinished(5000);
        }
    }
    void kill() {
        process_.kill();  // SIGKILL: no chance to flush anything
        process_.waitForFinished(5000);
    }
    [[nodiscard]] quint16 port() const { return port_; }
    [[nodiscard]] qint64 rebuilt() const { return rebuilt_; }
    [[nodiscard]] QString url() const { return QStringLiteral("http://127.0.0.1:%1").arg(port_); }
    [[nodiscard]] QByteArray errors() { return process_.readAllStandardError(); }

private:
    QProcess process_;
    quint16 port_ = 0;
    qint64 rebuilt_ = 0;
};

struct CommandResult {
    int exit_code = -1;
    QByteArray out;
    QByteArray err;
};

// meshscope ARGUMENTS, run in working_directory when one is given (so that the paths it names are the ones given).
inline CommandResult run_meshscope(const QStringList& arguments, int timeout_ms = 60000,
                                   const QString& working_directory = {}) {
    QProcess process;
    if (!working_directory.isEmpty()) process.setWorkingDirectory(working_directory);
    process.start(MESHSCOPE_BIN, arguments);
    CommandResult result;
    if (!process.waitForFinished(timeout_ms)) {
        process.kill();
        process.waitForFinished();
        result.err = "timed out";
        return result;
    }
    result.exit_code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    return result;
}

// Polls until `ready` holds or the time is up.
template <typename F>
bool eventually(F ready, int timeout_ms = 15000, int step_ms = 100) {
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < timeout_ms) {
        if (ready()) return true;
        QTest::qWait(step_ms);
    }
    return ready();
}

// run_meshscope while this thread's event loop keeps serving (a fake collector in the test, sockets to
// sample): polls the process every `step_ms`, calling `each_poll` (if any) each time.
inline CommandResult run_meshscope_serving(const QStringList& arguments, int timeout_ms = 60000,
                                           const std::function<void()>& each_poll = {}, int step_ms = 20) {
    QProcess process;
    process.start(MESHSCOPE_BIN, arguments);
    CommandResult result;
    const bool ended = eventually(
        [&] {
            if (each_poll) each_poll();
            return process.state() == QProcess::NotRunning;
        },
        timeout_ms, step_ms);
    if (!ended) {
        process.kill();
        process.waitForFinished();
        result.err = "timed out";
        return result;
    }
    result.exit_code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    return result;
}

}  // namespace test
