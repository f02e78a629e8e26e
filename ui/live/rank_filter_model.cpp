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

void RankFilterModel::filter_again() {
    invalidateFilter();
    emit filterChanged();
    emit countChanged();
}

void RankFilterModel::setStateFilter(int value) {
    const std::optional<RankStateKind> state = rank_state_of(value);
    if (state == state_) return;
    state_ = state;
    filter_again();
}

void RankFilterModel::setHostFilter(const QString& host) {
    if (host == host_) return;
    host_ = host;
    filter_again();
}

const HangPlace* RankFilterModel::place_named(const QString& text) const {
    const std::string wanted = text.toStdString();
    for (const HangPlace& p : places_)
        if (p.text == wanted) return &p;
    return nullptr;
}

void RankFilterModel::setPlaceFilter(const QString& place) {
    if (place == place_) return;
    if (!place.isEmpty() && !choices_.contains(place)) return;
    place_ = place;
    const HangPlace* named = place_named(place);
    chosen_ = named ? std::optional<HangPlace>(*named) : std::nullopt;
    filter_again();
}

void RankFilterModel::setPlaces(const std::optional<HangSummary>& summary) {
    std::vector<HangPlace> places = summary ? summary->places : std::vector<HangPlace>();
    QStringList choices;
    for (const HangPlace& p : places) choices << QString::fromStdString(p.text);
    if (summary && !summary->root_cause.empty()) choices << rootCauseChoice();
    if (places == places_ && choices == choices_) return;
    places_ = std::move(places);
    choices_ = choices;
    emit placesChanged();
    if (place_.isEmpty()) return;
    // The chosen place as the new summary has it (its ranks may have moved), or none: the filter is dropped.
    const HangPlace* named = place_named(place_);
    const bool kept = named || choices_.contains(place_);
    const std::optional<HangPlace> chosen = named ? std::optional<HangPlace>(*named) : std::nullopt;
    if (!kept) place_.clear();
    chosen_ = chosen;
    filter_again();
}

bool RankFilterModel::in_place(const RankRow& row) const {
    if (place_.isEmpty()) return true;
    if (!row.position) return false;
    if (!chosen_) return row.position->root_cause;  // the one choice that is not a place of the summary
    return stands_in(*row.position, *chosen_);
}

bool RankFilterModel::filterAcceptsRow(int source_row, const QModelIndex& source_parent) const {
    if (source_parent.isValid()) return false;
    const auto* ranks = qobject_cast<const RanksModel*>(sourceModel());
    if (!ranks || source_row < 0 || source_row >= ranks->count()) return false;
    return matches(ranks->ranks()[static_cast<std::size_t>(source_row)]);
}

}  // namespace meshscope::ui
