#include "live_session.h"

#include <algorithm>

namespace meshscope::ui {

LiveSession::LiveSession(QObject* parent) : QObject(parent) {
    connect(&inputs_, &LiveInputs::serverChanged, this, &LiveSession::reconnect);
    connect(&inputs_, &LiveInputs::currentJobChanged, this, &LiveSession::on_job_changed);
    connect(&inputs_, &LiveInputs::pollIntervalMsChanged, this,
            [this] { poll_.setInterval(inputs_.pollIntervalMs()); });
    connect(&inputs_, &LiveInputs::updateIntervalMsChanged, this, [this] {
        // A flush waiting for the old interval waits for the new one instead.
        if (!flush_.isActive()) return;
        flush_.stop();
        schedule_flush();
    });
    connect(&selection_, &LiveSelection::filterChanged, this, &LiveSession::gridChanged);
    connect(&selection_, &LiveSelection::selectedFindingChanged, this, &LiveSession::gridChanged);
    connect(&selection_, &LiveSelection::selectedRankChanged, this, [this] {
        update_timeline();
        emit gridChanged();
    });
    connect(&client_, &LiveClient::changeReceived, this, &LiveSession::on_change);
    connect(&client_, &LiveClient::streamingChanged, this, [this](bool streaming) {
        // A (re)opened stream may have missed changes: take a fresh snapshot.
        if (streaming) refresh();
        show_connection();
    });
    flush_.setSingleShot(true);
    connect(&flush_, &QTimer::timeout, this, &LiveSession::flush);
    poll_.setInterval(inputs_.pollIntervalMs());
    connect(&poll_, &QTimer::timeout, this, &LiveSession::poll);
    settle_.setSingleShot(true);
    connect(&settle_, &QTimer::timeout, this, [this] { view_.setSettled(snapshot_loaded_); });
    since_flush_.start();
}

LiveSession::~LiveSession() = default;

void LiveSession::reconnect() {
    const QString url = inputs_.url();
    client_.setServer(url.isEmpty() ? QUrl() : QUrl(url), inputs_.token());
    ++snapshot_generation_;
    jobs_in_flight_ = false;
    snapshot_in_flight_ = 0;
    pending_jobs_ = std::vector<JobRow>{};
    pending_ranks_.reset();
    pending_findings_.reset();
    pending_changes_.clear();
    error_.clear();
    connected_ = false;
    show_connection();
    // Another collector has other Jobs: follow its first one, unless the user named one.
    if (!inputs_.userChoseJob()) inputs_.followJob(QString());
    poll_.stop();
    if (url.isEmpty()) {
        schedule_flush();
        return;
    }
    poll_.start();
    poll();
}

void LiveSession::show_connection() {
    view_.setConnection(inputs_.url(), connected_, client_.streaming(), error_);
}

void LiveSession::set_error(const QString& error, bool connected) {
    connected_ = connected;
    error_ = error;
    show_connection();
}

void LiveSession::refresh() {
    if (inputs_.url().isEmpty()) return;
    poll();
}

void LiveSession::poll() {
    if (!jobs_in_flight_) {
        jobs_in_flight_ = true;
        client_.getRows<std::vector<JobRow>>(QStringLiteral("jobs"), QStringLiteral("/api/v1/jobs"), this, parse_jobs,
                                             [this](std::vector<JobRow> rows, const QString& error, std::uint64_t) {
                                                 jobs_in_flight_ = false;
                                                 set_error(error, error.isEmpty());
                                                 if (!error.isEmpty()) return;
                                                 pending_jobs_ = std::move(rows);
                                                 schedule_flush();
                                             });
    }
    if (!inputs_.currentJob().isEmpty() && snapshot_in_flight_ == 0) fetch_snapshot();
}

// Parsed on a worker thread (LiveClient::getRows); here only the ready rows are buffered for the next flush.
// An answer for a job no longer selected (or an older selection of it) is dropped; the client already drops
// one older than an answer of its kind that was delivered.
void LiveSession::fetch_snapshot() {
    const int generation = snapshot_generation_;
    const QString job = inputs_.currentJob();
    const QString base = QStringLiteral("/api/v1/jobs/") + QString::fromLatin1(QUrl::toPercentEncoding(job));
    snapshot_in_flight_ = 2;
    client_.getRows<std::vector<RankRow>>(
        QStringLiteral("ranks"), base + QStringLiteral("/ranks"), this, parse_ranks,
        [this, generation, job](std::vector<RankRow> rows, const QString& error, std::uint64_t stream_mark) {
            if (generation != snapshot_generation_ || job != inputs_.currentJob()) return;
            --snapshot_in_flight_;
            if (!error.isEmpty()) return;
            pending_ranks_ = std::move(rows);
            ranks_seq_ = stream_mark;  // stream messages after the body arrived are newer than it
            schedule_flush();
        });
    client_.getRows<std::vector<FindingRow>>(
        QStringLiteral("findings"), base + QStringLiteral("/findings"), this, parse_findings,
        [this, generation, job](std::vector<FindingRow> rows, const QString& error, std::uint64_t stream_mark) {
            if (generation != snapshot_generation_ || job != inputs_.currentJob()) return;
            --snapshot_in_flight_;
            if (!error.isEmpty()) return;
            pending_findings_ = std::move(rows);
            findings_seq_ = stream_mark;
            schedule_flush();
        });
}

void LiveSession::on_change(const nlohmann::json& message) {
    LiveChange change = parse_change(message);
    // The client's count, so it compares with the stream mark of a snapshot answer (see fetch_snapshot).
    const std::uint64_t change_seq = client_.changesReceived();
    switch (change.type) {
        case LiveChange::Type::hello:
        case LiveChange::Type::unknown: return;
        case LiveChange::Type::job_added: poll(); return;
        default: break;
    }
    if (inputs_.currentJob().isEmpty() || change.job != inputs_.currentJob()) return;
    pending_changes_.emplace_back(change_seq, std::move(change));
    schedule_flush();
}

void LiveSession::schedule_flush() {
    if (flush_.isActive()) return;
    const qint64 wait = inputs_.updateIntervalMs() - since_flush_.elapsed();
    flush_.start(static_cast<int>(std::max<qint64>(0, wait)));
}

// Another Job (the user's pick or the one followed): nothing of the old one stays on the page.
void LiveSession::on_job_changed() {
    ++snapshot_generation_;
    snapshot_in_flight_ = 0;
    snapshot_loaded_ = false;
    pending_ranks_.reset();
    pending_findings_.reset();
    pending_changes_.clear();
    view_.ranks()->clear();
    view_.findings()->clear();
    selection_.clear();
    view_.setSettled(false);
    view_.takeRanks(view_.jobRows().find(inputs_.currentJob()), true);
    update_timeline();
    if (!inputs_.currentJob().isEmpty()) fetch_snapshot();
}

// The jobs answer: follow the collector's first Job until the user picks one.
void LiveSession::apply_jobs() {
    if (!pending_jobs_) return;
    view_.jobs()->setJobs(std::move(*pending_jobs_));
    pending_jobs_.reset();
    const JobsModel& jobs = view_.jobRows();
    const QString current = inputs_.currentJob();
    const bool chosen = inputs_.userChoseJob();
    if (jobs.count() > 0 && (current.isEmpty() || (!chosen && !jobs.find(current))))
        inputs_.followJob(jobs.jobs().front().job);
    else if (jobs.count() == 0 && !chosen && !current.isEmpty())
        inputs_.followJob(QString());
}

void LiveSession::flush() {
    since_flush_.restart();
    const QList<int> counts_before = view_.stateCounts();
    const std::vector<FindingRow> findings_before = view_.findingRows().findings();  // a handful: cheap to compare
    bool ranks_changed = false;
    bool snapshot = false;
    bool findings_changed = false;
    bool snapshot_part = false;  // ranks or findings of a snapshot

    apply_jobs();
    std::uint64_t ranks_seq = 0;
    std::uint64_t findings_seq = 0;
    if (pending_ranks_) {
        view_.ranks()->setRanks(std::move(*pending_ranks_));
        pending_ranks_.reset();
        ranks_seq = ranks_seq_;
        ranks_changed = snapshot = snapshot_part = true;
    }
    if (pending_findings_) {
        view_.findings()->setFindings(std::move(*pending_findings_));
        pending_findings_.reset();
        findings_seq = findings_seq_;
        findings_changed = snapshot_part = true;
    }
    // Deltas that arrived after the snapshot was answered; older ones are already in it.
    bool missing_rank = false;
    for (auto& [seq, change] : pending_changes_) {
        if (change.type == LiveChange::Type::rank_changed) {
            if (seq <= ranks_seq) continue;
            if (!view_.ranks()->applyRankChange(change.rank, change.state, change.phase)) missing_rank = true;
            ranks_changed = true;
        } else {
            if (seq <= findings_seq) continue;
            if (change.type == LiveChange::Type::finding_removed)
                view_.findings()->remove(change.finding.id);
            else
                view_.findings()->upsert(std::move(change.finding));
            findings_changed = true;
        }
    }
    pending_changes_.clear();
    if (missing_rank && snapshot_in_flight_ == 0 && !inputs_.currentJob().isEmpty()) fetch_snapshot();

    if (findings_changed || snapshot) {
        QHash<int, QStringList> kinds;
        for (const FindingRow& f : view_.findingRows().findings())
            for (int r : f.ranks)
                if (!kinds[r].contains(f.kind)) kinds[r] << f.kind;
        view_.ranks()->setFindingKinds(kinds);
        selection_.followFindings();
    }
    if (snapshot_part && snapshot_in_flight_ == 0) snapshot_loaded_ = true;
    if (ranks_changed || findings_changed || snapshot || view_.jobRows().count() > 0)
        view_.takeRanks(view_.jobRows().find(inputs_.currentJob()), snapshot);
    if (snapshot || ranks_changed) update_timeline();

    // Quiet means no rank changed state and no finding changed (heartbeats and re-polls are not news).
    if (view_.stateCounts() != counts_before || view_.findingRows().findings() != findings_before) note_activity();
    if (snapshot_loaded_ && !settle_.isActive() && !view_.settled()) settle_.start(inputs_.settleMs());
    emit gridChanged();
    view_.countUpdate();
}

void LiveSession::update_timeline() {
    const RankRow* selected = view_.rankRows().find(selection_.selectedRank());
    view_.timeline()->setRank(selected, view_.origin(), view_.horizon());
    view_.position()->setRank(selected);
}

void LiveSession::note_activity() {
    view_.setSettled(false);
    settle_.start(inputs_.settleMs());
}

}  // namespace meshscope::ui
