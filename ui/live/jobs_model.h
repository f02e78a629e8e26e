// JobsModel: the jobs a collector knows, one row per Job, for the Live page's job list.
#pragma once

#include <QtQml/qqmlregistration.h>

#include <vector>

#include "live_rows.h"
#include "row_list_model.h"

namespace meshscope::ui {

class JobsModel : public MESHSCOPE_ROW_LIST_MODEL(JobRow) {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("JobsModel belongs to a LiveSession")

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

    explicit JobsModel(QObject* parent = nullptr);

    // Rows keep their place when only the numbers change (no reset, so the view keeps its selection).
    void setJobs(std::vector<JobRow> rows);
    [[nodiscard]] const std::vector<JobRow>& jobs() const { return rows(); }
    [[nodiscard]] const JobRow* find(const QString& job) const;
    [[nodiscard]] Q_INVOKABLE int indexOf(const QString& job) const;
};

}  // namespace meshscope::ui
