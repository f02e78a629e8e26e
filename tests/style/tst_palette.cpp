// The palette table reaches QML (MeshPalette), the painters (GridPalette, LivePalette) and CSS with the same
// colour. Expected colours are written out here by hand, not read from the table.
#include <QtQml/qqmlextensionplugin.h>
#include <QQmlComponent>
#include <QQmlEngine>
#include <QtTest>

#include <memory>
#include <set>
#include <string>

#include "dim_style.h"
#include "grid_painter.h"
#include "meshscope/monitor/palette.h"
#include "palette.h"
#include "state_style.h"

Q_IMPORT_QML_PLUGIN(MeshScopeStylePlugin)

using namespace meshscope;
using namespace meshscope::ui;

namespace {
// A property of the MeshPalette singleton as QML sees it: `expression` is evaluated in a QtObject.
QColor qml_colour(const QString& expression) {
    QQmlEngine engine;
    engine.addImportPath(QStringLiteral("qrc:/qt/qml"));  // where the static modules keep their qmldir
    QQmlComponent component(&engine);
    component.setData(QStringLiteral("import QtQuick\nimport MeshScope.Style\n"
                                     "QtObject { readonly property color value: %1 }")
                          .arg(expression)
                          .toUtf8(),
                      QUrl());
    const std::unique_ptr<QObject> object(component.create());
    if (!object) {
        qWarning() << component.errors();
        return {};
    }
    return object->property("value").value<QColor>();
}

bool css_declares(ColourScheme scheme, const std::string& declaration) {
    return palette_css_properties(scheme).find("  " + declaration + "\n") != std::string::npos;
}
}  // namespace

class TestPalette : public QObject {
    Q_OBJECT

private slots:
    // One Live state colour: the QML singleton, the Live grid's painter and the CSS agree.
    void state_ready_everywhere_data() {
        QTest::addColumn<bool>("dark");
        QTest::addColumn<QString>("expected");
        QTest::addRow("light") << false << QStringLiteral("#5cb176");
        QTest::addRow("dark") << true << QStringLiteral("#3f9a5c");
    }
    void state_ready_everywhere() {
        QFETCH(bool, dark);
        QFETCH(QString, expected);
        const ColourScheme scheme = dark ? ColourScheme::dark : ColourScheme::light;
        const QString set = dark ? QStringLiteral("MeshPalette.dark") : QStringLiteral("MeshPalette.light");
        QCOMPARE(qml_colour(set + QStringLiteral(".stateColors[2]")), QColor(expected));  // ready
        QCOMPARE(LivePalette::of(scheme).ready, QColor(expected));
        QCOMPARE(LivePalette::of(scheme).state(meshscope::RankStateKind::ready), QColor(expected));
        QVERIFY(css_declares(scheme, "--ms-state-ready: " + expected.toStdString() + ";"));
    }

    // One planner colour: the selected cell (painter and exports) is the colour QML's legend shows.
    void selection_everywhere_data() {
        QTest::addColumn<bool>("dark");
        QTest::addColumn<QString>("expected");
        QTest::addRow("light") << false << QStringLiteral("#212121");
        QTest::addRow("dark") << true << QStringLiteral("#fafafa");
    }
    void selection_everywhere() {
        QFETCH(bool, dark);
        QFETCH(QString, expected);
        const ColourScheme scheme = dark ? ColourScheme::dark : ColourScheme::light;
        const QString set = dark ? QStringLiteral("MeshPalette.dark") : QStringLiteral("MeshPalette.light");
        QCOMPARE(qml_colour(set + QStringLiteral(".selection")), QColor(expected));
        QCOMPARE(GridPalette::of(scheme).selection_fill, QColor(expected));
        QVERIFY(css_declares(scheme, "--ms-selection: " + expected.toStdString() + ";"));
    }

