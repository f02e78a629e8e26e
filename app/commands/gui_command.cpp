// meshscope (no sub-command): the dashboard window, or with --screenshot a PNG of it rendered offscreen.
// The flags are CLI11's like every other command's, parsed before any QApplication exists (--screenshot
// picks the offscreen platform); run_gui is then a few named steps. Bad flags exit 2 with the exact
// messages of tests/cli/tst_gui_flags.cpp.
#include <QtQml/qqmlextensionplugin.h>
#include <CLI/CLI.hpp>
#include <QApplication>
#include <QElapsedTimer>
#include <QQmlApplicationEngine>
#include <QQuickStyle>
#include <QQuickWindow>
#include <QSettings>
#include <QTimer>

#include <algorithm>
#include <charconv>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "demo_startup.h"
#include "demo_tour_jobs.h"
#include "live_session.h"
#include "live_startup.h"
#include "meshscope/cost/cluster.h"
#include "meshscope/cost/cluster_profile.h"
#include "meshscope/cost/presets.h"
#include "plan_controller.h"
#include "planner_enums.h"
#include "preferences.h"
#include "tour_catalog.h"
#include "tour_controller.h"
#include "version.h"

// The QML modules are static libraries: their plugins must be imported by hand.
Q_IMPORT_QML_PLUGIN(MeshScopeStylePlugin)
Q_IMPORT_QML_PLUGIN(MeshScopePlannerPlugin)
Q_IMPORT_QML_PLUGIN(MeshScopePlugin)
Q_IMPORT_QML_PLUGIN(MeshScopeLivePlugin)
Q_IMPORT_QML_PLUGIN(MeshScopeTeachPlugin)

namespace meshscope::app {

namespace {
using ui::PlanController;
using ui::Preferences;

struct GuiOptions {
    std::optional<std::string> screenshot;
    std::optional<int> dp, world, nodes, cp, ep, mp_replicate, gpus_per_node, experts, select_rank;
    std::optional<std::string> order, view, show_dim, theme, page;
    std::optional<std::string> model, hardware, network;               // core's canonical names, checked by core
    std::optional<std::string> cluster_profile;                        // a file `meshscope calibrate` wrote
    std::shared_ptr<const cost::LoadedClusterProfile> loaded_profile;  // read by check()
    std::optional<std::string> connect, token, size;
    std::optional<std::string> place;  // the Live page keeps this place's ranks once the job has reported
    std::optional<std::string> tour;   // a guided tour, opened at --step (from 1)
    std::optional<int> step;
    QString tour_page;  // the page of that step (check() finds it)
    QSize window_size{1440, 900};

