#include "live_selection.h"

#include <algorithm>

#include "live_enums.h"
#include "live_view.h"

namespace meshscope::ui {

LiveSelection::LiveSelection(LiveView& view, QObject* parent) : QObject(parent), view_(view) {
    connect(view_.filteredRanks(), &RankFilterModel::filterChanged, this, &LiveSelection::filterChanged);
}

int LiveSelection::stateFilter() const {
    return view_.rankFilter().stateFilter();
}

void LiveSelection::setStateFilter(int state) {
    view_.filteredRanks()->setStateFilter(state);
}

QString LiveSelection::hostFilter() const {
    return view_.rankFilter().hostFilter();
}

void LiveSelection::setHostFilter(const QString& host) {
    view_.filteredRanks()->setHostFilter(host);
}

QString LiveSelection::placeFilter() const {
    return view_.rankFilter().placeFilter();
}

void LiveSelection::setPlaceFilter(const QString& place) {
    view_.filteredRanks()->setPlaceFilter(place);
}

void LiveSelection::togglePlace(const QString& place) {
    setPlaceFilter(place == placeFilter() ? QString() : place);
}

void LiveSelection::clearFilters() {
    setStateFilter(-1);
    setHostFilter(QString());
    setPlaceFilter(QString());
}

void LiveSelection::selectRank(int rank) {
    if (rank != -1 && !view_.rankRows().find(rank)) rank = -1;
    if (rank == selected_rank_) return;
    selected_rank_ = rank;
    emit selectedRankChanged();
}

QString LiveSelection::selectedRankText() const {
    const RankRow* r = view_.rankRows().find(selected_rank_);
    if (!r) return {};
    QStringList parts{tr("rank %1").arg(r->rank)};
    if (!r->host.isEmpty()) parts << r->host;
    if (r->local_rank >= 0) parts << tr("local rank %1").arg(r->local_rank);
    // A rank known only from the job's records has no start-up state to tell ("pending" would be the hook's word);
    // where it stands follows, in the rank panel's position line.
    const QString state =
        r->position && r->state == RankStateKind::pending ? tr("from the records") : name_of(r->state);
    parts << (r->phase ? tr("%1 (%2 %3)").arg(state, name_of(*r->phase), r->status ? name_of(*r->status) : QString())
                       : state);
    QString text = parts.join(QStringLiteral(" · "));
    if (r->topology)
        text += tr("\nreports dp %1 · cp %2 · ep %3").arg(r->topology->dp).arg(r->topology->cp).arg(r->topology->ep);
    if (!r->findings.isEmpty()) text += tr("\nfindings: %1").arg(r->findings.join(QStringLiteral(", ")));
    if (!r->error.isEmpty()) text += tr("\nerror: %1").arg(r->error);
    return text;
}

void LiveSelection::selectFinding(int row) {
    const std::vector<FindingRow>& findings = view_.findingRows().findings();
    if (row < 0 || row >= static_cast<int>(findings.size())) row = -1;
    const QString id = row < 0 ? QString() : findings[static_cast<std::size_t>(row)].id;
    if (row == selected_finding_ && id == selected_finding_id_) return;
    selected_finding_id_ = id;
    selected_finding_ = row;
    highlighted_ = row < 0 ? QList<int>() : findings[static_cast<std::size_t>(row)].ranks;
    emit selectedFindingChanged();
}

void LiveSelection::followFindings() {
    if (selected_finding_id_.isEmpty()) return;
    const int row = view_.findingRows().rowOf(selected_finding_id_);
    const QList<int> ranks =
        row < 0 ? QList<int>() : view_.findingRows().findings()[static_cast<std::size_t>(row)].ranks;
    if (row < 0) selected_finding_id_.clear();
    if (row == selected_finding_ && ranks == highlighted_) return;
    selected_finding_ = row;
    highlighted_ = ranks;
    emit selectedFindingChanged();
}

bool LiveSelection::isHighlighted(int rank) const {
    return std::binary_search(highlighted_.begin(), highlighted_.end(), rank);
}

void LiveSelection::clear() {
    selected_rank_ = -1;
    selected_finding_ = -1;
    selected_finding_id_.clear();
    highlighted_.clear();
    emit selectedRankChanged();
    emit selectedFindingChanged();
}

}  // namespace meshscope::ui
