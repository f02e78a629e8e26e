// meshscope (no sub-command): the dashboard window, or with --screenshot a PNG of it rendered offscreen.
#include <QtQml/qqmlextensionplugin.h>
#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QQmlApplicationEngine>
#include <QQuickStyle>
#include <QQuickWindow>
#include <QSettings>
#include <QTimer>

#include <iostream>
#include <optional>

#include "commands.h"
#include "live_session.h"
#include "live_startup.h"
#include "plan_controller.h"
#include "preferences.h"

// The QML modules are static libraries: their plugins must be imported by hand.
Q_IMPORT_QML_PLUGIN(MeshScopeStylePlugin)
Q_IMPORT_QML_PLUGIN(MeshScopePlannerPlugin)
Q_IMPORT_QML_PLUGIN(MeshScopePlugin)
Q_IMPORT_QML_PLUGIN(MeshScopeLivePlugin)

namespace meshscope::app {

namespace {
using ui::PlanController;
using ui::Preferences;

struct GuiOptions {
    std::optional<QString> screenshot;
    std::optional<int> dp, world, nodes, cp, ep, mp_replicate, gpus_per_node, experts, select_rank;
    std::optional<QString> order, view, show_dim, theme;
    QString connect, token, page = QStringLiteral("planner");  // live mode (issue 4)
    QSize size{1440, 900};
};

void fail(const QString& message) {
    std::cerr << "meshscope: " << message.toStdString() << "\nRun 'meshscope --help' for usage.\n";
}

// Parses the flags before any QGuiApplication exists, because --screenshot picks the offscreen platform.
// Returns the exit status when the process should stop (help or a bad flag).
std::optional<int> parse(int argc, char** argv, GuiOptions& out) {
    QStringList args;
    for (int i = 0; i < argc; ++i) args << QString::fromLocal8Bit(argv[i]);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Opens the MeshScope dashboard on the Planner page. Flags preset the plan; --screenshot renders the "
        "window offscreen to a PNG and exits."));
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption help({QStringLiteral("h"), QStringLiteral("help")}, QStringLiteral("Show this help."));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                        QStringLiteral("Render the window to a PNG file and exit."),
                                        QStringLiteral("FILE"));
    const auto int_option = [](const char* name, const char* what) {
        return QCommandLineOption(QString::fromLatin1(name), QString::fromLatin1(what), QStringLiteral("N"));
    };
    const QCommandLineOption dp = int_option("dp", "Data-parallel size (world = dp * cp).");
    const QCommandLineOption world = int_option("world", "World size instead of --dp or --nodes.");
    const QCommandLineOption nodes = int_option("nodes", "Number of nodes (world = nodes * gpus per node).");
    const QCommandLineOption cp = int_option("cp", "Context-parallel size.");
    const QCommandLineOption ep = int_option("ep", "Expert-parallel size (dist_config ep_size).");
    const QCommandLineOption mp_replicate = int_option("mp-replicate", "LlamaFactory's model mesh: mp_replicate_size.");
    const QCommandLineOption gpus = int_option("gpus-per-node", "GPUs per node.");
    const QCommandLineOption experts = int_option("experts", "The model's number of routed experts.");
    const QCommandLineOption select = int_option("select-rank", "Select this rank.");
    const QCommandLineOption order(QStringLiteral("order"), QStringLiteral("torch29 or torch28."),
                                   QStringLiteral("ORDER"));
    const QCommandLineOption view(QStringLiteral("view"), QStringLiteral("expert, data or model: the mesh drawn."),
                                  QStringLiteral("MESH"));
    const QCommandLineOption show_dim(QStringLiteral("show-dim"),
                                      QStringLiteral("Draw all groups of this dim (ep, efsdp, dp, ...)."),
                                      QStringLiteral("DIM"));
    const QCommandLineOption theme(QStringLiteral("theme"), QStringLiteral("light or dark."), QStringLiteral("THEME"));
    const QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size for --screenshot, WxH."),
                                  QStringLiteral("WxH"));
    parser.addOptions({help, screenshot, dp, world, nodes, cp, ep, mp_replicate, gpus, experts, select, order, view,
                       show_dim, theme, size});
    // Live mode: without --connect the Live page watches the built-in demo (an embedded collector + a
    // simulated 64-GPU job); --page picks the page the window opens on (and the one --screenshot shows).
    const QCommandLineOption connect(QStringLiteral("connect"),
                                     QStringLiteral("Watch a remote `meshscope serve` at URL instead of the demo."),
                                     QStringLiteral("URL"));
    const QCommandLineOption token(QStringLiteral("token"), QStringLiteral("Bearer token for --connect."),
                                   QStringLiteral("T"));
    const QCommandLineOption page(
        QStringLiteral("page"),
        QStringLiteral("planner or live: the page to open (default live; planner with plan flags or --screenshot)."),
        QStringLiteral("PAGE"));
    parser.addOptions({connect, token, page});
    if (!parser.parse(args)) {
        fail(parser.errorText());
        return exit_usage;
    }
    if (parser.isSet(help)) {
        std::cout << "usage: meshscope [options]\n       meshscope <command> [options]   (meshscope help)\n\n"
                  << parser.helpText().section(QLatin1Char('\n'), 2).toStdString();
        return exit_ok;
    }
    if (!parser.positionalArguments().isEmpty()) {
        fail(QStringLiteral("unknown command '%1'").arg(parser.positionalArguments().first()));
        return exit_usage;
    }
    if (parser.isSet(dp) && (parser.isSet(world) || parser.isSet(nodes))) {
        fail(QStringLiteral("give one of --dp, --world and --nodes"));
        return exit_usage;
    }
    if (parser.isSet(world) && parser.isSet(nodes)) {
        fail(QStringLiteral("give one of --dp, --world and --nodes"));
        return exit_usage;
    }
    const std::pair<const QCommandLineOption*, std::optional<int>*> ints[] = {{&dp, &out.dp},
                                                                              {&world, &out.world},
                                                                              {&nodes, &out.nodes},
                                                                              {&cp, &out.cp},
                                                                              {&ep, &out.ep},
                                                                              {&gpus, &out.gpus_per_node},
                                                                              {&experts, &out.experts},
                                                                              {&select, &out.select_rank},
                                                                              {&mp_replicate, &out.mp_replicate}};
    for (const auto& [option, value] : ints) {
        if (!parser.isSet(*option)) continue;
        bool ok = false;
        const QString text = parser.value(*option);
        const int v = text.toInt(&ok);
        if (!ok) {
            fail(QStringLiteral("--%1 expects an integer, got '%2'").arg(option->names().first(), text));
            return exit_usage;
        }
        *value = v;
    }
    const auto choice = [&](const QCommandLineOption& option, QStringList allowed,
                            std::optional<QString>& value) -> bool {
        if (!parser.isSet(option)) return true;
        value = parser.value(option);
        if (allowed.contains(*value)) return true;
        fail(QStringLiteral("--%1 must be %2, got '%3'")
                 .arg(option.names().first(), allowed.join(QStringLiteral(" or ")), *value));
        return false;
    };
    if (!choice(order, ui::PlanForm::orderNames(), out.order) ||  // core's names
        !choice(view, {QStringLiteral("expert"), QStringLiteral("data"), QStringLiteral("model")}, out.view) ||
        !choice(theme, {QStringLiteral("light"), QStringLiteral("dark")}, out.theme))
        return exit_usage;
    if (parser.isSet(show_dim)) out.show_dim = parser.value(show_dim);
    std::optional<QString> page_choice;
    if (!choice(page, {QStringLiteral("planner"), QStringLiteral("live")}, page_choice)) return exit_usage;
    // A new user lands on the live demo; plan flags or a bare --screenshot open the Planner as before.
    const bool plan_flags = out.dp || out.world || out.nodes || out.cp || out.ep || out.mp_replicate ||
                            out.gpus_per_node || out.experts || out.select_rank || out.order || out.view ||
                            out.show_dim;
    const bool planner_default = !parser.isSet(connect) && (plan_flags || parser.isSet(screenshot));
    out.page = page_choice.value_or(planner_default ? QStringLiteral("planner") : QStringLiteral("live"));
    out.connect = parser.value(connect);
    out.token = parser.value(token);
    if (parser.isSet(connect)) {
        if (const QString error = ui::check_connect_url(out.connect); !error.isEmpty()) {
            fail(error);
            return exit_usage;
        }
    }
    if (parser.isSet(token) && !parser.isSet(connect)) {
        fail(QStringLiteral("--token needs --connect"));
        return exit_usage;
    }
    if (parser.isSet(size)) {
        const QStringList wh = parser.value(size).split(QLatin1Char('x'));
        const int w = wh.size() == 2 ? wh[0].toInt() : 0, h = wh.size() == 2 ? wh[1].toInt() : 0;
        if (w < 640 || h < 480 || w > 8192 || h > 8192) {
            fail(QStringLiteral("--size must be WxH between 640x480 and 8192x8192, got '%1'").arg(parser.value(size)));
            return exit_usage;
        }
        out.size = QSize(w, h);
    }
    if (parser.isSet(screenshot)) {
        out.screenshot = parser.value(screenshot);
        if (out.screenshot->isEmpty()) {
            fail(QStringLiteral("--screenshot needs a file name"));
            return exit_usage;
        }
    }
    return std::nullopt;
}

