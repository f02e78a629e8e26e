#include "rank_filter_model.h"

#include "ranks_model.h"

namespace meshscope::ui {

RankFilterModel::RankFilterModel(QObject* parent) : QSortFilterProxyModel(parent) {
    // State and phase change while the job runs: re-filter the rows that changed.
    setDynamicSortFilter(true);
    connect(this, &QAbstractItemModel::rowsInserted, this, &RankFilterModel::countChanged);
    connect(this, &QAbstractItemModel::rowsRemoved, this, &RankFilterModel::countChanged);
    connect(this, &QAbstractItemModel::modelReset, this, &RankFilterModel::countChanged);
    connect(this, &QAbstractItemModel::layoutChanged, this, &RankFilterModel::countChanged);
}

void RankFilterModel::setStateFilter(int value) {
    const std::optional<RankStateKind> state = rank_state_of(value);
    if (state == state_) return;
    state_ = state;
    invalidateFilter();
    emit filterChanged();
    emit countChanged();
}

void RankFilterModel::setHostFilter(const QString& host) {
    if (host == host_) return;
    host_ = host;
    invalidateFilter();
    emit filterChanged();
    emit countChanged();
}

bool RankFilterModel::filterAcceptsRow(int source_row, const QModelIndex& source_parent) const {
    if (source_parent.isValid()) return false;
    const auto* ranks = qobject_cast<const RanksModel*>(sourceModel());
    if (!ranks || source_row < 0 || source_row >= ranks->count()) return false;
    return matches(ranks->ranks()[static_cast<std::size_t>(source_row)]);
}

}  // namespace meshscope::ui
