// LiveSession: the Live page's state — which collector, which Job, what is selected and filtered — and the
// models the page's views bind to. One data path whether the collector is embedded or remote: everything
// comes from LiveClient (HTTP snapshots + the WebSocket change stream).
//
//   LiveSession { id: live; url: "http://127.0.0.1:7077" }
//   ListView { model: live.findings }   // and live.jobs, live.filteredRanks, live.timeline, live.phaseHistogram
//
// Updates are coalesced: stream messages and snapshots are buffered and applied to the models at most
// once per `minUpdateIntervalMs` (33 ms: <= ~30 updates/s), however fast the job reports. Snapshots are
// refetched every `pollIntervalMs` for what the stream does not carry (hosts, timings, job counts) and so
// that a dropped stream only delays the page. Snapshots are parsed into rows on a worker thread
// (LiveClient::getRows); the GUI thread only applies ready rows to the models.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <optional>
#include <vector>

#include "findings_model.h"
#include "jobs_model.h"
#include "live_client.h"
#include "live_rows.h"
#include "phase_histogram_model.h"
#include "rank_filter_model.h"
#include "ranks_model.h"
#include "timeline_model.h"

namespace meshscope::ui {

class LiveSession : public QObject {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QString url READ url WRITE setUrl NOTIFY serverChanged)
    Q_PROPERTY(QString token READ token WRITE setToken NOTIFY serverChanged)
    Q_PROPERTY(bool connected READ connected NOTIFY connectionChanged)  // the latest request succeeded
    Q_PROPERTY(bool streaming READ streaming NOTIFY connectionChanged)  // the change stream is open
    Q_PROPERTY(QString statusText READ statusText NOTIFY connectionChanged)
    Q_PROPERTY(JobsModel* jobs READ jobs CONSTANT)
    Q_PROPERTY(RanksModel* ranks READ ranks CONSTANT)
    Q_PROPERTY(RankFilterModel* filteredRanks READ filteredRanks CONSTANT)
    Q_PROPERTY(FindingsModel* findings READ findings CONSTANT)
    Q_PROPERTY(TimelineModel* timeline READ timeline CONSTANT)
    Q_PROPERTY(PhaseHistogramModel* phaseHistogram READ phaseHistogram CONSTANT)
    Q_PROPERTY(QString currentJob READ currentJob WRITE setCurrentJob NOTIFY currentJobChanged)
    Q_PROPERTY(int worldSize READ worldSize NOTIFY progressChanged)
    Q_PROPERTY(int readyCount READ readyCount NOTIFY progressChanged)
    Q_PROPERTY(int seenCount READ seenCount NOTIFY progressChanged)
    Q_PROPERTY(double progress READ progress NOTIFY progressChanged)            // ready / world, 0..1
    Q_PROPERTY(QString progressText READ progressText NOTIFY progressChanged)   // "58 / 64 ready · 63 seen"
    Q_PROPERTY(QString topologyText READ topologyText NOTIFY progressChanged)   // "dp 32 · cp 2 · ep 8"
    Q_PROPERTY(QList<int> stateCounts READ stateCounts NOTIFY progressChanged)  // index: RankState value
    Q_PROPERTY(QStringList stateNames READ stateNames CONSTANT)                 // core's, index: RankState value
    Q_PROPERTY(QStringList hosts READ hosts NOTIFY hostsChanged)
    Q_PROPERTY(int stateFilter READ stateFilter WRITE setStateFilter NOTIFY filterChanged)  // RankState; -1: any
    Q_PROPERTY(QString hostFilter READ hostFilter WRITE setHostFilter NOTIFY filterChanged)
    Q_PROPERTY(int selectedRank READ selectedRank WRITE selectRank NOTIFY selectedRankChanged)
    Q_PROPERTY(QString selectedRankText READ selectedRankText NOTIFY selectedRankChanged)
    Q_PROPERTY(int selectedFinding READ selectedFinding WRITE selectFinding NOTIFY selectedFindingChanged)
    Q_PROPERTY(QList<int> highlightedRanks READ highlightedRanks NOTIFY selectedFindingChanged)
    Q_PROPERTY(bool settled READ settled NOTIFY settledChanged)  // loaded, and quiet for settleMs
    Q_PROPERTY(int settleMs READ settleMs WRITE setSettleMs NOTIFY settleMsChanged)
    Q_PROPERTY(int pollIntervalMs READ pollIntervalMs WRITE setPollIntervalMs NOTIFY pollIntervalMsChanged)
    Q_PROPERTY(int updateCount READ updateCount NOTIFY updated)  // coalesced model updates so far

public:
    static constexpr int minUpdateIntervalMs = 33;

    explicit LiveSession(QObject* parent = nullptr);
    ~LiveSession() override;

    [[nodiscard]] QString url() const { return url_; }
    void setUrl(const QString& url);
    [[nodiscard]] QString token() const { return token_; }
    void setToken(const QString& token);
    [[nodiscard]] bool connected() const { return connected_; }
    [[nodiscard]] bool streaming() const { return client_.streaming(); }
    [[nodiscard]] QString statusText() const;

    [[nodiscard]] JobsModel* jobs() { return &jobs_; }
    [[nodiscard]] RanksModel* ranks() { return &ranks_; }
    [[nodiscard]] RankFilterModel* filteredRanks() { return &filtered_; }
    [[nodiscard]] FindingsModel* findings() { return &findings_; }
    [[nodiscard]] TimelineModel* timeline() { return &timeline_; }
    [[nodiscard]] PhaseHistogramModel* phaseHistogram() { return &histogram_; }
    [[nodiscard]] const RanksModel& rankRows() const { return ranks_; }
    [[nodiscard]] const RankFilterModel& rankFilter() const { return filtered_; }
    [[nodiscard]] const FindingsModel& findingRows() const { return findings_; }

