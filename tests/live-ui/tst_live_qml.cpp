// Qt Quick Test runner for the Live page: a QApplication, the Fusion style the app uses, and the static
// QML modules imported (the views, MeshScope.Live, and MeshScope.LiveTest's real collector for tests).
#include <QtQml/qqmlextensionplugin.h>
#include <QApplication>
#include <QQmlEngine>
#include <QQuickStyle>
#include <QtQuickTest>

Q_IMPORT_QML_PLUGIN(MeshScopeStylePlugin)
Q_IMPORT_QML_PLUGIN(MeshScopePlannerPlugin)
Q_IMPORT_QML_PLUGIN(MeshScopeLivePlugin)
Q_IMPORT_QML_PLUGIN(MeshScopePlugin)
Q_IMPORT_QML_PLUGIN(MeshScopeLiveTestPlugin)

class Setup : public QObject {
    Q_OBJECT

public slots:
    void qmlEngineAvailable(QQmlEngine* engine) { engine->addImportPath(QStringLiteral("qrc:/qt/qml")); }
};

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QQuickStyle::setStyle(QStringLiteral("Fusion"));
    Setup setup;
    return quick_test_main_with_setup(argc, argv, "live", QUICK_TEST_SOURCE_DIR, &setup);
}

#include "tst_live_qml.moc"
