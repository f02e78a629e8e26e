#include "timeline_model.h"

#include <algorithm>

#include "live_enums.h"

namespace meshscope::ui {

int TimelineModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : count();
}

QVariant TimelineModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const Row& row = rows_[static_cast<std::size_t>(index.row())];
    const double span = span_ > 0 ? span_ : 1.0;
    switch (role) {
        case Qt::DisplayRole:
        case PhaseRole: return name_of(row.phase);
        case StatusRole: return name_of(row.status);
        case StartRole: return row.start;
        case EndRole: return row.end;
        case DurationRole: return row.duration;
        case StartFractionRole: return std::clamp(row.start / span, 0.0, 1.0);
        case WidthFractionRole: return std::clamp((row.end - row.start) / span, 0.004, 1.0);
        case TextRole:
            return row.duration >= 0
                       ? QStringLiteral("+%1 s, took %2 s").arg(row.start, 0, 'f', 2).arg(row.duration, 0, 'f', 2)
                       : QStringLiteral("+%1 s, %2").arg(row.start, 0, 'f', 2).arg(name_of(row.status));
        default: return {};
    }
}

QHash<int, QByteArray> TimelineModel::roleNames() const {
    return {{PhaseRole, "phase"},
            {StatusRole, "status"},
            {StartRole, "start"},
            {EndRole, "end"},
            {DurationRole, "duration"},
            {StartFractionRole, "startFraction"},
            {WidthFractionRole, "widthFraction"},
            {TextRole, "text"}};
}

void TimelineModel::setRank(const RankRow* rank, double origin, double horizon) {
    std::vector<Row> rows;
    if (rank) {
        for (std::size_t i = 0; i < phase_count; ++i) {
            const PhaseTiming& p = rank->timings[i];
            if (!p.seen()) continue;
            Row row;
            row.phase = static_cast<Phase>(i);
            const double start = p.started.value_or(p.done.value_or(p.failed.value_or(origin)));
            row.start = start - origin;
            if (p.failed) {
                row.status = Status::failed;
                row.end = *p.failed - origin;
            } else if (p.done) {
                row.status = Status::done;
                row.end = *p.done - origin;
                if (const auto d = p.duration()) row.duration = *d;
            } else {
                row.status = Status::started;
                row.end = row.start;
            }
            row.end = std::max(row.end, row.start);
            rows.push_back(row);
        }
    }
    const int new_rank = rank ? rank->rank : -1;
    const double new_span = std::max(0.0, horizon - origin);
    if (rows == rows_ && new_rank == rank_ && new_span == span_) return;
    const bool count_changed = rows.size() != rows_.size();
    beginResetModel();
    rows_ = std::move(rows);
    rank_ = new_rank;
    span_ = new_span;
    endResetModel();
    if (count_changed) emit countChanged();
    emit rankChanged();
}

}  // namespace meshscope::ui
