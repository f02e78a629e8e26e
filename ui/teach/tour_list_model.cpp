#include "tour_list_model.h"

namespace meshscope::ui {

TourListModel::TourListModel(const TourCatalog& catalog, const TourProgress& progress, QObject* parent)
    : QAbstractListModel(parent), catalog_(catalog), progress_(progress) {}

int TourListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : count();
}

QVariant TourListModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const Tour& tour = catalog_.tours[static_cast<std::size_t>(index.row())];
    const QString name = QString::fromStdString(tour.name);
    switch (role) {
        case Qt::DisplayRole:
        case TitleRole: return QString::fromStdString(tour.title);
        case NameRole: return name;
        case SummaryRole: return QString::fromStdString(tour.summary);
        case StepsRole: return static_cast<int>(tour.steps.size());
        case ProgressRole: return progress_.step(name);
        case FinishedRole: return progress_.finished(name);
        default: return {};
    }
}

QHash<int, QByteArray> TourListModel::roleNames() const {
    return {{NameRole, "name"},   {TitleRole, "title"},       {SummaryRole, "summary"},
            {StepsRole, "steps"}, {ProgressRole, "progress"}, {FinishedRole, "finished"}};
}

void TourListModel::refresh_progress(const QString& tour) {
    for (int row = 0; row < count(); ++row)
        if (tour.isEmpty() || QString::fromStdString(catalog_.tours[static_cast<std::size_t>(row)].name) == tour)
            emit dataChanged(index(row), index(row), {ProgressRole, FinishedRole});
}

}  // namespace meshscope::ui
