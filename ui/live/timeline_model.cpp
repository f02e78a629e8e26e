#include "timeline_model.h"

#include <algorithm>

#include "live_enums.h"

namespace meshscope::ui {

namespace {
using R = TimelineRow;
constexpr RowRole<R> roles[] = {
    {TimelineModel::PhaseRole, "phase", [](const R& r) -> QVariant { return name_of(r.phase); }},
    {TimelineModel::StatusRole, "status", [](const R& r) -> QVariant { return name_of(r.status); }},
    {TimelineModel::StartRole, "start", [](const R& r) -> QVariant { return r.start; }},
    {TimelineModel::EndRole, "end", [](const R& r) -> QVariant { return r.end; }},
    {TimelineModel::DurationRole, "duration", [](const R& r) -> QVariant { return r.duration; }},
    {TimelineModel::StartFractionRole, "startFraction", [](const R& r) -> QVariant { return r.start_fraction; }},
    {TimelineModel::WidthFractionRole, "widthFraction", [](const R& r) -> QVariant { return r.width_fraction; }},
    {TimelineModel::TextRole, "text",
     [](const R& r) -> QVariant {
         return r.duration >= 0 ? QStringLiteral("+%1 s, took %2 s").arg(r.start, 0, 'f', 2).arg(r.duration, 0, 'f', 2)
                                : QStringLiteral("+%1 s, %2").arg(r.start, 0, 'f', 2).arg(name_of(r.status));
     }},
};
static_assert(roles_in_order(roles));
}  // namespace

TimelineModel::TimelineModel(QObject* parent) : RowListModel(roles, PhaseRole, parent) {}

void TimelineModel::setRank(const RankRow* rank, double origin, double horizon) {
    const int new_rank = rank ? rank->rank : -1;
    const double new_span = std::max(0.0, horizon - origin);
    const double axis = new_span > 0 ? new_span : 1.0;
    std::vector<TimelineRow> rows;
    if (rank) {
        for (std::size_t i = 0; i < phase_count; ++i) {
            const PhaseTiming& p = rank->timings[i];
            if (!p.seen()) continue;
            TimelineRow row;
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
            row.start_fraction = std::clamp(row.start / axis, 0.0, 1.0);
            row.width_fraction = std::clamp((row.end - row.start) / axis, 0.004, 1.0);
            rows.push_back(row);
        }
    }
    if (rows == this->rows() && new_rank == rank_ && new_span == span_) return;
    setRows(std::move(rows), [&] {
        rank_ = new_rank;
        span_ = new_span;
    });
    emit rankChanged();
}

}  // namespace meshscope::ui
