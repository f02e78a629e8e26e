#include "ranks_model.h"

#include <algorithm>

#include "live_enums.h"

namespace meshscope::ui {

namespace {
// Where a rank stands in a hang, in core's words, and the dim a waiting rank waits in; empty without one.
QString place_text(const RankRow& row) {
    if (!row.position) return QString();
    QString place = QString::fromStdString(std::string(to_string(row.position->standing)));
    place.replace(QLatin1Char('_'), QLatin1Char(' '));
    if (row.position->standing == HangStanding::waiting && !row.position->dim.empty())
        place += QLatin1Char(' ') + QString::fromStdString(row.position->dim);
    return place;
}

using R = RankRow;
constexpr RowRole<R> roles[] = {
    {RanksModel::RankRole, "rank", [](const R& r) -> QVariant { return r.rank; }},
    {RanksModel::StateRole, "state", [](const R& r) -> QVariant { return name_of(r.state); }},
    {RanksModel::HostRole, "host", [](const R& r) -> QVariant { return r.host; }},
    {RanksModel::LocalRankRole, "localRank", [](const R& r) -> QVariant { return r.local_rank; }},
    {RanksModel::PhaseRole, "phase", [](const R& r) -> QVariant { return r.phase ? name_of(*r.phase) : QString(); }},
    {RanksModel::StatusRole, "status",
     [](const R& r) -> QVariant { return r.status ? name_of(*r.status) : QString(); }},
    {RanksModel::FindingsRole, "findings", [](const R& r) -> QVariant { return r.findings; }},
    {RanksModel::FindingsTextRole, "findingsText",
     [](const R& r) -> QVariant { return r.findings.join(QStringLiteral(", ")); }},
    {RanksModel::ErrorRole, "error", [](const R& r) -> QVariant { return r.error; }},
    {RanksModel::PlaceRole, "place", [](const R& r) -> QVariant { return place_text(r); }},
};
static_assert(roles_in_order(roles));
}  // namespace

RanksModel::RanksModel(QObject* parent) : RowListModel(roles, RankRole, parent) {}

void RanksModel::setRanks(std::vector<RankRow> rows) {
    // Same ranks: one dataChanged over the span that changed keeps views cheap at 16k ranks.
    updateRows(
        std::move(rows), [](const RankRow& a, const RankRow& b) { return a.rank == b.rank; }, RowChanges::span,
        [this] {
            index_.clear();
            index_.reserve(static_cast<qsizetype>(count()));
            for (std::size_t i = 0; i < ranks().size(); ++i) index_.insert(ranks()[i].rank, static_cast<int>(i));
        });
}

bool RanksModel::applyRankChange(int rank, std::optional<RankStateKind> state, std::optional<Phase> phase) {
    const int row = rowOf(rank);
    if (row < 0) return false;
    RankRow& r = rowAt(row);
    if ((!state || r.state == *state) && (!phase || r.phase == phase)) return true;
    if (state) r.state = *state;
    if (phase) r.phase = phase;
    emit_row_changed(row);
    return true;
}

void RanksModel::setFindingKinds(const QHash<int, QStringList>& kinds) {
    int first = -1;
    int last = -1;
    std::vector<RankRow>& rows = mutableRows();
    for (std::size_t i = 0; i < rows.size(); ++i) {
        QStringList k = kinds.value(rows[i].rank);
        if (k == rows[i].findings) continue;
        rows[i].findings = std::move(k);
        if (first < 0) first = static_cast<int>(i);
        last = static_cast<int>(i);
    }
    if (first >= 0) emit dataChanged(index(first), index(last), {FindingsRole, FindingsTextRole});
}

const RankRow* RanksModel::find(int rank) const {
    const int row = rowOf(rank);
    return row < 0 ? nullptr : &ranks()[static_cast<std::size_t>(row)];
}

void RanksModel::emit_row_changed(int row) {
    emit dataChanged(index(row), index(row));
}

}  // namespace meshscope::ui
