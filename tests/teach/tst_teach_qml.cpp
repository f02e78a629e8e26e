// Qt Quick Test runner for the teaching mode: a QApplication, the Fusion style the app uses, and the static
// QML modules imported (the views, the planner's, the Live page's and the teaching mode's types).
#include <QtQml/qqmlextensionplugin.h>
#include <QApplication>
#include <QQmlEngine>
#include <QQuickStyle>
#include <QtQuickTest>

Q_IMPORT_QML_PLUGIN(MeshScopeStylePlugin)
Q_IMPORT_QML_PLUGIN(MeshScopePlannerPlugin)
Q_IMPORT_QML_PLUGIN(MeshScopeLivePlugin)
Q_IMPORT_QML_PLUGIN(MeshScopeTeachPlugin)
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
    return quick_test_main_with_setup(argc, argv, "teach", QUICK_TEST_SOURCE_DIR, &setup);
}

#include "tst_teach_qml.moc"
