// Measures the planner window as a user sees it (the real Main.qml, offscreen, Qt Quick's software
// renderer): time from process start to the first frame, then the time from each selection move to the
// frame that shows it, for a few views of a 16,384-rank plan.
//
//   bench_planner_frames [--moves N] [--nodes N] [--gpus-per-node G] [--cp C] [--ep E] [--only VIEW]
//   bench_planner_frames --shot FILE [--select R] [--dark] [--data] [--show-dim D]   (one picture, no timing)
#include <QtQml/qqmlextensionplugin.h>
#include <QApplication>
#include <QElapsedTimer>
#include <QQmlApplicationEngine>
#include <QQuickStyle>
#include <QQuickWindow>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <numeric>
#include <vector>

#include "mesh_grid_item.h"
#include "plan_controller.h"
#include "preferences.h"

Q_IMPORT_QML_PLUGIN(MeshScopeStylePlugin)
Q_IMPORT_QML_PLUGIN(MeshScopePlannerPlugin)
Q_IMPORT_QML_PLUGIN(MeshScopePlugin)

using meshscope::ui::MeshGridItem;
using meshscope::ui::PlanController;
using meshscope::ui::Preferences;

namespace {
int arg_int(const QStringList& args, const QString& name, int fallback) {
    const qsizetype i = args.indexOf(name);
    return i >= 0 && i + 1 < args.size() ? args[i + 1].toInt() : fallback;
}

struct Frames {
    std::vector<double> ms;        // selection change to frameSwapped
    std::vector<double> paint_ms;  // MeshGridItem's own painting in that frame
    // Where a frame's time goes: the change itself (models, bindings), waiting for the frame (the platform's
    // update timer, polish), synchronizing the scene graph (updatePaintNode), rendering, the rest (swap).
    std::vector<double> change_ms, wait_ms, sync_ms, render_ms;
};

// Runs `moves` selection moves, each waiting for the frame that shows it.
Frames measure(QQuickWindow& window, const MeshGridItem& grid, const std::function<void(int)>& move, int moves) {
    Frames out;
    QElapsedTimer timer;
    QEventLoop loop;
    int done = 0;
    double changed = 0, sync_start = 0, sync_end = 0, render_start = 0, render_end = 0;
    const auto now = [&] { return static_cast<double>(timer.nsecsElapsed()) / 1e6; };
    const auto start = [&](int i) {
        timer.start();
        move(i);
        changed = now();
    };
    // Direct connections: the software render loop runs on this thread.
    const QList<QMetaObject::Connection> phases{
        QObject::connect(
            &window, &QQuickWindow::beforeSynchronizing, &loop, [&] { sync_start = now(); }, Qt::DirectConnection),
        QObject::connect(
            &window, &QQuickWindow::afterSynchronizing, &loop, [&] { sync_end = now(); }, Qt::DirectConnection),
        QObject::connect(
            &window, &QQuickWindow::beforeRendering, &loop, [&] { render_start = now(); }, Qt::DirectConnection),
        QObject::connect(
            &window, &QQuickWindow::afterRendering, &loop, [&] { render_end = now(); }, Qt::DirectConnection)};
    const auto connection = QObject::connect(&window, &QQuickWindow::frameSwapped, &loop, [&] {
        out.ms.push_back(now());
        out.paint_ms.push_back(grid.lastPaintMs());
        out.change_ms.push_back(changed);
        out.wait_ms.push_back(sync_start - changed);
        out.sync_ms.push_back(sync_end - sync_start);
        out.render_ms.push_back(render_end - render_start);
        if (++done >= moves) {
            loop.quit();
            return;
        }
        QTimer::singleShot(0, &loop, [&] { start(done); });
    });
    QTimer::singleShot(0, &loop, [&] { start(0); });
    loop.exec();
    QObject::disconnect(connection);
    for (const auto& c : phases) QObject::disconnect(c);
    return out;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

void report(const char* name, const Frames& frames) {
    std::vector<double> ms = frames.ms;
    const double paint_ms = median(frames.paint_ms);
    std::sort(ms.begin(), ms.end());
    const double mean = std::accumulate(ms.begin(), ms.end(), 0.0) / static_cast<double>(ms.size());
    const auto at = [&](double q) {
        return ms[std::min(ms.size() - 1, static_cast<std::size_t>(q * static_cast<double>(ms.size())))];
    };
    std::printf("%-46s frames %4zu  mean %6.2f  median %6.2f  p95 %6.2f  max %6.2f ms\n", name, ms.size(), mean,
                at(0.5), at(0.95), ms.back());
    std::printf("    medians: change %5.2f  wait %5.2f  sync %5.2f (grid paint %5.2f)  render %5.2f ms\n",
                median(frames.change_ms), median(frames.wait_ms), median(frames.sync_ms), paint_ms,
                median(frames.render_ms));
}
}  // namespace

int main(int argc, char** argv) {
    QElapsedTimer started;
    started.start();
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QQuickStyle::setStyle(QStringLiteral("Fusion"));
    const QStringList args = QCoreApplication::arguments();
    const int moves = arg_int(args, QStringLiteral("--moves"), 200);

    PlanController controller;
    controller.form()->setGpusPerNode(arg_int(args, QStringLiteral("--gpus-per-node"), 8));
    controller.form()->setCp(arg_int(args, QStringLiteral("--cp"), 1));
    controller.form()->setEp(arg_int(args, QStringLiteral("--ep"), 8));
    controller.form()->setNodes(arg_int(args, QStringLiteral("--nodes"), 2048));
    if (!controller.form()->valid()) {
        std::fprintf(stderr, "%s\n", qPrintable(controller.form()->errorText()));
        return 2;
    }
    Preferences preferences;
    QQmlApplicationEngine engine;
    engine.addImportPath(QStringLiteral("qrc:/qt/qml"));
    engine.setInitialProperties({{QStringLiteral("controller"), QVariant::fromValue(&controller)},
                                 {QStringLiteral("preferences"), QVariant::fromValue(&preferences)}});
    engine.load(QUrl(QStringLiteral("qrc:/qt/qml/MeshScope/Main.qml")));
    auto* window = engine.rootObjects().isEmpty() ? nullptr : qobject_cast<QQuickWindow*>(engine.rootObjects().first());
    if (window == nullptr) return 1;
    auto* grid = window->findChild<MeshGridItem*>(QStringLiteral("meshGrid"));  // the bench drives the item
    if (grid == nullptr) return 1;
    window->resize(1440, 900);
    window->show();
    {
        QEventLoop loop;
        QObject::connect(window, &QQuickWindow::frameSwapped, &loop, &QEventLoop::quit, Qt::SingleShotConnection);
        loop.exec();
    }
    if (const qsizetype shot = args.indexOf(QStringLiteral("--shot")); shot >= 0 && shot + 1 < args.size()) {
        preferences.setDarkTheme(args.contains(QStringLiteral("--dark")));
        if (args.contains(QStringLiteral("--data"))) controller.view()->setViewMesh(meshscope::ui::MeshViewQml::Data);
        if (const qsizetype d = args.indexOf(QStringLiteral("--show-dim")); d >= 0 && d + 1 < args.size())
            controller.view()->setShownDim(args[d + 1]);
        controller.selection()->setSelectedRank(arg_int(args, QStringLiteral("--select"), -1));
        QEventLoop loop;
        QTimer::singleShot(100, &loop, &QEventLoop::quit);
        loop.exec();
        return window->grabWindow().save(args[shot + 1]) ? 0 : 1;
    }
    std::printf("plan %s on %s: %d ranks, renderer %s\n", qPrintable(controller.view()->topologyText()),
                qPrintable(controller.view()->clusterText()), controller.view()->planWorld(),
                window->rendererInterface()->graphicsApi() == QSGRendererInterface::Software ? "software" : "hardware");
    std::printf("start to first frame: %lld ms\n", static_cast<long long>(started.elapsed()));

    // --only N runs the first N-1 views untimed (they set the state up) and times view N: for profiling.
    const int only = arg_int(args, QStringLiteral("--only"), 0);
    int view = 0;
    const auto run = [&](const char* name, const std::function<void(int)>& move) {
        ++view;
        if (only != 0 && view != only) {
            if (view < only) measure(*window, *grid, move, 2);
            return;
        }
        report(name, measure(*window, *grid, move, moves));
    };
    const auto walk = [&](int) { grid->moveSelection(1, 0); };
    controller.selection()->setSelectedRank(0);
    run("expert mesh, whole grid (fit), arrow right", walk);
    const auto jump = [&](int i) {
        controller.selection()->setSelectedRank((i * 997) % controller.view()->planWorld());
    };
    run("expert mesh, whole grid (fit), random ranks", jump);
    controller.view()->setShownDim(QStringLiteral("efsdp"));
    run("expert mesh, fit, all efsdp groups shown", jump);
    controller.view()->setShownDim({});
    grid->zoomBy(1.0 / grid->zoom());  // cells at 44 px, with rank labels
    run("expert mesh, zoom 100%, arrow right", walk);
    grid->fitToView();
    controller.view()->setViewMesh(meshscope::ui::MeshViewQml::Data);
    run("data mesh, fit, random ranks (dp group = all)", jump);
    return 0;
}
