// LiveView: what the Live page shows of the watched Job, read-only for QML: the connection's state, the
// models the views bind to, the progress counts, the hosts and the grid's layout. LiveSession fills it from
// the collector's snapshots and change stream, once per coalesced update.
//
//   ListView { model: session.view.findings }   // and jobs, filteredRanks, timeline, phaseHistogram
//   ProgressBar { to: session.view.worldSize; value: session.view.readyCount }
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QObject>

#include <optional>
#include <vector>

#include "findings_model.h"
#include "hang_summary_model.h"
#include "jobs_model.h"
#include "live_rows.h"
#include "phase_histogram_model.h"
#include "rank_filter_model.h"
#include "rank_position_model.h"
#include "ranks_model.h"
#include "timeline_model.h"

namespace meshscope::ui {

class LiveView : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("LiveView belongs to a LiveSession: session.view")
    Q_PROPERTY(bool connected READ connected NOTIFY connectionChanged)  // the latest request succeeded
    Q_PROPERTY(bool streaming READ streaming NOTIFY connectionChanged)  // the change stream is open
    Q_PROPERTY(QString statusText READ statusText NOTIFY connectionChanged)
    Q_PROPERTY(meshscope::ui::JobsModel* jobs READ jobs CONSTANT)
    Q_PROPERTY(meshscope::ui::RanksModel* ranks READ ranks CONSTANT)
    Q_PROPERTY(meshscope::ui::RankFilterModel* filteredRanks READ filteredRanks CONSTANT)
    Q_PROPERTY(meshscope::ui::FindingsModel* findings READ findings CONSTANT)
    Q_PROPERTY(meshscope::ui::TimelineModel* timeline READ timeline CONSTANT)
    Q_PROPERTY(meshscope::ui::PhaseHistogramModel* phaseHistogram READ phaseHistogram CONSTANT)
    // A job whose records show a hang: its post-mortem (hang.active), and where the selected rank stands.
    Q_PROPERTY(meshscope::ui::HangSummaryModel* hang READ hang CONSTANT)
    Q_PROPERTY(meshscope::ui::RankPositionModel* position READ position CONSTANT)
    Q_PROPERTY(int worldSize READ worldSize NOTIFY progressChanged)
    Q_PROPERTY(int readyCount READ readyCount NOTIFY progressChanged)
    Q_PROPERTY(int seenCount READ seenCount NOTIFY progressChanged)
    Q_PROPERTY(double progress READ progress NOTIFY progressChanged)            // ready / world, 0..1
    Q_PROPERTY(QString progressText READ progressText NOTIFY progressChanged)   // "58 / 64 ready · 63 seen"
    Q_PROPERTY(QString topologyText READ topologyText NOTIFY progressChanged)   // "dp 32 · cp 2 · ep 8"
    Q_PROPERTY(QList<int> stateCounts READ stateCounts NOTIFY progressChanged)  // index: RankState value
    Q_PROPERTY(QStringList stateNames READ stateNames CONSTANT)                 // core's, index: RankState value
    // Ranks without a position, by state (the grid keeps their state colour); index: RankState value.
    Q_PROPERTY(QList<int> unplacedStateCounts READ unplacedStateCounts NOTIFY progressChanged)
    Q_PROPERTY(QStringList hosts READ hosts NOTIFY hostsChanged)
    Q_PROPERTY(bool settled READ settled NOTIFY settledChanged)  // loaded, and quiet for inputs.settleMs
    Q_PROPERTY(int updateCount READ updateCount NOTIFY updated)  // coalesced model updates so far

public:
    explicit LiveView(QObject* parent = nullptr);

    [[nodiscard]] bool connected() const { return connected_; }
    [[nodiscard]] bool streaming() const { return streaming_; }
    [[nodiscard]] QString statusText() const;