    // The planner's group highlights: the painter's dim colour is the CSS one, the same in both themes.
    void dim_highlights_data() {
        QTest::addColumn<QString>("dim");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<QString>("css_name");
        QTest::addRow("ep") << QStringLiteral("ep") << QStringLiteral("#f57c00") << QStringLiteral("dim-ep");
        QTest::addRow("dp") << QStringLiteral("dp") << QStringLiteral("#d81b60") << QStringLiteral("dim-dp");
        QTest::addRow("cp") << QStringLiteral("cp") << QStringLiteral("#039be5") << QStringLiteral("dim-cp");
        QTest::addRow("expert_cp") << QStringLiteral("expert_cp") << QStringLiteral("#039be5")
                                   << QStringLiteral("dim-cp");
        QTest::addRow("efsdp") << QStringLiteral("efsdp") << QStringLiteral("#8e24aa") << QStringLiteral("dim-efsdp");
        QTest::addRow("edp") << QStringLiteral("edp") << QStringLiteral("#43a047") << QStringLiteral("dim-edp");
        QTest::addRow("mp_shard") << QStringLiteral("mp_shard") << QStringLiteral("#00897b")
                                  << QStringLiteral("dim-mp-shard");
        QTest::addRow("mp_replicate") << QStringLiteral("mp_replicate") << QStringLiteral("#6d4c41")
                                      << QStringLiteral("dim-mp-replicate");
        QTest::addRow("any other") << QStringLiteral("tp") << QStringLiteral("#757575") << QStringLiteral("dim-other");
    }
    void dim_highlights() {
        QFETCH(QString, dim);
        QFETCH(QString, expected);
        QFETCH(QString, css_name);
        QCOMPARE(dim_style(dim.toStdString()).color, QColor(expected));
        for (const ColourScheme scheme : {ColourScheme::light, ColourScheme::dark})
            QVERIFY(css_declares(scheme, "--ms-" + css_name.toStdString() + ": " + expected.toStdString() + ";"));
    }

    // The planner's Cost panel: a memory part's colour reaches QML at its part's index (CostMemoryModel's `part`,
    // ui/planner's MemoryPart order), the two links as their own properties, and the CSS the same.
    void cost_panel_colours_data() {
        QTest::addColumn<QString>("qml");  // the property of a scheme's PaletteColors
        QTest::addColumn<QString>("css_name");
        QTest::addColumn<QString>("light");
        QTest::addColumn<QString>("dark");
        QTest::addRow("parameters") << "memoryColors[0]"
                                    << "memory-params"
                                    << "#4e79a7"
                                    << "#5b8ac0";
        QTest::addRow("gradients") << "memoryColors[1]"
                                   << "memory-grads"
                                   << "#f28e2b"
                                   << "#f28e2b";
        QTest::addRow("optimizer") << "memoryColors[2]"
                                   << "memory-optimizer"
                                   << "#e15759"
                                   << "#e8686a";
        QTest::addRow("activations") << "memoryColors[3]"
                                     << "memory-activations"
                                     << "#59a14f"
                                     << "#62b257";
        QTest::addRow("all-to-all") << "memoryColors[4]"
                                    << "memory-all-to-all"
                                    << "#b07aa1"
                                    << "#c08bb1";
        QTest::addRow("FSDP buffers") << "memoryColors[5]"
                                      << "memory-fsdp-buffers"
                                      << "#d4b32f"
                                      << "#edc948";
        QTest::addRow("inside a node") << "commIntraNode"
                                       << "comm-intra-node"
                                       << "#3d8fb8"
                                       << "#4fa3cc";
        QTest::addRow("between nodes") << "commInterNode"
                                       << "comm-inter-node"
                                       << "#d9763a"
                                       << "#e58a4f";
    }
    void cost_panel_colours() {
        QFETCH(QString, qml);
        QFETCH(QString, css_name);
        QFETCH(QString, light);
        QFETCH(QString, dark);
        QCOMPARE(qml_colour(QStringLiteral("MeshPalette.light.") + qml), QColor(light));
        QCOMPARE(qml_colour(QStringLiteral("MeshPalette.dark.") + qml), QColor(dark));
        QVERIFY(css_declares(ColourScheme::light, "--ms-" + css_name.toStdString() + ": " + light.toStdString() + ";"));
        QVERIFY(css_declares(ColourScheme::dark, "--ms-" + css_name.toStdString() + ": " + dark.toStdString() + ";"));
    }

    // The teaching mode: the frame around a tour step's anchor and a right answer, in QML and CSS alike.
    void teaching_colours_data() {
        QTest::addColumn<QString>("qml");
        QTest::addColumn<QString>("css_name");
        QTest::addColumn<QString>("light");
        QTest::addColumn<QString>("dark");
        QTest::addRow("highlight") << "tourHighlight"
                                   << "tour-highlight"
                                   << "#8250df"
                                   << "#d2a8ff";
        QTest::addRow("success") << "success"
                                 << "success"
                                 << "#1a7f37"
                                 << "#3fb950";
        QTest::addRow("success background") << "successBackground"
                                            << "success-background"
                                            << "#dafbe1"
                                            << "#1b3a24";
    }
    void teaching_colours() { cost_panel_colours(); }

