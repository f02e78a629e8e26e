// LiveSelection: what the user points at in the watched Job: the filters of the rank list and grid, the
// selected rank and the selected finding (whose ranks the grid highlights). Rows are numbers into the
// LiveView's models; a selection that no longer exists clears itself.
//
//   session.selection.stateFilter = RankState.Failed   // -1: any state
//   session.selection.togglePlace("no record")          // a place of the job's hang; again: any place
//   session.selection.selectedFinding = 0              // its ranks become highlightedRanks
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QList>
#include <QObject>
#include <QString>

namespace meshscope::ui {

class LiveView;

class LiveSelection : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("LiveSelection belongs to a LiveSession: session.selection")
    Q_PROPERTY(int stateFilter READ stateFilter WRITE setStateFilter NOTIFY filterChanged)  // RankState; -1: any
    Q_PROPERTY(QString hostFilter READ hostFilter WRITE setHostFilter NOTIFY filterChanged)
    // A place of the job's hang (RankFilterModel::placeChoices: a summary place's text, or "root cause"); "": any
    Q_PROPERTY(QString placeFilter READ placeFilter WRITE setPlaceFilter NOTIFY filterChanged)
    Q_PROPERTY(int selectedRank READ selectedRank WRITE selectRank NOTIFY selectedRankChanged)  // -1: none
    Q_PROPERTY(QString selectedRankText READ selectedRankText NOTIFY selectedRankChanged)
    Q_PROPERTY(int selectedFinding READ selectedFinding WRITE selectFinding NOTIFY selectedFindingChanged)
    Q_PROPERTY(QList<int> highlightedRanks READ highlightedRanks NOTIFY selectedFindingChanged)

public:
    explicit LiveSelection(LiveView& view, QObject* parent = nullptr);

    [[nodiscard]] int stateFilter() const;
    void setStateFilter(int state);
    [[nodiscard]] QString hostFilter() const;
    void setHostFilter(const QString& host);
    [[nodiscard]] QString placeFilter() const;
    void setPlaceFilter(const QString& place);
    // A click on a place (the legend, the summary): keep its ranks, or, when it is the place kept, any place.
    Q_INVOKABLE void togglePlace(const QString& place);
    Q_INVOKABLE void clearFilters();

    [[nodiscard]] int selectedRank() const { return selected_rank_; }
    void selectRank(int rank);  // a rank of the Job; anything else clears
    [[nodiscard]] QString selectedRankText() const;
    [[nodiscard]] int selectedFinding() const { return selected_finding_; }
    // A row of the view's findings; -1 clears. Its ranks become highlightedRanks.
    void selectFinding(int row);
    [[nodiscard]] QList<int> highlightedRanks() const { return highlighted_; }
    [[nodiscard]] Q_INVOKABLE bool isHighlighted(int rank) const;

    // For LiveSession: a new Job (nothing selected), and the findings changed (the selected one is followed
    // by its id: it may move to another row, change its ranks or go away).
    void clear();
    void followFindings();

signals:
    void filterChanged();
    void selectedRankChanged();
    void selectedFindingChanged();

private:
    LiveView& view_;
    int selected_rank_ = -1;
    int selected_finding_ = -1;
    QString selected_finding_id_;
    QList<int> highlighted_;
};

}  // namespace meshscope::ui
