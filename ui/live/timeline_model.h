// TimelineModel: the selected rank's phases in order, when each started and ended (sender's clock,
// relative to the job's first report), as rows a QML view draws as bars on a shared time axis.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QAbstractListModel>

#include <vector>

#include "live_rows.h"

namespace meshscope::ui {

class TimelineModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("TimelineModel belongs to a LiveSession")
    Q_PROPERTY(int count READ count NOTIFY countChanged)
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

    using QAbstractListModel::QAbstractListModel;

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
    [[nodiscard]] QHash<int, QByteArray> roleNames() const override;
    [[nodiscard]] int count() const { return static_cast<int>(rows_.size()); }
    [[nodiscard]] int rank() const { return rank_; }
    [[nodiscard]] double span() const { return span_; }

    // origin / horizon: the job's earliest and latest timestamps, so timelines of ranks compare.
    void setRank(const RankRow* rank, double origin, double horizon);

signals:
    void countChanged();
    void rankChanged();

private:
    struct Row {
        Phase phase = Phase::launch;
        Status status = Status::started;
        double start = 0;
        double end = 0;
        double duration = -1;
        friend bool operator==(const Row&, const Row&) = default;
    };
    std::vector<Row> rows_;
    int rank_ = -1;
    double span_ = 0;
};

}  // namespace meshscope::ui
