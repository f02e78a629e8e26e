// TourListModel: the shipped tours for the Tours page, one row each: name, title, summary, how many steps, and
// the learner's progress (the last step reached, 0: never started; finished).
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QAbstractListModel>

#include "tour_catalog.h"
#include "tour_progress.h"

namespace meshscope::ui {

class TourListModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("TourListModel belongs to a TourController")
    Q_PROPERTY(int count READ count CONSTANT)

public:
    enum Role { NameRole = Qt::UserRole + 1, TitleRole, SummaryRole, StepsRole, ProgressRole, FinishedRole };
    Q_ENUM(Role)

    TourListModel(const TourCatalog& catalog, const TourProgress& progress, QObject* parent = nullptr);

    [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
    [[nodiscard]] QHash<int, QByteArray> roleNames() const override;
    [[nodiscard]] int count() const { return static_cast<int>(catalog_.tours.size()); }

    // The progress of this tour changed (or all, for an empty name).
    void refresh_progress(const QString& tour = {});

private:
    const TourCatalog& catalog_;
    const TourProgress& progress_;
};

}  // namespace meshscope::ui
