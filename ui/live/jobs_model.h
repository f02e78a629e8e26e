// JobsModel: the jobs a collector knows, one row per Job, for the Live page's job list.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QAbstractListModel>

#include <vector>

#include "live_rows.h"

namespace meshscope::ui {

class JobsModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("JobsModel belongs to a LiveSession")
    Q_PROPERTY(int count READ count NOTIFY countChanged)

public:
    enum Role {
        JobRole = Qt::UserRole + 1,
        WorldSizeRole,
        RanksSeenRole,
        RanksReadyRole,
        FindingsRole,
        EventsRole,
        PostMortemRole
    };  // PostMortemRole: the job's records show a hang (its summary has "hang")
    Q_ENUM(Role)

    using QAbstractListModel::QAbstractListModel;

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
    [[nodiscard]] QHash<int, QByteArray> roleNames() const override;
    [[nodiscard]] int count() const { return static_cast<int>(rows_.size()); }

    // Rows keep their place when only the numbers change (no reset, so the view keeps its selection).
    void setJobs(std::vector<JobRow> rows);
    [[nodiscard]] const std::vector<JobRow>& jobs() const { return rows_; }
    [[nodiscard]] const JobRow* find(const QString& job) const;
    [[nodiscard]] Q_INVOKABLE int indexOf(const QString& job) const;

signals:
    void countChanged();

private:
    std::vector<JobRow> rows_;
};

}  // namespace meshscope::ui
