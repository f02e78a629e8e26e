#include "tour_list_model.h"

namespace meshscope::ui {

namespace {
QString name_of(const TourListRow& r) {
    return QString::fromStdString(r.tour->name);
}

using R = TourListRow;
constexpr RowRole<R> roles[] = {
    {TourListModel::NameRole, "name", [](const R& r) -> QVariant { return name_of(r); }},
    {TourListModel::TitleRole, "title", [](const R& r) -> QVariant { return QString::fromStdString(r.tour->title); }},
    {TourListModel::SummaryRole, "summary",
     [](const R& r) -> QVariant { return QString::fromStdString(r.tour->summary); }},
    {TourListModel::StepsRole, "steps", [](const R& r) -> QVariant { return static_cast<int>(r.tour->steps.size()); }},
    {TourListModel::ProgressRole, "progress", [](const R& r) -> QVariant { return r.progress->step(name_of(r)); }},
    {TourListModel::FinishedRole, "finished", [](const R& r) -> QVariant { return r.progress->finished(name_of(r)); }},
};
static_assert(roles_in_order(roles));
}  // namespace

TourListModel::TourListModel(const TourCatalog& catalog, const TourProgress& progress, QObject* parent)
    : RowListModel(roles, TitleRole, parent) {
    std::vector<TourListRow> rows;
    for (const Tour& tour : catalog.tours) rows.push_back({&tour, &progress});
    setRows(std::move(rows));
}

void TourListModel::refresh_progress(const QString& tour) {
    for (int row = 0; row < count(); ++row)
        if (tour.isEmpty() || name_of(rows()[static_cast<std::size_t>(row)]) == tour)
            emit dataChanged(index(row), index(row), {ProgressRole, FinishedRole});
}

}  // namespace meshscope::ui
