// TourController: the teaching mode. It loads the shipped tours (core's parse_tour), opens a tour at a step,
// and applies each step's view to the REAL dashboard: the PlanController's inputs, mesh, order and selected
// rank; for a live step the step's simulated job, run where the app's TourJobs runs it and watched by the Live
// page's session; a fresh sandbox; the peers view's shape. Every answer the learner gives (a rank clicked on a
// grid, a number, a choice, the planner's layout, the sandbox's history) is judged by core's check_answer.
// Progress per tour (TourProgress) is remembered in the app's settings when it gives them.
//
//   TourController { id: tours; planner: plannerController; liveSession: live; jobs: DemoTourJobs {} }
//   tours.start("expert-mesh", 1); mesh grid clicked -> tours.submitRank(rank); tours.next()
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QObject>
#include <QPointer>

#include "live_session.h"
#include "peers_model.h"
#include "plan_controller.h"
#include "sandbox_model.h"
#include "tour_answer.h"
#include "tour_catalog.h"
#include "tour_jobs.h"
#include "tour_list_model.h"
#include "tour_progress.h"
#include "tour_step_view.h"

class QSettings;

namespace meshscope::ui {

// jobError of a live step when the controller was given no TourJobs.
inline constexpr char no_tour_jobs_text[] = "this dashboard runs no tour jobs";

class TourController : public QObject {
    Q_OBJECT
    QML_ELEMENT
    // What the tours drive: the planner and the Live page's session (both may be set later).
    Q_PROPERTY(meshscope::ui::PlanController* planner READ planner WRITE setPlanner NOTIFY plannerChanged)
    Q_PROPERTY(meshscope::ui::LiveSession* liveSession READ liveSession WRITE setLiveSession NOTIFY liveSessionChanged)
    // Where a live step's job runs (the app's, app/demo); without one a live step shows no_tour_jobs_text.
    Q_PROPERTY(meshscope::ui::TourJobs* jobs READ jobs WRITE setJobs NOTIFY jobsChanged)
    Q_PROPERTY(meshscope::ui::TourListModel* tours READ tours CONSTANT)
    Q_PROPERTY(meshscope::ui::TourStepView* step READ step CONSTANT)
    Q_PROPERTY(meshscope::ui::TourAnswer* answer READ answer CONSTANT)
    Q_PROPERTY(meshscope::ui::SandboxModel* sandbox READ sandbox CONSTANT)
    Q_PROPERTY(meshscope::ui::PeersModel* peers READ peers CONSTANT)
    // Why the open live step has no job (the simulator's message), "" normally.
    Q_PROPERTY(QString jobError READ jobError NOTIFY jobErrorChanged)

public:
    explicit TourController(QObject* parent = nullptr);

    [[nodiscard]] PlanController* planner() const { return planner_; }
    void setPlanner(PlanController* planner);
    [[nodiscard]] LiveSession* liveSession() const { return live_; }
    void setLiveSession(LiveSession* session);
    [[nodiscard]] TourJobs* jobs() const { return jobs_; }
    void setJobs(TourJobs* jobs);
    [[nodiscard]] TourListModel* tours() { return &list_; }
    [[nodiscard]] TourStepView* step() { return &step_; }
    [[nodiscard]] TourAnswer* answer() { return &answer_; }
    [[nodiscard]] SandboxModel* sandbox() { return &sandbox_; }
    [[nodiscard]] PeersModel* peers() { return &peers_; }
    [[nodiscard]] QString jobError() const { return job_error_; }

    // Opens a tour at step `step` (from 1); false for an unknown tour or a step outside it.
    Q_INVOKABLE bool start(const QString& name, int step = 1);
    // Opens a tour where the learner left it (its first step when never started or finished).
    Q_INVOKABLE bool resume(const QString& name);
    // The next step once the open one is solved (or has no task); past the last step the tour is finished.
    Q_INVOKABLE void next();
    Q_INVOKABLE void back();
    // Closes the tour; its progress stays for "Resume".
    Q_INVOKABLE void leave();
    [[nodiscard]] bool canNext() const;

    // Answers, each judged by core against the open step's task; ignored without one or once it is solved.
    Q_INVOKABLE void submitRank(int rank);
    Q_INVOKABLE void submitNumber(int number);
    Q_INVOKABLE void submitChoice(int choice);
    // The planner's current layout (dp, cp, ep, GPUs per node as typed) for a `layout` task.
    Q_INVOKABLE void submitPlannerLayout();
    // The sandbox's history (also judged after each sandbox call while the task wants it).
    Q_INVOKABLE void submitSandbox();

    // For the app: remember progress in these settings (never with --screenshot).
    void set_settings(QSettings* settings);
    // The open live step's job ("tour-NAME"; "" for none) and how many finding kinds it shows once settled.
    [[nodiscard]] QString current_job() const { return current_job_; }
    [[nodiscard]] int current_job_kinds() const { return jobs_ ? jobs_->injected_kinds(current_job_) : 0; }
    [[nodiscard]] const TourCatalog& catalog() const { return catalog_; }
    // The judged answer as JSON, for tests and the controller's own submits.
    void submit(const nlohmann::json& answer);

signals:
    void plannerChanged();
    void liveSessionChanged();
    void jobsChanged();
    void jobErrorChanged();
    void stepOpened();  // a step opened (the window shows its page)

private:
    void open(int index);
    void apply_view();
    void apply_planner_state(const TourPlannerState& state);
    void apply_job(const TourJob& job);
    void apply_peers_state(const TourPeersState& state);
    void refresh_finding();
    void on_live_updated();
    void set_job_error(const QString& error);
    [[nodiscard]] TourContext context() const;

    const TourCatalog& catalog_;
    TourProgress progress_;
    TourListModel list_{catalog_, progress_};
    TourStepView step_;
    TourAnswer answer_;
    SandboxModel sandbox_;
    PeersModel peers_;
    QPointer<PlanController> planner_;
    QPointer<LiveSession> live_;
    QPointer<TourJobs> jobs_;
    const Tour* tour_ = nullptr;
    QString current_job_;
    QString job_error_;
};

}  // namespace meshscope::ui
