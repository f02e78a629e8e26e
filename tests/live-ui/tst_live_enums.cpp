// Core's enums as QML sees them (RankState, Phase in MeshScope.Live): QML reads the values core uses, and
// every name the page shows is core's to_string. Expected names and values are written out by hand.
#include <QtQml/qqmlextensionplugin.h>
#include <QMetaEnum>
#include <QQmlComponent>
#include <QQmlEngine>
#include <QtTest>

#include <memory>

#include "live_enums.h"
#include "live_view.h"

Q_IMPORT_QML_PLUGIN(MeshScopeLivePlugin)

using namespace meshscope;
using namespace meshscope::ui;

namespace {
// An integer expression evaluated by QML with MeshScope.Live imported; -100 when it does not evaluate.
int qml_int(const QString& expression) {
    QQmlEngine engine;
    engine.addImportPath(QStringLiteral("qrc:/qt/qml"));  // where the static modules keep their qmldir
    QQmlComponent component(&engine);
    component.setData(
        QStringLiteral("import QtQuick\nimport MeshScope.Live\nQtObject { readonly property int value: %1 }")
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

class TestLiveEnums : public QObject {
    Q_OBJECT

private slots:
    void rank_states_data() {
        QTest::addColumn<QString>("key");  // as QML writes it: RankState.<key>
        QTest::addColumn<int>("value");
        QTest::addColumn<QString>("name");  // the API's
        QTest::addRow("pending") << "Pending" << 0 << "pending";
        QTest::addRow("initializing") << "Initializing" << 1 << "initializing";
        QTest::addRow("ready") << "Ready" << 2 << "ready";
        QTest::addRow("failed") << "Failed" << 3 << "failed";
        QTest::addRow("stale") << "Stale" << 4 << "stale";
        QTest::addRow("exited") << "Exited" << 5 << "exited";
    }
    void rank_states() {
        QFETCH(QString, key);
        QFETCH(int, value);
        QFETCH(QString, name);
        QCOMPARE(qml_int(QStringLiteral("RankState.") + key), value);
        const auto kind = rank_state_named(name);
        QVERIFY(kind);
        QCOMPARE(static_cast<int>(*kind), value);
        QCOMPARE(name_of(*kind), name);
        QCOMPARE(rank_state_of(value), kind);
        QCOMPARE(rank_state_names().value(value), name);
        QCOMPARE(LiveView().stateNames().value(value), name);
    }

    void phases_data() {
        QTest::addColumn<QString>("key");  // Phase.<key>
        QTest::addColumn<int>("value");
        QTest::addColumn<QString>("name");
        QTest::addRow("launch") << "Launch" << 0 << "launch";
        QTest::addRow("process_group") << "ProcessGroup" << 1 << "process_group";
        QTest::addRow("device_mesh") << "DeviceMesh" << 2 << "device_mesh";
        QTest::addRow("parallel_state") << "ParallelState" << 3 << "parallel_state";
        QTest::addRow("communicator") << "Communicator" << 4 << "communicator";
        QTest::addRow("ready") << "Ready" << 5 << "ready";
        QTest::addRow("heartbeat") << "Heartbeat" << 6 << "heartbeat";
        QTest::addRow("error") << "Error" << 7 << "error";
        QTest::addRow("exit") << "Exit" << 8 << "exit";
    }
    void phases() {
        QFETCH(QString, key);
        QFETCH(int, value);
        QFETCH(QString, name);
        QCOMPARE(qml_int(QStringLiteral("Phase.") + key), value);
        const auto phase = phase_named(name);
        QVERIFY(phase);
        QCOMPARE(static_cast<int>(*phase), value);
        QCOMPARE(name_of(*phase), name);
        QCOMPARE(phase_index(name), value);
    }

    // The QML enums have exactly core's kinds: none missing, none extra.
    void every_kind_once() {
        QCOMPARE(QMetaEnum::fromType<RankStateQml::Kind>().keyCount(), static_cast<int>(rank_state_kind_count));
        QCOMPARE(QMetaEnum::fromType<PhaseQml::Kind>().keyCount(), static_cast<int>(phase_count));
        QCOMPARE(rank_state_names().size(), static_cast<qsizetype>(rank_state_kind_count));
    }

    void unknown_names() {
        QVERIFY(!rank_state_named(QStringLiteral("Ready")));  // the API's names are lower case
        QVERIFY(!rank_state_named(QString()));
        QVERIFY(!phase_named(QStringLiteral("device-mesh")));
        QCOMPARE(phase_index(QStringLiteral("nonsense")), -1);
        QVERIFY(!rank_state_of(-1));  // the filters' "any state"
        QVERIFY(!rank_state_of(6));
    }
};

QTEST_MAIN(TestLiveEnums)
#include "tst_live_enums.moc"
