// Linked into every Qt test of the dashboard: a QML warning (a binding error, a failed component, a polish
// loop) or any Qt critical makes the test process fail, even when every assertion passed. Such messages are
// bugs a user would see on the terminal; a test that only looks at pixels or properties would miss them.
// QTest::qFail records the failure against the test function that is running; a message logged outside any
// test function (start-up, tear-down) fails the process at exit instead.
#include <QtGlobal>
#include <QtTest/QTest>

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace {
QtMessageHandler previous = nullptr;
std::atomic<int> offending{0};

bool is_offending(QtMsgType type, const QMessageLogContext& context, const QString& message) {
    if (type == QtCriticalMsg || type == QtFatalMsg) return true;
    if (type != QtWarningMsg) return false;
    const QByteArray category = context.category ? QByteArray(context.category) : QByteArray();
    return category.startsWith("qml") || category.startsWith("js") || category.startsWith("qt.qml") ||
           message.contains(QLatin1String(".qml:")) || message.contains(QLatin1String("QQmlComponent")) ||
           message.contains(QLatin1String("Polish loop")) || message.contains(QLatin1String("Binding loop"));
}

void handler(QtMsgType type, const QMessageLogContext& context, const QString& message) {
    if (previous) previous(type, context, message);
    if (!is_offending(type, context, message)) return;
    ++offending;
    if (QTest::currentTestFunction()) {
        const QByteArray text = "Qt logged: " + message.toUtf8();
        QTest::qFail(text.constData(), context.file ? context.file : __FILE__, context.file ? context.line : __LINE__);
    }
}

struct ExitGuard {
    ~ExitGuard() {
        if (offending.load() == 0) return;
        std::fprintf(stderr,
                     "FAIL: %d QML warning(s) or Qt critical(s) were logged (tests/support/fail_on_qt_warnings.cpp)\n",
                     offending.load());
        std::_Exit(1);
    }
} exit_guard;

void install() {
    previous = qInstallMessageHandler(handler);
}
}  // namespace

Q_CONSTRUCTOR_FUNCTION(install)
