#include "tour_controller.h"

#include <QSettings>

#include "planner_enums.h"

namespace meshscope::ui {

TourController::TourController(QObject* parent) : QObject(parent), catalog_(shipped_tour_catalog()) {
    connect(&sandbox_, &SandboxModel::called, this, [this] {
        if (step_.check_kind() == "sandbox") submitSandbox();
    });
}

void TourController::on_live_updated() {
    if (!current_job_.isEmpty()) refresh_finding();
}

void TourController::setPlanner(PlanController* planner) {
    if (planner == planner_) return;
    planner_ = planner;
    emit plannerChanged();
}

void TourController::setLiveSession(LiveSession* session) {
    if (session == live_) return;
    if (live_) disconnect(live_->view(), nullptr, this, nullptr);
    live_ = session;
    if (live_) connect(live_->view(), &LiveView::updated, this, &TourController::on_live_updated);
    emit liveSessionChanged();
}

void TourController::setJobs(TourJobs* jobs) {
    if (jobs == jobs_) return;
    jobs_ = jobs;
    emit jobsChanged();
}

void TourController::set_settings(QSettings* settings) {
    progress_.set_settings(settings);
    list_.refresh_progress();
}

bool TourController::start(const QString& name, int step) {
    const Tour* tour = find_tour(catalog_, name);
    if (!tour || step < 1 || step > static_cast<int>(tour->steps.size())) return false;
    tour_ = tour;
    open(step);
    return true;
}

bool TourController::resume(const QString& name) {
    const int reached = progress_.step(name);
    return start(name, progress_.finished(name) || reached < 1 ? 1 : reached);
}

void TourController::open(int index) {
    step_.show(tour_, index);
    answer_.clear();
    const QString name = QString::fromStdString(tour_->name);
    progress_.reach(name, index);
    list_.refresh_progress(name);
    apply_view();
    emit stepOpened();
}

bool TourController::canNext() const {
    return step_.active() && (!step_.hasTask() || answer_.solved());
}

void TourController::next() {
    if (!canNext()) return;
    if (step_.index() < step_.count()) {
        open(step_.index() + 1);
        return;
    }
    const QString name = step_.tourName();
    progress_.finish(name);
    list_.refresh_progress(name);
    leave();
}

void TourController::back() {
    if (step_.active() && step_.index() > 1) open(step_.index() - 1);
}

void TourController::leave() {
    if (!step_.active()) return;
    tour_ = nullptr;
    current_job_.clear();
    set_job_error({});
    step_.show(nullptr, 0);
    answer_.clear();
}

void TourController::set_job_error(const QString& error) {
    if (error == job_error_) return;
    job_error_ = error;
    emit jobErrorChanged();
}

// Core resolved each step's state over the steps before it (TourStep::planner, ::peers, ::job), so a tour
// resumed at step K shows what it would have shown walking there.
void TourController::apply_view() {
    const TourStep* step = step_.step();
    current_job_.clear();
    set_job_error({});
    switch (step->page) {
        case TourPage::planner: apply_planner_state(step->planner); break;
        case TourPage::live:
            if (step->job) apply_job(*step->job);
            break;
        case TourPage::sandbox:
            if (const auto fresh = step->view.find("fresh"); fresh != step->view.end() && fresh->is_boolean() && *fresh)
                sandbox_.clear();
            break;
        case TourPage::peers: apply_peers_state(step->peers); break;
    }
    refresh_finding();
}

// As a user would type them: the model mesh back to LlamaFactory's default (the steps' plans have it), then
// the cluster, cp and ep, the world, and last the rank (a selection outside the new plan would be cleared).
void TourController::apply_planner_state(const TourPlannerState& state) {
    if (!planner_) return;
    PlanForm& form = *planner_->form();
    form.setMpReplicate(1);
    form.setMpShard(0);
    form.setGpusPerNode(static_cast<int>(state.gpus_per_node));
    form.setCp(static_cast<int>(state.cp));
    form.setEp(static_cast<int>(state.ep));
    form.setUseWorld(true);
    form.setWorld(static_cast<int>(state.dp ? *state.dp * state.cp : state.world.value_or(form.world())));
    form.setOrder(static_cast<int>(state.order));
    if (const auto mesh = grid_mesh_named(QString::fromStdString(state.mesh)))
        planner_->view()->setViewMesh(static_cast<int>(*mesh));
    planner_->selection()->setSelectedRank(state.rank ? static_cast<int>(*state.rank) : -1);
}

void TourController::apply_job(const TourJob& job) {
    if (!live_) return;
    current_job_ = QStringLiteral("tour-") + step_.tourName();
    if (!jobs_) return set_job_error(QString::fromLatin1(no_tour_jobs_text));
    const auto url = jobs_->start(job, current_job_);
    if (!url) return set_job_error(QString::fromStdString(url.error().message()));
    if (live_->inputs()->url() != *url) live_->inputs()->setUrl(*url);
    live_->inputs()->setCurrentJob(current_job_);
}

void TourController::apply_peers_state(const TourPeersState& state) {
    peers_.set_shape({state.world, state.cp, state.ep, state.gpus_per_node});
    peers_.setSelectedRank(state.rank ? static_cast<int>(*state.rank) : -1);
}

// The finding the step quotes (finding_text), in core's words: the live job's own once it shows one.
void TourController::refresh_finding() {
    const TourStep* step = step_.step();
    if (!step || step->finding_text.empty()) {
        step_.set_finding(std::nullopt);
        return;
    }
    step_.set_finding(tour_finding(*step, context()));
}

// The findings of the open step's job as core's Findings, for a finding_rank check.
TourContext TourController::context() const {
    TourContext context;
    if (!live_ || current_job_.isEmpty() || live_->inputs()->currentJob() != current_job_) return context;
    for (const FindingRow& row : live_->view()->findingRows().findings()) {
        const auto kind = parse_finding_kind(row.kind.toStdString());
        if (!kind) continue;
        Finding finding;
        finding.id = row.id.toStdString();
        finding.kind = *kind;
        for (int rank : row.ranks) finding.ranks.push_back(rank);
        finding.message = row.message.toStdString();
        finding.fix = row.fix.toStdString();
        context.findings.push_back(std::move(finding));
    }
    return context;
}

void TourController::submit(const nlohmann::json& answer) {
    const TourStep* step = step_.step();
    if (!step || !step->task || answer_.solved()) return;
    const Expected<Verdict> verdict = check_answer(*step, answer, context());
    if (!verdict) {
        answer_.judged(false, QString::fromStdString(verdict.error().message()));
        return;
    }
    answer_.judged(verdict->correct, QString::fromStdString(verdict->message));
}

void TourController::submitRank(int rank) {
    if (step_.answerKind() == QLatin1String("rank")) submit({{"rank", rank}});
}

void TourController::submitNumber(int number) {
    if (step_.answerKind() == QLatin1String("number")) submit({{"number", number}});
}

void TourController::submitChoice(int choice) {
    if (step_.answerKind() == QLatin1String("choice")) submit({{"choice", choice}});
}

void TourController::submitPlannerLayout() {
    if (step_.answerKind() != QLatin1String("layout") || !planner_) return;
    const PlanForm& form = *planner_->form();
    // The inputs as typed: an invalid layout gets core's own message from the check.
    const int world = form.useWorld() ? form.world() : form.nodes() * form.gpusPerNode();
    const int dp = form.cp() > 0 && world % form.cp() == 0 ? world / form.cp() : world;
    submit({{"layout", {{"dp", dp}, {"cp", form.cp()}, {"ep", form.ep()}, {"gpus_per_node", form.gpusPerNode()}}}});
}

void TourController::submitSandbox() {
    if (step_.answerKind() == QLatin1String("sandbox")) submit(sandbox_.calls_json());
}

}  // namespace meshscope::ui
