// RankFilterModel: the ranks that pass the Live page's filters (a state, a host; empty means any). The grid
// uses the same test (matches) to fade the ranks the filter hides, so list and grid always agree.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QSortFilterProxyModel>

#include "live_enums.h"
#include "live_rows.h"

namespace meshscope::ui {

class RankFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("RankFilterModel belongs to a LiveSession")
    // A RankState value; -1 (or any other value that is no state) means any state.
    Q_PROPERTY(int stateFilter READ stateFilter WRITE setStateFilter NOTIFY filterChanged)
    Q_PROPERTY(QString hostFilter READ hostFilter WRITE setHostFilter NOTIFY filterChanged)
    Q_PROPERTY(bool active READ active NOTIFY filterChanged)
    Q_PROPERTY(int count READ count NOTIFY countChanged)

public:
    explicit RankFilterModel(QObject* parent = nullptr);

    [[nodiscard]] int stateFilter() const { return state_ ? static_cast<int>(*state_) : -1; }
    void setStateFilter(int state);
    [[nodiscard]] QString hostFilter() const { return host_; }
    void setHostFilter(const QString& host);
    [[nodiscard]] bool active() const { return state_ || !host_.isEmpty(); }
    [[nodiscard]] int count() const { return rowCount(); }

    [[nodiscard]] bool matches(const RankRow& row) const {
        return (!state_ || row.state == *state_) && (host_.isEmpty() || row.host == host_);
    }

signals:
    void filterChanged();
    void countChanged();

protected:
    [[nodiscard]] bool filterAcceptsRow(int source_row, const QModelIndex& source_parent) const override;

private:
    std::optional<RankStateKind> state_;
    QString host_;
};

}  // namespace meshscope::ui