    [[nodiscard]] JobsModel* jobs() { return &jobs_; }
    [[nodiscard]] RanksModel* ranks() { return &ranks_; }
    [[nodiscard]] RankFilterModel* filteredRanks() { return &filtered_; }
    [[nodiscard]] FindingsModel* findings() { return &findings_; }
    [[nodiscard]] TimelineModel* timeline() { return &timeline_; }
    [[nodiscard]] PhaseHistogramModel* phaseHistogram() { return &histogram_; }
    [[nodiscard]] HangSummaryModel* hang() { return &hang_; }
    [[nodiscard]] RankPositionModel* position() { return &position_; }
    [[nodiscard]] const HangSummaryModel& hangSummary() const { return hang_; }
    [[nodiscard]] const JobsModel& jobRows() const { return jobs_; }
    [[nodiscard]] const RanksModel& rankRows() const { return ranks_; }
    [[nodiscard]] const RankFilterModel& rankFilter() const { return filtered_; }
    [[nodiscard]] const FindingsModel& findingRows() const { return findings_; }

    [[nodiscard]] int worldSize() const { return world_; }
    [[nodiscard]] int readyCount() const { return countOf(RankStateKind::ready); }
    [[nodiscard]] int seenCount() const { return seen_; }
    [[nodiscard]] double progress() const { return world_ > 0 ? static_cast<double>(readyCount()) / world_ : 0.0; }
    [[nodiscard]] QString progressText() const;
    [[nodiscard]] QString topologyText() const;
    [[nodiscard]] QList<int> stateCounts() const { return state_counts_; }
    [[nodiscard]] int countOf(RankStateKind state) const { return state_counts_.value(static_cast<int>(state)); }
    [[nodiscard]] QStringList stateNames() const;
    [[nodiscard]] QList<int> unplacedStateCounts() const { return unplaced_counts_; }
    [[nodiscard]] QStringList hosts() const { return hosts_; }
    [[nodiscard]] bool settled() const { return settled_; }
    [[nodiscard]] int updateCount() const { return update_count_; }
    // A RankState value; -1 for no such rank.
    [[nodiscard]] Q_INVOKABLE int stateOf(int rank) const;

    // The layout the grid draws: the job's topology when it has one that fits its world, and the hosts' GPUs.
    struct GridLayout {
        std::optional<ReportedTopology> topology;
        std::int64_t world = 0;
        std::int64_t gpus_per_node = 8;
        friend bool operator==(const GridLayout&, const GridLayout&) = default;
    };
    [[nodiscard]] GridLayout gridLayout() const { return layout_; }
    // The job's earliest and latest timestamps (sender's clock), so the ranks' timelines compare.
    [[nodiscard]] double origin() const { return origin_; }
    [[nodiscard]] double horizon() const { return horizon_; }

    // For LiveSession. The url is "" when no collector is set; error is the latest request's.
    void setConnection(const QString& url, bool connected, bool streaming, const QString& error);
    // Counts, world, layout from the rank rows and the selected Job's summary (null: not listed); hosts and
    // the time axis only from a snapshot (stream deltas carry neither).
    void takeRanks(const JobRow* job, bool snapshot);
    void setSettled(bool settled);
    void countUpdate();

signals:
    void connectionChanged();
    void progressChanged();
    void hostsChanged();
    void settledChanged();
    void updated();        // after each coalesced update of the models
    void layoutChanged();  // the grid's layout (topology, world, gpus per node) changed

private:
    void take_hosts_and_times();

    JobsModel jobs_;
    RanksModel ranks_;
    RankFilterModel filtered_;
    FindingsModel findings_;
    TimelineModel timeline_;
    PhaseHistogramModel histogram_;
    HangSummaryModel hang_;
    RankPositionModel position_;

    QString url_;
    bool connected_ = false;
    bool streaming_ = false;
    QString error_;
    int world_ = 0;
    int seen_ = 0;
    QList<int> state_counts_;
    QList<int> unplaced_counts_;
    std::optional<ReportedTopology> topology_;
    QStringList hosts_;
    GridLayout layout_;
    double origin_ = 0;
    double horizon_ = 0;
    bool settled_ = false;
    int update_count_ = 0;
};

}  // namespace meshscope::ui