// Flags win over the remembered plan; each setter is judged by the core as if typed.
void apply(const GuiOptions& o, PlanController& controller, Preferences& preferences) {
    ui::PlanForm& form = *controller.form();
    if (o.gpus_per_node) form.setGpusPerNode(*o.gpus_per_node);
    if (o.cp) form.setCp(*o.cp);
    if (o.ep) form.setEp(*o.ep);
    if (o.mp_replicate) form.setMpReplicate(*o.mp_replicate);
    if (o.dp || o.world) {
        form.setUseWorld(true);
        form.setWorld(o.world ? *o.world : *o.dp * form.cp());
    } else if (o.nodes) {
        form.setUseWorld(false);
        form.setNodes(*o.nodes);
    }
    if (o.experts) form.setExperts(*o.experts);
    if (o.order) form.setOrder(static_cast<int>(ui::creation_order_named(*o.order).value()));
    if (o.view) controller.view()->setViewMesh(static_cast<int>(ui::grid_mesh_named(*o.view).value()));
    if (o.show_dim) controller.view()->setShownDim(*o.show_dim);
    if (o.select_rank) controller.selection()->setSelectedRank(*o.select_rank);
    if (o.theme) preferences.setDarkTheme(*o.theme == QLatin1String("dark"));
}
}  // namespace