    [[nodiscard]] QString currentJob() const { return current_job_; }
    void setCurrentJob(const QString& job);

    [[nodiscard]] int worldSize() const { return world_; }
    [[nodiscard]] int readyCount() const { return state_counts_.value(static_cast<int>(RankStateKind::ready)); }
    [[nodiscard]] int seenCount() const { return seen_; }
    [[nodiscard]] double progress() const { return world_ > 0 ? static_cast<double>(readyCount()) / world_ : 0.0; }
    [[nodiscard]] QString progressText() const;
    [[nodiscard]] QString topologyText() const;
    [[nodiscard]] QList<int> stateCounts() const { return state_counts_; }
    [[nodiscard]] QStringList stateNames() const;
    [[nodiscard]] QStringList hosts() const { return hosts_; }
    [[nodiscard]] int stateFilter() const { return filtered_.stateFilter(); }
    void setStateFilter(int state) { filtered_.setStateFilter(state); }
    [[nodiscard]] QString hostFilter() const { return filtered_.hostFilter(); }
    void setHostFilter(const QString& host) { filtered_.setHostFilter(host); }

    [[nodiscard]] int selectedRank() const { return selected_rank_; }
    void selectRank(int rank);
    [[nodiscard]] QString selectedRankText() const;
    [[nodiscard]] int selectedFinding() const { return selected_finding_; }
    // A row of `findings`; -1 clears. Its ranks become highlightedRanks.
    void selectFinding(int row);
    [[nodiscard]] QList<int> highlightedRanks() const { return highlighted_; }
    [[nodiscard]] Q_INVOKABLE bool isHighlighted(int rank) const;

    [[nodiscard]] bool settled() const { return settled_; }
    [[nodiscard]] int settleMs() const { return settle_ms_; }
    void setSettleMs(int ms);
    [[nodiscard]] int pollIntervalMs() const { return poll_.interval(); }
    void setPollIntervalMs(int ms);
    [[nodiscard]] int updateCount() const { return update_count_; }

    // The layout the grid draws: the job's topology when it has one that fits its world, and the hosts' GPUs.
    struct GridLayout {
        std::optional<ReportedTopology> topology;
        std::int64_t world = 0;
        std::int64_t gpus_per_node = 8;
        friend bool operator==(const GridLayout&, const GridLayout&) = default;
    };
    [[nodiscard]] GridLayout gridLayout() const { return layout_; }

    Q_INVOKABLE void refresh();
    Q_INVOKABLE void clearFilters();
    [[nodiscard]] Q_INVOKABLE QString stateOf(int rank) const;  // core's name; "" for no such rank

signals:
    void serverChanged();
    void connectionChanged();
    void currentJobChanged();
    void progressChanged();
    void hostsChanged();
    void filterChanged();
    void selectedRankChanged();
    void selectedFindingChanged();
    void settledChanged();
    void settleMsChanged();
    void pollIntervalMsChanged();
    void updated();        // after each coalesced update of the models
    void gridChanged();    // the grid's layout or any rank's state or findings changed
    void layoutChanged();  // the grid's layout (topology, world, gpus per node) changed

private:
    void reconnect();
    void poll();
    void fetch_snapshot();
    void on_change(const nlohmann::json& message);
    void schedule_flush();
    void flush();
    void after_ranks_changed(bool layout_may_change);
    void update_highlight();
    void update_timeline();
    void set_connected(bool connected, const QString& error);
    void set_settled(bool settled);
    void note_activity();

    LiveClient client_;
    JobsModel jobs_;
    RanksModel ranks_;
    RankFilterModel filtered_;
    FindingsModel findings_;
    TimelineModel timeline_;
    PhaseHistogramModel histogram_;

    QString url_;
    QString token_;
    bool connected_ = false;
    QString error_;
    QString current_job_;
    bool user_chose_job_ = false;

    // Buffered until the next flush.
    std::optional<std::vector<JobRow>> pending_jobs_;
    std::optional<std::vector<RankRow>> pending_ranks_;
    std::optional<std::vector<FindingRow>> pending_findings_;
    std::vector<std::pair<std::uint64_t, LiveChange>> pending_changes_;  // with client_.changesReceived()
    std::uint64_t ranks_seq_ = 0;     // client_.changesReceived() when the pending ranks snapshot was answered
    std::uint64_t findings_seq_ = 0;  // same for the findings snapshot
    bool jobs_in_flight_ = false;
    int snapshot_in_flight_ = 0;  // requests of the current snapshot still out
    bool snapshot_loaded_ = false;
    int snapshot_generation_ = 0;

    QTimer flush_;
    QTimer poll_;
    QTimer settle_;
    QElapsedTimer since_flush_;

    int world_ = 0;
    int seen_ = 0;
    QList<int> state_counts_;
    std::optional<ReportedTopology> topology_;
    QStringList hosts_;
    GridLayout layout_;
    double origin_ = 0;
    double horizon_ = 0;
    int selected_rank_ = -1;
    int selected_finding_ = -1;
    QString selected_finding_id_;
    QList<int> highlighted_;
    bool settled_ = false;
    int settle_ms_ = 1500;
    int update_count_ = 0;
};

}  // namespace meshscope::ui
