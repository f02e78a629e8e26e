#include "jobs_model.h"

#include <algorithm>

namespace meshscope::ui {

int JobsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : count();
}

QVariant JobsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const JobRow& row = rows_[static_cast<std::size_t>(index.row())];
    switch (role) {
        case Qt::DisplayRole:
        case JobRole: return row.job;
        case WorldSizeRole: return static_cast<qlonglong>(row.world_size);
        case RanksSeenRole: return static_cast<qlonglong>(row.ranks_seen);
        case RanksReadyRole: return static_cast<qlonglong>(row.ranks_ready);
        case FindingsRole: return static_cast<qlonglong>(row.findings);
        case EventsRole: return static_cast<qlonglong>(row.events);
        case PostMortemRole: return row.hang.has_value();
        default: return {};
    }
}

QHash<int, QByteArray> JobsModel::roleNames() const {
    return {{JobRole, "job"},
            {WorldSizeRole, "worldSize"},
            {RanksSeenRole, "ranksSeen"},
            {RanksReadyRole, "ranksReady"},
            {FindingsRole, "findings"},
            {EventsRole, "events"},
            {PostMortemRole, "postMortem"}};
}

void JobsModel::setJobs(std::vector<JobRow> rows) {
    const bool same_jobs = std::equal(rows.begin(), rows.end(), rows_.begin(), rows_.end(),
                                      [](const JobRow& a, const JobRow& b) { return a.job == b.job; });
    if (!same_jobs) {
        const bool count_changed = rows.size() != rows_.size();
        beginResetModel();
        rows_ = std::move(rows);
        endResetModel();
        if (count_changed) emit countChanged();
        return;
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows[i] == rows_[i]) continue;
        rows_[i] = std::move(rows[i]);
        emit dataChanged(index(static_cast<int>(i)), index(static_cast<int>(i)));
    }
}

const JobRow* JobsModel::find(const QString& job) const {
    const auto it = std::find_if(rows_.begin(), rows_.end(), [&](const JobRow& r) { return r.job == job; });
    return it == rows_.end() ? nullptr : &*it;
}

int JobsModel::indexOf(const QString& job) const {
    const auto it = std::find_if(rows_.begin(), rows_.end(), [&](const JobRow& r) { return r.job == job; });
    return it == rows_.end() ? -1 : static_cast<int>(it - rows_.begin());
}

}  // namespace meshscope::ui
