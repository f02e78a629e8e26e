// FindingsModel: the findings of the selected Job (kind, ranks, message, fix, and for one read from records
// the "From: ..." line naming them), in the collector's order
// (kind, then first rank). Fed by snapshots (GET .../findings) and by finding_added / finding_updated /
// finding_removed deltas of the change stream.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QAbstractListModel>

#include <vector>

#include "live_rows.h"

namespace meshscope::ui {

class FindingsModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("FindingsModel belongs to a LiveSession")
    Q_PROPERTY(int count READ count NOTIFY countChanged)

public:
    enum Role {
        IdRole = Qt::UserRole + 1,
        KindRole,
        RanksRole,
        RanksTextRole,
        RankCountRole,
        MessageRole,
        FixRole,
        FromRole
    };
    Q_ENUM(Role)

    using QAbstractListModel::QAbstractListModel;

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
    [[nodiscard]] QHash<int, QByteArray> roleNames() const override;
    [[nodiscard]] int count() const { return static_cast<int>(rows_.size()); }

    void setFindings(std::vector<FindingRow> rows);
    void clear() { setFindings({}); }
    // Deltas; an update of an unknown id adds it, a removal of an unknown id does nothing.
    void upsert(FindingRow row);
    void remove(const QString& id);

    [[nodiscard]] const std::vector<FindingRow>& findings() const { return rows_; }
    [[nodiscard]] int rowOf(const QString& id) const;
    [[nodiscard]] Q_INVOKABLE QString kindAt(int row) const;

signals:
    void countChanged();

private:
    std::vector<FindingRow> rows_;
};

}  // namespace meshscope::ui