    // The hang map on the Live page: QML's properties and standingColor(standing, dim), the grid's painter
    // (LivePalette) and CSS agree on each standing's colour.
    void hang_map_colours_data() {
        QTest::addColumn<QString>("qml");
        QTest::addColumn<QString>("css_name");
        QTest::addColumn<QString>("light");
        QTest::addColumn<QString>("dark");
        QTest::addRow("outside collectives") << "standingOutsideCollectives"
                                             << "standing-outside-collectives"
                                             << "#b8c7d3"
                                             << "#52606c";
        QTest::addRow("no record") << "standingNoRecord"
                                   << "standing-no-record"
                                   << "#2d2d2d"
                                   << "#0d0d0d";
        QTest::addRow("root cause") << "rootCause"
                                    << "root-cause"
                                    << "#d32f2f"
                                    << "#ff5252";
        QTest::addRow("waiting in ep") << "standingColor('waiting', 'ep')"
                                       << "dim-ep"
                                       << "#f57c00"
                                       << "#f57c00";
        QTest::addRow("waiting in dp") << "standingColor('waiting', 'dp')"
                                       << "dim-dp"
                                       << "#d81b60"
                                       << "#d81b60";
        QTest::addRow("waiting in the default group") << "standingColor('waiting', 'world')"
                                                      << "dim-other"
                                                      << "#757575"
                                                      << "#757575";
        QTest::addRow("no record by name") << "standingColor('no_record', '')"
                                           << "standing-no-record"
                                           << "#2d2d2d"
                                           << "#0d0d0d";
        QTest::addRow("dead") << "standingColor('dead', '')"
                              << "state-failed"
                              << "#d9463e"
                              << "#e5534b";
    }
    void hang_map_colours() { cost_panel_colours(); }

    void hang_map_painter() {
        QCOMPARE(LivePalette::light().standing(HangStanding::waiting, "ep"), QColor("#f57c00"));
        QCOMPARE(LivePalette::light().standing(HangStanding::no_record, ""), QColor("#2d2d2d"));
        QCOMPARE(LivePalette::dark().standing(HangStanding::no_record, ""), QColor("#0d0d0d"));
        QCOMPARE(LivePalette::dark().standing(HangStanding::outside_collectives, "dp"), QColor("#52606c"));
        QCOMPARE(LivePalette::light().standing(HangStanding::dead, ""), QColor("#d9463e"));
        QCOMPARE(LivePalette::light().root_cause, QColor("#d32f2f"));
        QCOMPARE(LivePalette::dark().root_cause, QColor("#ff5252"));
    }

    // Both grids sit on one background, the window's panels on another.
    void shared_colours() {
        QCOMPARE(GridPalette::light().background, QColor("#fafafa"));
        QCOMPARE(LivePalette::light().background, QColor("#fafafa"));
        QCOMPARE(qml_colour(QStringLiteral("MeshPalette.light.gridBackground")), QColor("#fafafa"));
        QCOMPARE(GridPalette::dark().background, QColor("#1e1f22"));
        QCOMPARE(LivePalette::dark().background, QColor("#1e1f22"));
        QCOMPARE(qml_colour(QStringLiteral("MeshPalette.dark.gridBackground")), QColor("#1e1f22"));
        QCOMPARE(qml_colour(QStringLiteral("MeshPalette.dark.window")), QColor("#1b1c1f"));
        QCOMPARE(GridPalette::dark().node_fills[1], QColor("#4a3622"));
        QCOMPARE(GridPalette::light().group_fills[7], QColor("#d7ccc8"));
    }

    void stylesheet() {
        const std::string css = palette_stylesheet();
        QVERIFY(css.starts_with(":root {\n  --ms-window: #f3f4f6;\n"));
        QVERIFY(css.find(":root[data-theme=\"dark\"] {\n  --ms-window: #1b1c1f;\n") != std::string::npos);
        QVERIFY(css.ends_with("  --ms-success-background: #1b3a24;\n}\n"));
        QCOMPARE(css_hex(0x0969da), std::string("#0969da"));
        QCOMPARE(css_hex(0x000000), std::string("#000000"));
    }

    // One entry per colour, each a distinct CSS name made of lower-case letters, digits and dashes.
    void table_is_complete() {
        QCOMPARE(palette_table().size(), colour_count);
        std::set<std::string_view> names;
        for (const PaletteEntry& e : palette_table()) {
            QVERIFY2(names.insert(e.name).second, e.name.data());
            for (const char c : e.name) QVERIFY((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-');
            QCOMPARE(to_string(e.colour), e.name);
        }
        QCOMPARE(to_string(state_colour(meshscope::RankStateKind::failed)), std::string_view("state-failed"));
        QCOMPARE(to_string(grid_node_colour(7)), std::string_view("grid-node-1"));
        QCOMPARE(to_string(grid_group_colour(8)), std::string_view("grid-group-0"));
        QCOMPARE(to_string(memory_part_colour(5)), std::string_view("memory-fsdp-buffers"));
    }
};

QTEST_MAIN(TestPalette)
#include "tst_palette.moc"
