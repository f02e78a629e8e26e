// RankFilterModel: the ranks that pass the Live page's filters (a state, a host, a place of the job's hang; empty
// means any). The grid uses the same test (matches) to fade the ranks the filter hides, so list and grid always
// agree.
//
// A place is one entry of the job's hang summary (core's HangPlace), named by its text ("waiting in ep seq 2
// (all_to_all)", "no record"), or "root cause": the ranks a verdict names. A rank stands in a place by core's rule
// (stands_in), so the ranks a place keeps are the ranks the summary counts there.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QSortFilterProxyModel>
#include <QStringList>

#include <optional>

#include "live_enums.h"
#include "live_rows.h"
#include "meshscope/monitor/hang_place.h"

namespace meshscope::ui {

class RankFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("RankFilterModel belongs to a LiveSession")
    // A RankState value; -1 (or any other value that is no state) means any state.
    Q_PROPERTY(int stateFilter READ stateFilter WRITE setStateFilter NOTIFY filterChanged)
    Q_PROPERTY(QString hostFilter READ hostFilter WRITE setHostFilter NOTIFY filterChanged)
    // One of placeChoices; empty: any place. A name that is none of them is refused (the filter stays as it was).
    Q_PROPERTY(QString placeFilter READ placeFilter WRITE setPlaceFilter NOTIFY filterChanged)
    // The places of the job's hang summary (their texts, in its order), then "root cause" when a verdict names a
    // rank; empty for a job without one.
    Q_PROPERTY(QStringList placeChoices READ placeChoices NOTIFY placesChanged)
    Q_PROPERTY(bool active READ active NOTIFY filterChanged)
    Q_PROPERTY(int count READ count NOTIFY countChanged)

public:
    explicit RankFilterModel(QObject* parent = nullptr);

    [[nodiscard]] int stateFilter() const { return state_ ? static_cast<int>(*state_) : -1; }
    void setStateFilter(int state);
    [[nodiscard]] QString hostFilter() const { return host_; }
    void setHostFilter(const QString& host);
    [[nodiscard]] QString placeFilter() const { return place_; }
    void setPlaceFilter(const QString& place);
    [[nodiscard]] QStringList placeChoices() const { return choices_; }
    [[nodiscard]] bool active() const { return state_ || !host_.isEmpty() || !place_.isEmpty(); }
    [[nodiscard]] int count() const { return rowCount(); }

    // The choice that keeps the root cause's ranks.
    [[nodiscard]] static QString rootCauseChoice() { return QStringLiteral("root cause"); }

    // The selected job's hang summary (none: no places). A place filter the new summary has no place for is dropped.
    void setPlaces(const std::optional<HangSummary>& summary);

    [[nodiscard]] bool matches(const RankRow& row) const {
        return (!state_ || row.state == *state_) && (host_.isEmpty() || row.host == host_) && in_place(row);
    }

signals:
    void filterChanged();
    void countChanged();
    void placesChanged();

protected:
    [[nodiscard]] bool filterAcceptsRow(int source_row, const QModelIndex& source_parent) const override;

private:
    [[nodiscard]] bool in_place(const RankRow& row) const;
    [[nodiscard]] const HangPlace* place_named(const QString& text) const;
    void filter_again();

    std::optional<RankStateKind> state_;
    QString host_;
    QString place_;                    // the choice; empty: any
    std::optional<HangPlace> chosen_;  // the summary's place it names (none for "root cause" or any)
    std::vector<HangPlace> places_;    // the summary's places
    QStringList choices_;
};

}  // namespace meshscope::ui
