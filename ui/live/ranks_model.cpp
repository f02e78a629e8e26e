#include "ranks_model.h"

#include <algorithm>

#include "live_enums.h"

namespace meshscope::ui {

int RanksModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : count();
}

QVariant RanksModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const RankRow& row = rows_[static_cast<std::size_t>(index.row())];
    switch (role) {
        case Qt::DisplayRole:
        case RankRole: return row.rank;
        case StateRole: return name_of(row.state);
        case HostRole: return row.host;
        case LocalRankRole: return row.local_rank;
        case PhaseRole: return row.phase ? name_of(*row.phase) : QString();
        case StatusRole: return row.status ? name_of(*row.status) : QString();
        case FindingsRole: return row.findings;
        case FindingsTextRole: return row.findings.join(QStringLiteral(", "));
        case ErrorRole: return row.error;
        case PlaceRole: {
            if (!row.position) return QString();
            // Core's standing name in words, and the dim a waiting rank waits in.
            QString place = QString::fromStdString(std::string(to_string(row.position->standing)));
            place.replace(QLatin1Char('_'), QLatin1Char(' '));
            if (row.position->standing == HangStanding::waiting && !row.position->dim.empty())
                place += QLatin1Char(' ') + QString::fromStdString(row.position->dim);
            return place;
        }
        default: return {};
    }
}

QHash<int, QByteArray> RanksModel::roleNames() const {
    return {
        {RankRole, "rank"},   {StateRole, "state"},   {HostRole, "host"},         {LocalRankRole, "localRank"},
        {PhaseRole, "phase"}, {StatusRole, "status"}, {FindingsRole, "findings"}, {FindingsTextRole, "findingsText"},
        {ErrorRole, "error"}, {PlaceRole, "place"}};
}

void RanksModel::setRanks(std::vector<RankRow> rows) {
    const bool same_ranks = std::equal(rows.begin(), rows.end(), rows_.begin(), rows_.end(),
                                       [](const RankRow& a, const RankRow& b) { return a.rank == b.rank; });
    if (!same_ranks) {
        const bool count_changed = rows.size() != rows_.size();
        beginResetModel();
        rows_ = std::move(rows);
        index_.clear();
        index_.reserve(static_cast<qsizetype>(rows_.size()));
        for (std::size_t i = 0; i < rows_.size(); ++i) index_.insert(rows_[i].rank, static_cast<int>(i));
        endResetModel();
        if (count_changed) emit countChanged();
        return;
    }
    // Same ranks: one dataChanged over the span that changed keeps views cheap at 16k ranks.
    int first = -1;
    int last = -1;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows[i] == rows_[i]) continue;
        rows_[i] = std::move(rows[i]);
        if (first < 0) first = static_cast<int>(i);
        last = static_cast<int>(i);
    }
    if (first >= 0) emit dataChanged(index(first), index(last));
}

bool RanksModel::applyRankChange(int rank, std::optional<RankStateKind> state, std::optional<Phase> phase) {
    const int row = rowOf(rank);
    if (row < 0) return false;
    RankRow& r = rows_[static_cast<std::size_t>(row)];
    if ((!state || r.state == *state) && (!phase || r.phase == phase)) return true;
    if (state) r.state = *state;
    if (phase) r.phase = phase;
    emit_row_changed(row);
    return true;
}

void RanksModel::setFindingKinds(const QHash<int, QStringList>& kinds) {
    int first = -1;
    int last = -1;
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        QStringList k = kinds.value(rows_[i].rank);
        if (k == rows_[i].findings) continue;
        rows_[i].findings = std::move(k);
        if (first < 0) first = static_cast<int>(i);
        last = static_cast<int>(i);
    }
    if (first >= 0) emit dataChanged(index(first), index(last), {FindingsRole, FindingsTextRole});
}

const RankRow* RanksModel::find(int rank) const {
    const int row = rowOf(rank);
    return row < 0 ? nullptr : &rows_[static_cast<std::size_t>(row)];
}

void RanksModel::emit_row_changed(int row) {
    emit dataChanged(index(row), index(row));
}

}  // namespace meshscope::ui
