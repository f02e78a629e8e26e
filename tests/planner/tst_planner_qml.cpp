// Qt Quick Test runner for the planner views: a QApplication (the dashboard's Live page will need one for
// Charts), the Fusion style the app uses, and the static QML modules imported.
#include <QtQml/qqmlextensionplugin.h>
#include <QApplication>
#include <QQmlEngine>
#include <QQuickStyle>
#include <QtQuickTest>

Q_IMPORT_QML_PLUGIN(MeshScopeStylePlugin)
Q_IMPORT_QML_PLUGIN(MeshScopePlannerPlugin)
Q_IMPORT_QML_PLUGIN(MeshScopePlugin)

class Setup : public QObject {
    Q_OBJECT

public slots:
    void qmlEngineAvailable(QQmlEngine* engine) { engine->addImportPath(QStringLiteral("qrc:/qt/qml")); }
};

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QQuickStyle::setStyle(QStringLiteral("Fusion"));
    Setup setup;
    return quick_test_main_with_setup(argc, argv, "planner", QUICK_TEST_SOURCE_DIR, &setup);
}

#include "tst_planner_qml.moc"
