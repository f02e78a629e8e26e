// The Qt Quick Test runner of every QML test (meshscope_add_quick_test in tests/CMakeLists.txt): a QApplication
// as the app has, the Fusion style the app uses, and the static QML modules the test names imported
// (quick_test_plugins.h, written for each test by the CMake function).
#include <QtQml/qqmlextensionplugin.h>
#include <QApplication>
#include <QQmlEngine>
#include <QQuickStyle>
#include <QtQuickTest>

#include "quick_test_plugins.h"

class Setup : public QObject {
    Q_OBJECT

public slots:
    void qmlEngineAvailable(QQmlEngine* engine) { engine->addImportPath(QStringLiteral("qrc:/qt/qml")); }
};

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QQuickStyle::setStyle(QStringLiteral("Fusion"));
    Setup setup;
    return quick_test_main_with_setup(argc, argv, QUICK_TEST_NAME, QUICK_TEST_SOURCE_DIR, &setup);
}

#include "quick_test_main.moc"