int run_gui(int argc, char** argv) {
    QElapsedTimer started;
    started.start();
    GuiOptions options;
    if (const auto status = parse(argc, argv, options)) return *status;
    if (options.screenshot && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");

    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("MeshScope"));
    QApplication::setApplicationName(QStringLiteral("meshscope"));
    QQuickStyle::setStyle(QStringLiteral("Fusion"));

    PlanController controller;
    Preferences preferences;
    // A screenshot shows exactly what its flags say: it neither reads nor writes the remembered state.
    const bool remember = !options.screenshot;
    QSettings settings;
    if (remember) {
        controller.restore(settings);
        preferences.setDarkTheme(settings.value(QStringLiteral("ui/theme")).toString() == QLatin1String("dark"));
    }
    apply(options, controller, preferences);
    if (options.select_rank && controller.selection()->selectedRank() != *options.select_rank) {
        fail(QStringLiteral("--select-rank %1 is outside the plan's %2 ranks")
                 .arg(*options.select_rank)
                 .arg(controller.view()->planWorld()));
        return exit_usage;
    }
    if (options.show_dim && controller.view()->shownDim() != *options.show_dim) {
        fail(QStringLiteral("--show-dim '%1' is not a dim of the %2 mesh")
                 .arg(*options.show_dim, ui::name_of(controller.view()->drawn_mesh())));
        return exit_usage;
    }
    if (!controller.form()->valid())
        std::cerr << "meshscope: " << controller.form()->errorText().toStdString()
                  << "\n(the window shows this message and the last valid plan)\n";

    // Live mode: one LiveSession, fed by a remote collector or the embedded demo. A planner screenshot
    // starts no demo.
    ui::LiveSession live;
    const bool live_page = options.page == QLatin1String("live");
    const ui::LiveStartup startup =
        ui::start_live(live, options.connect, options.token, !options.screenshot || live_page);
    if (!startup.error.isEmpty())
        std::cerr << "meshscope: the live demo did not start: " << startup.error.toStdString() << "\n";

    QQmlApplicationEngine engine;
    engine.addImportPath(QStringLiteral("qrc:/qt/qml"));
    QObject::connect(
        &engine, &QQmlApplicationEngine::objectCreationFailed, &app, [] { QCoreApplication::exit(exit_failure); },
        Qt::QueuedConnection);
    engine.setInitialProperties({{QStringLiteral("controller"), QVariant::fromValue(&controller)},
                                 {QStringLiteral("preferences"), QVariant::fromValue(&preferences)},
                                 {QStringLiteral("liveSession"), QVariant::fromValue(&live)},
                                 {QStringLiteral("initialPage"), options.page}});
    engine.load(QUrl(QStringLiteral("qrc:/qt/qml/MeshScope/Main.qml")));
    auto* window = engine.rootObjects().isEmpty() ? nullptr : qobject_cast<QQuickWindow*>(engine.rootObjects().first());
    if (window == nullptr) {
        std::cerr << "meshscope: the dashboard window could not be created\n";
        return exit_failure;
    }

    const bool timing = qEnvironmentVariableIsSet("MESHSCOPE_TIMING");
    QObject::connect(
        window, &QQuickWindow::frameSwapped, &app,
        [&started, timing] {
            if (timing) std::cerr << "meshscope: first frame after " << started.elapsed() << " ms\n";
        },
        Qt::SingleShotConnection);

    if (options.screenshot) {
        window->resize(options.size);
        int status = exit_failure;
        QObject::connect(
            window, &QQuickWindow::frameSwapped, &app,
            [&] {
                // One more turn of the event loop lets layouts settle before the grab renders the scene; the
                // Live page first waits (bounded) until the job has reported.
                ui::when_live_settled(live, startup.demo.get(), live_page ? 20000 : 0, &app, [&] {
                    QTimer::singleShot(50, &app, [&] {
                        const QImage image = window->grabWindow();
                        if (image.isNull() || !image.save(*options.screenshot, "PNG")) {
                            std::cerr << "meshscope: could not write " << options.screenshot->toStdString() << "\n";
                            status = exit_failure;
                        } else {
                            status = exit_ok;
                        }
                        QCoreApplication::quit();
                    });
                });
            },
            Qt::SingleShotConnection);
        QTimer::singleShot(30000, &app, [] {
            std::cerr << "meshscope: the window did not render within 30 s\n";
            QCoreApplication::quit();
        });
        window->show();
        app.exec();
        return status;
    }

    if (const QRect geometry = settings.value(QStringLiteral("window/geometry")).toRect(); geometry.isValid())
        window->setGeometry(geometry);
    QObject::connect(&app, &QCoreApplication::aboutToQuit, &app, [&] {
        settings.setValue(QStringLiteral("window/geometry"), window->geometry());
        settings.setValue(QStringLiteral("ui/theme"),
                          preferences.darkTheme() ? QStringLiteral("dark") : QStringLiteral("light"));
        controller.save(settings);
    });
    window->show();
    return app.exec();
}

}  // namespace meshscope::app
