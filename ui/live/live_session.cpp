#include "live_session.h"

#include <QCollator>
#include <QSet>

#include <algorithm>
#include <limits>

#include "live_enums.h"

namespace meshscope::ui {

LiveSession::LiveSession(QObject* parent) : QObject(parent), state_counts_(static_cast<int>(rank_state_kind_count), 0) {
    filtered_.setSourceModel(&ranks_);
    connect(&filtered_, &RankFilterModel::filterChanged, this, [this] {
        emit filterChanged();
        emit gridChanged();
    });
    connect(&client_, &LiveClient::changeReceived, this, &LiveSession::on_change);
    connect(&client_, &LiveClient::streamingChanged, this, [this](bool streaming) {
        // A (re)opened stream may have missed changes: take a fresh snapshot.
        if (streaming) refresh();
        emit connectionChanged();
    });
    flush_.setSingleShot(true);
    connect(&flush_, &QTimer::timeout, this, &LiveSession::flush);
    poll_.setInterval(1000);
    connect(&poll_, &QTimer::timeout, this, &LiveSession::poll);
    settle_.setSingleShot(true);
    connect(&settle_, &QTimer::timeout, this, [this] { set_settled(snapshot_loaded_); });
    since_flush_.start();
}

LiveSession::~LiveSession() = default;

void LiveSession::setUrl(const QString& url) {
    if (url == url_) return;
    url_ = url;
    reconnect();
    emit serverChanged();
}

void LiveSession::setToken(const QString& token) {
    if (token == token_) return;
    token_ = token;
    reconnect();
    emit serverChanged();
}

void LiveSession::reconnect() {
    client_.setServer(url_.isEmpty() ? QUrl() : QUrl(url_), token_);
    ++snapshot_generation_;
    jobs_in_flight_ = false;
    snapshot_in_flight_ = 0;
    pending_jobs_ = std::vector<JobRow>{};
    pending_ranks_.reset();
    pending_findings_.reset();
    pending_changes_.clear();
    if (!user_chose_job_) current_job_.clear();
    error_.clear();
    connected_ = false;
    emit connectionChanged();
    poll_.stop();
    if (url_.isEmpty()) {
        schedule_flush();
        return;
    }
    poll_.start();
    poll();
}

QString LiveSession::statusText() const {
    if (url_.isEmpty()) return tr("No collector: run `meshscope` for the demo or `meshscope --connect URL`");
    if (!error_.isEmpty()) return error_;
    if (!connected_) return tr("Connecting to %1 …").arg(url_);
    return client_.streaming() ? tr("Live from %1").arg(url_) : tr("Polling %1 (change stream unavailable)").arg(url_);
}

void LiveSession::set_connected(bool connected, const QString& error) {
    if (connected == connected_ && error == error_) return;
    connected_ = connected;
    error_ = error;
    emit connectionChanged();
}

void LiveSession::refresh() {
    if (url_.isEmpty()) return;
    poll();
}

void LiveSession::poll() {
    if (!jobs_in_flight_) {
        jobs_in_flight_ = true;
        client_.getRows<std::vector<JobRow>>(QStringLiteral("jobs"), QStringLiteral("/api/v1/jobs"), this, parse_jobs,
                                             [this](std::vector<JobRow> rows, const QString& error, std::uint64_t) {
                                                 jobs_in_flight_ = false;
                                                 set_connected(error.isEmpty(), error);
                                                 if (!error.isEmpty()) return;
                                                 pending_jobs_ = std::move(rows);
                                                 schedule_flush();
                                             });
    }
    if (!current_job_.isEmpty() && snapshot_in_flight_ == 0) fetch_snapshot();
}

// Parsed on a worker thread (LiveClient::getRows); here only the ready rows are buffered for the next flush.
// An answer for a job no longer selected (or an older selection of it) is dropped; the client already drops
// one older than an answer of its kind that was delivered.
void LiveSession::fetch_snapshot() {
    const int generation = snapshot_generation_;
    const QString job = current_job_;
    const QString base = QStringLiteral("/api/v1/jobs/") + QString::fromLatin1(QUrl::toPercentEncoding(job));
    snapshot_in_flight_ = 2;
    client_.getRows<std::vector<RankRow>>(
        QStringLiteral("ranks"), base + QStringLiteral("/ranks"), this, parse_ranks,
        [this, generation, job](std::vector<RankRow> rows, const QString& error, std::uint64_t stream_mark) {
            if (generation != snapshot_generation_ || job != current_job_) return;
            --snapshot_in_flight_;
            if (!error.isEmpty()) return;
            pending_ranks_ = std::move(rows);
            ranks_seq_ = stream_mark;  // stream messages after the body arrived are newer than it
            schedule_flush();
        });
    client_.getRows<std::vector<FindingRow>>(
        QStringLiteral("findings"), base + QStringLiteral("/findings"), this, parse_findings,
        [this, generation, job](std::vector<FindingRow> rows, const QString& error, std::uint64_t stream_mark) {
            if (generation != snapshot_generation_ || job != current_job_) return;
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
    if (change.job != current_job_ || current_job_.isEmpty()) return;
    pending_changes_.emplace_back(change_seq, std::move(change));
    schedule_flush();
}

void LiveSession::schedule_flush() {
    if (flush_.isActive()) return;
    const qint64 wait = minUpdateIntervalMs - since_flush_.elapsed();
    flush_.start(static_cast<int>(std::max<qint64>(0, wait)));
}

void LiveSession::setCurrentJob(const QString& job) {
    user_chose_job_ = true;
    if (job == current_job_) return;
    current_job_ = job;
    ++snapshot_generation_;
    snapshot_in_flight_ = 0;
    snapshot_loaded_ = false;
    pending_ranks_.reset();
    pending_findings_.reset();
    pending_changes_.clear();
    ranks_.clear();
    findings_.clear();
    selected_rank_ = -1;
    selected_finding_ = -1;
    selected_finding_id_.clear();
    highlighted_.clear();
    set_settled(false);
    emit currentJobChanged();
    emit selectedRankChanged();
    emit selectedFindingChanged();
    after_ranks_changed(true);
    update_timeline();
    if (!job.isEmpty()) fetch_snapshot();
}

void LiveSession::flush() {
    since_flush_.restart();
    const QList<int> counts_before = state_counts_;
    const std::vector<FindingRow> findings_before = findings_.findings();  // a handful: cheap to compare
    bool ranks_changed = false;
    bool snapshot = false;
    bool findings_changed = false;
    bool snapshot_part = false;  // ranks or findings of a snapshot

    if (pending_jobs_) {
        jobs_.setJobs(std::move(*pending_jobs_));
        pending_jobs_.reset();
        // Follow the jobs the collector has until the user picks one.
        if (jobs_.count() > 0 && (current_job_.isEmpty() || (!user_chose_job_ && !jobs_.find(current_job_)))) {
            setCurrentJob(jobs_.jobs().front().job);
            user_chose_job_ = false;
        } else if (jobs_.count() == 0 && !user_chose_job_ && !current_job_.isEmpty()) {
            setCurrentJob(QString());
            user_chose_job_ = false;
        }
    }
    std::uint64_t ranks_seq = 0;
    std::uint64_t findings_seq = 0;
    if (pending_ranks_) {
        ranks_.setRanks(std::move(*pending_ranks_));
        pending_ranks_.reset();
        ranks_seq = ranks_seq_;
        ranks_changed = snapshot = snapshot_part = true;
    }
    if (pending_findings_) {
        findings_.setFindings(std::move(*pending_findings_));
        pending_findings_.reset();
        findings_seq = findings_seq_;
        findings_changed = snapshot_part = true;
    }
    // Deltas that arrived after the snapshot was answered; older ones are already in it.
    bool missing_rank = false;
    for (auto& [seq, change] : pending_changes_) {
        if (change.type == LiveChange::Type::rank_changed) {
            if (seq <= ranks_seq) continue;
            if (!ranks_.applyRankChange(change.rank, change.state, change.phase)) missing_rank = true;
            ranks_changed = true;
        } else {
            if (seq <= findings_seq) continue;
            if (change.type == LiveChange::Type::finding_removed)
                findings_.remove(change.finding.id);
            else
                findings_.upsert(std::move(change.finding));
            findings_changed = true;
        }
    }
    pending_changes_.clear();
    if (missing_rank && snapshot_in_flight_ == 0 && !current_job_.isEmpty()) fetch_snapshot();

    if (findings_changed || snapshot) {
        QHash<int, QStringList> kinds;
        for (const FindingRow& f : findings_.findings())
            for (int r : f.ranks)
                if (!kinds[r].contains(f.kind)) kinds[r] << f.kind;
        ranks_.setFindingKinds(kinds);
        update_highlight();
    }
    if (snapshot_part && snapshot_in_flight_ == 0) snapshot_loaded_ = true;
    if (ranks_changed || findings_changed || snapshot || jobs_.count() > 0) after_ranks_changed(snapshot);
    if (snapshot || ranks_changed) update_timeline();

    // Quiet means no rank changed state and no finding changed (heartbeats and re-polls are not news).
    if (state_counts_ != counts_before || findings_.findings() != findings_before) note_activity();
    if (snapshot_loaded_ && !settle_.isActive() && !settled_) settle_.start(settle_ms_);
    ++update_count_;
    emit gridChanged();
    emit updated();
}

void LiveSession::after_ranks_changed(bool snapshot) {
    const auto& rows = ranks_.ranks();
    QList<int> counts(static_cast<int>(rank_state_kind_count), 0);
    int seen = 0;
    int gpus = 0;
    for (const RankRow& r : rows) {
        ++counts[static_cast<int>(r.state)];
        if (r.state != RankStateKind::pending) ++seen;
        gpus = std::max(gpus, r.local_rank + 1);
    }
    histogram_.setRanks(rows);

    const JobRow* job = jobs_.find(current_job_);
    const int world = job && job->world_size > 0 ? static_cast<int>(job->world_size) : static_cast<int>(rows.size());
    std::optional<ReportedTopology> topology = job ? job->topology : std::nullopt;
    if (topology != topology_ || world != world_ || counts != state_counts_ || seen != seen_) {
        topology_ = topology;
        world_ = world;
        state_counts_ = counts;
        seen_ = seen;
        emit progressChanged();
    }

    GridLayout layout{topology, world, gpus > 0 ? gpus : 8};
    if (layout.topology && layout.topology->dp * layout.topology->cp != world) layout.topology.reset();
    if (!(layout == layout_)) {
        layout_ = layout;
        emit layoutChanged();
    }

    if (snapshot) {
        QSet<QString> seen_hosts;
        double origin = std::numeric_limits<double>::infinity();
        double horizon = -std::numeric_limits<double>::infinity();
        for (const RankRow& r : rows) {
            if (!r.host.isEmpty()) seen_hosts.insert(r.host);
            for (const PhaseTiming& p : r.timings)
                for (const auto& t : {p.started, p.done, p.failed})
                    if (t) {
                        origin = std::min(origin, *t);
                        horizon = std::max(horizon, *t);
                    }
        }
        origin_ = std::isfinite(origin) ? origin : 0;
        horizon_ = std::isfinite(horizon) ? horizon : 0;
        QStringList hosts(seen_hosts.begin(), seen_hosts.end());
        QCollator collator;
        collator.setNumericMode(true);  // node-2 before node-10
        std::sort(hosts.begin(), hosts.end(), collator);
        if (hosts != hosts_) {
            hosts_ = hosts;
            emit hostsChanged();
        }
    }
}

QString LiveSession::progressText() const {
    if (world_ <= 0) return tr("no ranks yet");
    return tr("%1 / %2 ready · %3 seen").arg(readyCount()).arg(world_).arg(seen_);
}

QString LiveSession::topologyText() const {
    if (!topology_) return {};
    return QStringLiteral("dp %1 · cp %2 · ep %3").arg(topology_->dp).arg(topology_->cp).arg(topology_->ep);
}

QStringList LiveSession::stateNames() const {
    return rank_state_names();
}

void LiveSession::selectRank(int rank) {
    if (rank != -1 && !ranks_.find(rank)) rank = -1;
    if (rank == selected_rank_) return;
    selected_rank_ = rank;
    update_timeline();
    emit selectedRankChanged();
    emit gridChanged();
}

QString LiveSession::selectedRankText() const {
    const RankRow* r = ranks_.find(selected_rank_);
    if (!r) return {};
    QStringList parts{tr("rank %1").arg(r->rank)};
    if (!r->host.isEmpty()) parts << r->host;
    if (r->local_rank >= 0) parts << tr("local rank %1").arg(r->local_rank);
    const QString state = name_of(r->state);
    parts << (r->phase.isEmpty() ? state : tr("%1 (%2 %3)").arg(state, r->phase, r->status));
    QString text = parts.join(QStringLiteral(" · "));
    if (r->topology)
        text += tr("\nreports dp %1 · cp %2 · ep %3").arg(r->topology->dp).arg(r->topology->cp).arg(r->topology->ep);
    if (!r->findings.isEmpty()) text += tr("\nfindings: %1").arg(r->findings.join(QStringLiteral(", ")));
    if (!r->error.isEmpty()) text += tr("\nerror: %1").arg(r->error);
    return text;
}

void LiveSession::update_timeline() {
    timeline_.setRank(ranks_.find(selected_rank_), origin_, horizon_);
}

void LiveSession::selectFinding(int row) {
    if (row < 0 || row >= findings_.count()) row = -1;
    const QString id = row < 0 ? QString() : findings_.findings()[static_cast<std::size_t>(row)].id;
    if (row == selected_finding_ && id == selected_finding_id_) return;
    selected_finding_id_ = id;
    selected_finding_ = row;
    highlighted_ = row < 0 ? QList<int>() : findings_.findings()[static_cast<std::size_t>(row)].ranks;
    emit selectedFindingChanged();
    emit gridChanged();
}

void LiveSession::update_highlight() {
    if (selected_finding_id_.isEmpty()) return;
    const int row = findings_.rowOf(selected_finding_id_);
    const QList<int> ranks = row < 0 ? QList<int>() : findings_.findings()[static_cast<std::size_t>(row)].ranks;
    if (row < 0) selected_finding_id_.clear();
    if (row == selected_finding_ && ranks == highlighted_) return;
    selected_finding_ = row;
    highlighted_ = ranks;
    emit selectedFindingChanged();
}

bool LiveSession::isHighlighted(int rank) const {
    return std::binary_search(highlighted_.begin(), highlighted_.end(), rank);
}

QString LiveSession::stateOf(int rank) const {
    const RankRow* r = ranks_.find(rank);
    return r ? name_of(r->state) : QString();
}

void LiveSession::clearFilters() {
    filtered_.setStateFilter(-1);
    filtered_.setHostFilter(QString());
}

void LiveSession::setSettleMs(int ms) {
    if (ms == settle_ms_) return;
    settle_ms_ = ms;
    emit settleMsChanged();
}

void LiveSession::setPollIntervalMs(int ms) {
    if (ms == poll_.interval()) return;
    poll_.setInterval(std::max(50, ms));
    emit pollIntervalMsChanged();
}

void LiveSession::note_activity() {
    set_settled(false);
    settle_.start(settle_ms_);
}

void LiveSession::set_settled(bool settled) {
    if (settled == settled_) return;
    settled_ = settled;
    emit settledChanged();
}

}  // namespace meshscope::ui
