// The planner's enums as QML sees them (CreationOrder, MeshView, PlanInput in MeshScope.Planner): QML reads
// the values C++ uses, and the names are core's to_string. Expected names and values are written by hand.
#include <QtQml/qqmlextensionplugin.h>
#include <QQmlComponent>
#include <QQmlEngine>
#include <QtTest>

#include <memory>

#include "plan_controller.h"
#include "planner_enums.h"

Q_IMPORT_QML_PLUGIN(MeshScopePlannerPlugin)

using namespace meshscope;
using namespace meshscope::ui;

namespace {
// An integer expression evaluated by QML with MeshScope.Planner imported; -100 when it does not evaluate.
int qml_int(const QString& expression) {
    QQmlEngine engine;
    engine.addImportPath(QStringLiteral("qrc:/qt/qml"));  // where the static modules keep their qmldir
    QQmlComponent component(&engine);
    component.setData(
        QStringLiteral("import QtQuick\nimport MeshScope.Planner\nQtObject { readonly property int value: %1 }")
            .arg(expression)
            .toUtf8(),
        QUrl());
    const std::unique_ptr<QObject> object(component.create());
    if (!object) {
        qWarning() << component.errors();
        return -100;
    }
    return object->property("value").toInt();
}
}  // namespace

class TestPlannerEnums : public QObject {
    Q_OBJECT

private slots:
    void creation_orders_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<int>("value");
        QTest::addColumn<QString>("name");
        QTest::addRow("torch29") << "Torch29" << 0 << "torch29";
        QTest::addRow("torch28") << "Torch28" << 1 << "torch28";
    }
    void creation_orders() {
        QFETCH(QString, key);
        QFETCH(int, value);
        QFETCH(QString, name);
        QCOMPARE(qml_int(QStringLiteral("CreationOrder.") + key), value);
        const auto order = creation_order_named(name);
        QVERIFY(order);
        QCOMPARE(static_cast<int>(*order), value);
        QCOMPARE(name_of(*order), name);
        QVERIFY(creation_order_of(value) == order);
        QCOMPARE(meshscope::ui::PlanForm::orderNames().value(value), name);
        PlanController c;
        c.form()->setOrder(value);
        QCOMPARE(c.form()->order(), value);
        QCOMPARE(c.plan()->order(), *order);
    }

    void mesh_views_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<int>("value");
        QTest::addColumn<QString>("name");
        QTest::addRow("expert") << "Expert" << 0 << "expert";
        QTest::addRow("data") << "Data" << 1 << "data";
        QTest::addRow("model") << "Model" << 2 << "model";
    }
    void mesh_views() {
        QFETCH(QString, key);
        QFETCH(int, value);
        QFETCH(QString, name);
        QCOMPARE(qml_int(QStringLiteral("MeshView.") + key), value);
        const auto mesh = grid_mesh_named(name);
        QVERIFY(mesh);
        QCOMPARE(static_cast<int>(*mesh), value);
        QCOMPARE(name_of(*mesh), name);
        QVERIFY(grid_mesh_of(value) == mesh);
    }

    void plan_inputs_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<int>("value");
        QTest::addColumn<QString>("name");  // the form's property
        QTest::addRow("none") << "None" << -1 << "";
        QTest::addRow("nodes") << "Nodes" << 0 << "nodes";
        QTest::addRow("world") << "World" << 1 << "world";
        QTest::addRow("gpus per node") << "GpusPerNode" << 2 << "gpusPerNode";
        QTest::addRow("cp") << "Cp" << 3 << "cp";
        QTest::addRow("ep") << "Ep" << 4 << "ep";
        QTest::addRow("mp_replicate") << "MpReplicate" << 5 << "mpReplicate";
        QTest::addRow("mp_shard") << "MpShard" << 6 << "mpShard";
    }
    void plan_inputs() {
        QFETCH(QString, key);
        QFETCH(int, value);
        QFETCH(QString, name);
        QCOMPARE(qml_int(QStringLiteral("PlanInput.") + key), value);
        QCOMPARE(name_of(static_cast<PlanInput>(value)), name);
        // Every input the error can name is a property of the form, so QML can bind to it by name.
        if (!name.isEmpty()) QVERIFY(meshscope::ui::PlanForm::staticMetaObject.indexOfProperty(name.toLatin1()) >= 0);
    }

    void unknown_names() {
        QVERIFY(!creation_order_named(QStringLiteral("torch27")));
        QVERIFY(!creation_order_of(2));
        QVERIFY(!grid_mesh_named(QStringLiteral("Expert")));
        QVERIFY(!grid_mesh_of(-1));
    }
};

QTEST_MAIN(TestPlannerEnums)
#include "tst_planner_enums.moc"
