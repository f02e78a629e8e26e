#include "jobs_model.h"

#include <algorithm>

namespace meshscope::ui {

namespace {
using R = JobRow;
constexpr RowRole<R> roles[] = {
    {JobsModel::JobRole, "job", [](const R& r) -> QVariant { return r.job; }},
    {JobsModel::WorldSizeRole, "worldSize",
     [](const R& r) -> QVariant { return static_cast<qlonglong>(r.world_size); }},
    {JobsModel::RanksSeenRole, "ranksSeen",
     [](const R& r) -> QVariant { return static_cast<qlonglong>(r.ranks_seen); }},
    {JobsModel::RanksReadyRole, "ranksReady",
     [](const R& r) -> QVariant { return static_cast<qlonglong>(r.ranks_ready); }},
    {JobsModel::FindingsRole, "findings", [](const R& r) -> QVariant { return static_cast<qlonglong>(r.findings); }},
    {JobsModel::EventsRole, "events", [](const R& r) -> QVariant { return static_cast<qlonglong>(r.events); }},
    {JobsModel::PostMortemRole, "postMortem", [](const R& r) -> QVariant { return r.hang.has_value(); }},
};
static_assert(roles_in_order(roles));
}  // namespace

JobsModel::JobsModel(QObject* parent) : RowListModel(roles, JobRole, parent) {}

void JobsModel::setJobs(std::vector<JobRow> rows) {
    updateRows(
        std::move(rows), [](const JobRow& a, const JobRow& b) { return a.job == b.job; }, RowChanges::each);
}

const JobRow* JobsModel::find(const QString& job) const {
    const auto it = std::find_if(rows().begin(), rows().end(), [&](const JobRow& r) { return r.job == job; });
    return it == rows().end() ? nullptr : &*it;
}

int JobsModel::indexOf(const QString& job) const {
    const auto it = std::find_if(rows().begin(), rows().end(), [&](const JobRow& r) { return r.job == job; });
    return it == rows().end() ? -1 : static_cast<int>(it - rows().begin());
}

}  // namespace meshscope::ui