    [[nodiscard]] bool plan_flags() const {
        return dp || world || nodes || cp || ep || mp_replicate || gpus_per_node || experts || select_rank || order ||
               view || show_dim || model || hardware || network || cluster_profile;
    }
    // A new user lands on the live demo; plan flags or a bare --screenshot open the Planner.
    [[nodiscard]] QString start_page() const {
        if (!tour_page.isEmpty()) return tour_page;
        if (page) return QString::fromStdString(*page);
        return !connect && (plan_flags() || screenshot) ? QStringLiteral("planner") : QStringLiteral("live");
    }
};

void fail(const std::string& message) {
    std::cerr << "meshscope: " << message << "\nRun 'meshscope --help' for usage.\n";
}

std::string join_or(const std::vector<std::string>& names) {
    std::string text;
    for (const std::string& name : names) text += (text.empty() ? "" : " or ") + name;
    return text;
}

// An integer flag; its error text is MeshScope's ("--ep expects an integer, got 'x'"), thrown from CLI11's
// callback so that it reaches parse() as a CLI::ParseError of its own.
void add_int(CLI::App& cli, const std::string& name, std::optional<int>& out, const std::string& what) {
    cli.add_option_function<std::string>(
           name,
           [name, &out](const std::string& text) {
               int value = 0;
               const char* end = text.data() + text.size();
               const auto [stop, error] = std::from_chars(text.data(), end, value);
               if (error != std::errc() || stop != end || text.empty())
                   throw CLI::ValidationError(name + " expects an integer, got '" + text + "'");
               out = value;
           },
           what)
        ->type_name("N");
}

// A flag with a few allowed words ("--theme must be light or dark, got 'blue'").
void add_choice(CLI::App& cli, const std::string& name, std::optional<std::string>& out,
                const std::vector<std::string>& allowed, const std::string& what, const std::string& type) {
    cli.add_option_function<std::string>(
           name,
           [name, &out, allowed](const std::string& text) {
               if (std::find(allowed.begin(), allowed.end(), text) == allowed.end())
                   throw CLI::ValidationError(name + " must be " + join_or(allowed) + ", got '" + text + "'");
               out = text;
           },
           what + " (" + join_or(allowed) + ")")
        ->type_name(type);
}

void add_text(CLI::App& cli, const std::string& name, std::optional<std::string>& out, const std::string& what,
              const std::string& type) {
    cli.add_option_function<std::string>(
           name, [&out](const std::string& text) { out = text; }, what)
        ->type_name(type);
}

// A name core looks up (a model preset, hardware, a network): core's message when it knows no such name.
void add_core_name(CLI::App& cli, const std::string& name, std::optional<std::string>& out,
                   std::function<Expected<std::string>(const std::string&)> lookup, const std::string& what) {
    cli.add_option_function<std::string>(
           name,
           [&out, lookup](const std::string& text) {
               const Expected<std::string> canonical = lookup(text);
               if (!canonical) throw CLI::ValidationError(canonical.error().message());
               out = *canonical;
           },
           what)
        ->type_name("NAME");
}

// The Cost panel's model and cluster (docs/cost-model.md); the step's other inputs are typed in the window.
void add_cost_flags(CLI::App& cli, GuiOptions& o) {
    add_core_name(
        cli, "--model", o.model,
        [](const std::string& text) -> Expected<std::string> {
            auto model = cost::find_model_preset(text);
            if (!model) return model.error();
            return model->name;
        },
        "Price the plan for this model: qwen3-30b-a3b, qwen3-235b-a22b, deepseek-v3, mixtral-8x7b.");
    add_core_name(
        cli, "--hardware", o.hardware,
        [](const std::string& text) -> Expected<std::string> {
            auto cluster = cost::make_cluster(text, "ndr");
            if (!cluster) return cluster.error();
            return cluster->hardware;
        },
        "The GPU for the Cost panel: " + cost::hardware_names() + ".");
    add_core_name(
        cli, "--network", o.network,
        [](const std::string& text) -> Expected<std::string> {
            auto cluster = cost::make_cluster("h100", text);
            if (!cluster) return cluster.error();
            return cluster->network;
        },
        "The network between nodes for the Cost panel: ndr or hdr.");
    add_text(cli, "--cluster-profile", o.cluster_profile,
             "Price with the constants `meshscope calibrate` fitted on your cluster (its hardware and network unless "
             "given).",
             "FILE");
}

void add_plan_flags(CLI::App& cli, GuiOptions& o) {
    add_int(cli, "--dp", o.dp, "Data-parallel size (world = dp * cp).");
    add_int(cli, "--world", o.world, "World size instead of --dp or --nodes.");
    add_int(cli, "--nodes", o.nodes, "Number of nodes (world = nodes * gpus per node).");
    add_int(cli, "--cp", o.cp, "Context-parallel size.");
    add_int(cli, "--ep", o.ep, "Expert-parallel size (dist_config ep_size).");
    add_int(cli, "--mp-replicate", o.mp_replicate, "LlamaFactory's model mesh: mp_replicate_size.");
    add_int(cli, "--gpus-per-node", o.gpus_per_node, "GPUs per node.");
    add_int(cli, "--experts", o.experts, "The model's number of routed experts.");
    add_int(cli, "--select-rank", o.select_rank,
            "Select this rank (on the Planner; a --screenshot of the Live page also selects it there).");
    const auto names = [](auto... values) { return std::vector<std::string>{ui::name_of(values).toStdString()...}; };
    add_choice(cli, "--order", o.order, names(CreationOrder::torch29, CreationOrder::torch28),  // core's names
               "The order torch creates the groups in", "ORDER");
    add_choice(cli, "--view", o.view, names(ui::GridMesh::expert, ui::GridMesh::data, ui::GridMesh::model),
               "The mesh drawn", "MESH");
    add_text(cli, "--show-dim", o.show_dim, "Draw all groups of this dim (ep, efsdp, dp, ...).", "DIM");
}

void add_window_flags(CLI::App& cli, GuiOptions& o) {
    add_text(cli, "--screenshot", o.screenshot, "Render the window to a PNG file and exit.", "FILE");
    add_choice(cli, "--theme", o.theme, {"light", "dark"}, "The colours", "THEME");
    add_text(cli, "--size", o.size, "Window size for --screenshot, WxH.", "WxH");
    add_choice(cli, "--page", o.page, {"planner", "live"},
               "The page to open (default live; planner with plan flags or --screenshot)", "PAGE");
}

// Teaching mode: a tour opened at a step (docs/teaching.md).
void add_tour_flags(CLI::App& cli, GuiOptions& o) {
    add_text(cli, "--tour", o.tour,
             "Open this guided tour (" + ui::tour_names(ui::shipped_tour_catalog()).toStdString() + ").", "NAME");
    add_int(cli, "--step", o.step, "The tour's step to open, from 1 (default 1).");
}

// The tour and step must exist: "unknown tour 'x'; the tours are ..." or "--step 9 is outside ...".
std::string check_tour(GuiOptions& o) {
    if (o.step && !o.tour) return "--step needs --tour";
    if (!o.tour) return {};
    const ui::TourCatalog& catalog = ui::shipped_tour_catalog();
    const Tour* tour = ui::find_tour(catalog, QString::fromStdString(*o.tour));
    if (!tour) return "unknown tour '" + *o.tour + "'; the tours are " + ui::tour_names(catalog).toStdString();
    const int steps = static_cast<int>(tour->steps.size());
    const int step = o.step.value_or(1);
    if (step < 1 || step > steps)
        return "--step " + std::to_string(step) + " is outside the tour '" + *o.tour + "', whose steps are 1 to " +
               std::to_string(steps);
    const std::string_view page = to_string(tour->steps[static_cast<std::size_t>(step - 1)].page);
    o.tour_page = QString::fromUtf8(page.data(), static_cast<qsizetype>(page.size()));
    return {};
}

// Live mode: without --connect the Live page watches the built-in demo (an embedded collector + a simulated
// 64-GPU job).
void add_live_flags(CLI::App& cli, GuiOptions& o) {
    add_text(cli, "--connect", o.connect, "Watch a remote `meshscope serve` at URL instead of the demo.", "URL");
    add_text(cli, "--token", o.token, "Bearer token for --connect.", "T");
    add_text(cli, "--place", o.place,
             "The Live page keeps the ranks of this place of the job's hang (a place of its summary, as the "
             "legend writes it, or \"root cause\"), in the window or a --screenshot.",
             "PLACE");
}

// What CLI11 left over: an unknown flag or a word (a sub-command is dispatched before the dashboard starts).
std::optional<std::string> leftover_error(const std::vector<std::string>& remaining) {
    if (remaining.empty()) return std::nullopt;
    const std::string& first = remaining.front();
    if (first.size() > 1 && first.front() == '-')
        return "Unknown option '" + first.substr(first.find_first_not_of('-')) + "'.";
    return "unknown command '" + first + "'";
}

std::optional<QSize> window_size(const std::string& text) {
    const auto x = text.find('x');
    if (x == std::string::npos) return std::nullopt;
    int w = 0;
    int h = 0;
    const char* mid = text.data() + x;
    const char* end = text.data() + text.size();
    if (std::from_chars(text.data(), mid, w).ptr != mid || std::from_chars(mid + 1, end, h).ptr != end)
        return std::nullopt;
    if (w < 640 || h < 480 || w > 8192 || h > 8192) return std::nullopt;
    return QSize(w, h);
}

// The file of --cluster-profile, read once at start: the reader's exact message when it is no profile.
std::string read_cluster_profile(GuiOptions& o) {
    if (!o.cluster_profile) return {};
    auto loaded = cost::load_cluster_profile(*o.cluster_profile);
    if (!loaded) return loaded.error().message();
    o.loaded_profile = std::make_shared<const cost::LoadedClusterProfile>(
        cost::LoadedClusterProfile{*o.cluster_profile, std::move(loaded).value()});
    return {};
}

// The checks across flags, in the order a user meets them; "" when the flags agree.
std::string check(GuiOptions& o) {
    if ((o.dp ? 1 : 0) + (o.world ? 1 : 0) + (o.nodes ? 1 : 0) > 1) return "give one of --dp, --world and --nodes";
    if (o.connect)
        if (const QString error = ui::check_connect_url(QString::fromStdString(*o.connect)); !error.isEmpty())
            return error.toStdString();
    if (o.token && !o.connect) return "--token needs --connect";
    if (o.size) {
        const auto size = window_size(*o.size);
        if (!size) return "--size must be WxH between 640x480 and 8192x8192, got '" + *o.size + "'";
        o.window_size = *size;
    }
    if (o.screenshot && o.screenshot->empty()) return "--screenshot needs a file name";
    if (o.place && o.start_page() != QLatin1String("live")) return "--place needs the Live page";
    if (std::string error = check_tour(o); !error.empty()) return error;
    return read_cluster_profile(o);
}

// Returns the exit status when the process should stop (help or a bad flag).
std::optional<int> parse(int argc, char** argv, GuiOptions& out) {
    CLI::App cli{
        "Opens the MeshScope dashboard. Plan flags preset the Planner page; --screenshot renders the "
        "window offscreen to a PNG and exits.",
        "meshscope"};
    cli.footer("       meshscope <command> [options]   the headless commands (meshscope help)");
    cli.allow_extras();  // an unknown flag or word gets the message of leftover_error
    add_plan_flags(cli, out);
    add_cost_flags(cli, out);
    add_window_flags(cli, out);
    add_live_flags(cli, out);
    add_tour_flags(cli, out);
    cli.set_version_flag("--version,-V", version_line("meshscope-dashboard"));
    try {
        cli.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return cli.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return cli.exit(e);
    } catch (const CLI::ParseError& e) {
        fail(e.what());
        return exit_usage;
    }
    if (const auto error = leftover_error(cli.remaining())) {
        fail(*error);
        return exit_usage;
    }
    if (const std::string error = check(out); !error.empty()) {
        fail(error);
        return exit_usage;
    }
    return std::nullopt;
}

void set_up_application() {
    QApplication::setOrganizationName(QStringLiteral("MeshScope"));
    QApplication::setApplicationName(QStringLiteral("meshscope"));
    QQuickStyle::setStyle(QStringLiteral("Fusion"));
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
    if (o.order) form.setOrder(static_cast<int>(ui::creation_order_named(QString::fromStdString(*o.order)).value()));
    if (o.view)
        controller.view()->setViewMesh(static_cast<int>(ui::grid_mesh_named(QString::fromStdString(*o.view)).value()));
    if (o.show_dim) controller.view()->setShownDim(QString::fromStdString(*o.show_dim));
    if (o.select_rank) controller.selection()->setSelectedRank(*o.select_rank);
    if (o.theme) preferences.setDarkTheme(*o.theme == "dark");
    ui::CostForm& cost = *controller.costForm();
    if (o.model) cost.setModel(QString::fromStdString(*o.model));
    if (o.loaded_profile) {
        cost.setClusterProfile(o.loaded_profile);
        cost.setHardware(QString::fromStdString(o.loaded_profile->profile.hardware));
        cost.setNetwork(QString::fromStdString(o.loaded_profile->profile.network));
    }
    if (o.hardware) cost.setHardware(QString::fromStdString(*o.hardware));
    if (o.network) cost.setNetwork(QString::fromStdString(*o.network));
}

// The remembered plan and theme (not for a screenshot: it shows exactly what its flags say), then the flags.
// Returns the exit status when a flag names what the plan does not have.
std::optional<int> set_up_plan(const GuiOptions& options, QSettings& settings, PlanController& controller,
                               Preferences& preferences) {
    if (!options.screenshot) {
        controller.restore(settings);
        preferences.setDarkTheme(settings.value(QStringLiteral("ui/theme")).toString() == QLatin1String("dark"));
    }
    apply(options, controller, preferences);
    if (options.select_rank && controller.selection()->selectedRank() != *options.select_rank) {
        fail("--select-rank " + std::to_string(*options.select_rank) + " is outside the plan's " +
             std::to_string(controller.view()->planWorld()) + " ranks");
        return exit_usage;
    }
    if (options.show_dim && controller.view()->shownDim() != QString::fromStdString(*options.show_dim)) {
        fail("--show-dim '" + *options.show_dim + "' is not a dim of the " +
             ui::name_of(controller.view()->drawn_mesh()).toStdString() + " mesh");
        return exit_usage;
    }
    if (!controller.form()->valid())
        std::cerr << "meshscope: " << controller.form()->errorText().toStdString()
                  << "\n(the window shows this message and the last valid plan)\n";
    return std::nullopt;
}

// One LiveSession, fed by a remote collector or the embedded demo (app/demo). A Planner screenshot starts no demo,
// nor does a tour's (a live step's job runs in a collector of the tour's own).
demo::LiveStartup start_live_page(const GuiOptions& options, ui::LiveSession& live) {
    const bool live_page = options.start_page() == QLatin1String("live") && !options.tour;
    demo::LiveStartup startup =
        demo::start_live(live, QString::fromStdString(options.connect.value_or("")),
                         QString::fromStdString(options.token.value_or("")), !options.screenshot || live_page);
    if (!startup.error.isEmpty())
        std::cerr << "meshscope: the live demo did not start: " << startup.error.toStdString() << "\n";
    return startup;
}

// The tours drive the real planner and Live page; progress is remembered, but never for a screenshot.
void set_up_tours(const GuiOptions& options, ui::TourController& tours, QSettings& settings, PlanController& controller,
                  ui::LiveSession& live, demo::DemoTourJobs& jobs, const demo::LiveStartup& startup) {
    tours.setPlanner(&controller);
    tours.setLiveSession(&live);
    jobs.set_demo(startup.demo.get());
    tours.setJobs(&jobs);
    if (!options.screenshot) tours.set_settings(&settings);
    for (const QString& error : tours.catalog().errors) std::cerr << "meshscope: tour " << error.toStdString() << "\n";
    if (options.tour) (void)tours.start(QString::fromStdString(*options.tour), options.step.value_or(1));
}

QQuickWindow* load_window(QQmlApplicationEngine& engine, PlanController& controller, Preferences& preferences,
                          ui::LiveSession& live, ui::TourController& tours, const QString& page) {
    engine.addImportPath(QStringLiteral("qrc:/qt/qml"));
    QObject::connect(
        &engine, &QQmlApplicationEngine::objectCreationFailed, &engine, [] { QCoreApplication::exit(exit_failure); },
        Qt::QueuedConnection);
    engine.setInitialProperties({{QStringLiteral("controller"), QVariant::fromValue(&controller)},
                                 {QStringLiteral("preferences"), QVariant::fromValue(&preferences)},
                                 {QStringLiteral("liveSession"), QVariant::fromValue(&live)},
                                 {QStringLiteral("tours"), QVariant::fromValue(&tours)},
                                 {QStringLiteral("initialPage"), page}});
    engine.load(QUrl(QStringLiteral("qrc:/qt/qml/MeshScope/Main.qml")));
    return engine.rootObjects().isEmpty() ? nullptr : qobject_cast<QQuickWindow*>(engine.rootObjects().first());
}

// MESHSCOPE_TIMING=1: how long the first frame took (docs/benchmarks.md).
void report_first_frame(QQuickWindow& window, const QElapsedTimer& started) {
    if (!qEnvironmentVariableIsSet("MESHSCOPE_TIMING")) return;
    QObject::connect(
        &window, &QQuickWindow::frameSwapped, &window,
        [&started] { std::cerr << "meshscope: first frame after " << started.elapsed() << " ms\n"; },
        Qt::SingleShotConnection);
}

// --place on the Live page, once its job has reported: "" when kept, else why not (the job's places named).
std::string keep_place(ui::LiveSession& live, const std::string& place) {
    const QString text = QString::fromStdString(place);
    live.selection()->setPlaceFilter(text);
    if (live.selection()->placeFilter() == text) return {};
    const QStringList choices = live.view()->filteredRanks()->placeChoices();
    return "--place '" + place + "' is not a place of the job's hang" +
           (choices.isEmpty() ? std::string(" (the job has none)")
                              : "; its places are '" + choices.join(QStringLiteral("', '")).toStdString() + "'");
}

int take_screenshot(QApplication& app, QQuickWindow& window, const GuiOptions& options, ui::LiveSession& live,
                    const demo::LiveStartup& startup, const ui::TourController& tours) {
    const bool live_page = options.start_page() == QLatin1String("live");
    const QString file = QString::fromStdString(*options.screenshot);
    window.resize(options.window_size);
    int status = exit_failure;
    QObject::connect(
        &window, &QQuickWindow::frameSwapped, &app,
        [&] {
            // One more turn of the event loop lets layouts settle before the grab renders the scene; the
            // Live page first waits (bounded) until the job has reported.
            // A tour's live step: until its job shows every kind of finding the simulator injected.
            const auto settled = [&](std::function<void()> then) {
                if (!tours.current_job().isEmpty())
                    ui::when_job_settled(live, tours.current_job(), tours.current_job_kinds(), 20000, &app, then);
                else
                    demo::when_live_settled(live, startup.demo.get(), live_page ? 20000 : 0, &app, then);
            };
            settled([&] {
                // The Live page's rank panel shows the rank --select-rank names (its timeline, where it stands).
                if (live_page && options.select_rank) live.selection()->selectRank(*options.select_rank);
                if (live_page && options.place)
                    if (const std::string error = keep_place(live, *options.place); !error.empty()) {
                        std::cerr << "meshscope: " << error << "\n";
                        status = exit_failure;
                        QCoreApplication::quit();
                        return;
                    }
                QTimer::singleShot(50, &app, [&] {
                    const QImage image = window.grabWindow();
                    if (image.isNull() || !image.save(file, "PNG")) {
                        std::cerr << "meshscope: could not write " << *options.screenshot << "\n";
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
    window.show();
    app.exec();
    return status;
}

// The window where it was last time; on quit its place, the theme and the plan are remembered.
int run_window(QApplication& app, QQuickWindow& window, QSettings& settings, PlanController& controller,
               Preferences& preferences) {
    if (const QRect geometry = settings.value(QStringLiteral("window/geometry")).toRect(); geometry.isValid())
        window.setGeometry(geometry);
    QObject::connect(&app, &QCoreApplication::aboutToQuit, &app, [&] {
        settings.setValue(QStringLiteral("window/geometry"), window.geometry());
        settings.setValue(QStringLiteral("ui/theme"),
                          preferences.darkTheme() ? QStringLiteral("dark") : QStringLiteral("light"));
        controller.save(settings);
    });
    window.show();
    return app.exec();
}
}  // namespace

int run_gui(int argc, char** argv) {
    QElapsedTimer started;
    started.start();
    GuiOptions options;
    if (const auto status = parse(argc, argv, options)) return *status;
    if (options.screenshot && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");

    QApplication app(argc, argv);
    set_up_application();
    PlanController controller;
    Preferences preferences;
    QSettings settings;
    if (const auto status = set_up_plan(options, settings, controller, preferences)) return *status;
    ui::LiveSession live;
    const demo::LiveStartup startup = start_live_page(options, live);
    demo::DemoTourJobs tour_jobs;  // the tours' jobs: in the demo's collector, or one of their own
    ui::TourController tours;
    set_up_tours(options, tours, settings, controller, live, tour_jobs, startup);

    QQmlApplicationEngine engine;
    QQuickWindow* window = load_window(engine, controller, preferences, live, tours, options.start_page());
    if (window == nullptr) {
        std::cerr << "meshscope: the dashboard window could not be created\n";
        return exit_failure;
    }
    report_first_frame(*window, started);
    if (options.screenshot) return take_screenshot(app, *window, options, live, startup, tours);
    // In the window, a place the job lacks is said and the window stays: the user picks another in the legend.
    if (options.place)
        demo::when_live_settled(live, startup.demo.get(), 20000, &app, [&live, &options] {
            if (const std::string error = keep_place(live, *options.place); !error.empty())
                std::cerr << "meshscope: " << error << "\n";
        });
    return run_window(app, *window, settings, controller, preferences);
}

}  // namespace meshscope::app
