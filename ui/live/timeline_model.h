// TimelineModel: the selected rank's phases in order, when each started and ended (sender's clock,
// relative to the job's first report), as rows a QML view draws as bars on a shared time axis.
#pragma once

#include <QtQml/qqmlregistration.h>

#include <vector>

#include "live_rows.h"
#include "row_list_model.h"

namespace meshscope::ui {

struct TimelineRow {
    Phase phase = Phase::launch;
    Status status = Status::started;
    double start = 0;
    double end = 0;
    double duration = -1;
    double start_fraction = 0;  // on the axis
    double width_fraction = 0;
    friend bool operator==(const TimelineRow&, const TimelineRow&) = default;
};

class TimelineModel : public MESHSCOPE_ROW_LIST_MODEL(TimelineRow) {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("TimelineModel belongs to a LiveSession")
    Q_PROPERTY(int rank READ rank NOTIFY rankChanged)     // -1: no rank selected
    Q_PROPERTY(double span READ span NOTIFY rankChanged)  // seconds the axis covers

public:
    enum Role {
        PhaseRole = Qt::UserRole + 1,
        StatusRole,         // "done", "failed", "started" (still running)
        StartRole,          // seconds after the job's first report
        EndRole,            // seconds; equals start when still running
        DurationRole,       // seconds, -1 when not finished
        StartFractionRole,  // 0..1 on the axis
        WidthFractionRole,  // 0..1, at least a sliver so instant phases show
        TextRole,           // "+1.20 s, 0.30 s"
    };
    Q_ENUM(Role)

    explicit TimelineModel(QObject* parent = nullptr);
    [[nodiscard]] int rank() const { return rank_; }
    [[nodiscard]] double span() const { return span_; }

    // origin / horizon: the job's earliest and latest timestamps, so timelines of ranks compare.
    void setRank(const RankRow* rank, double origin, double horizon);

signals:
    void rankChanged();

private:
    int rank_ = -1;
    double span_ = 0;
};

}  // namespace meshscope::ui
