// TourListModel: the shipped tours for the Tours page, one row each: name, title, summary, how many steps, and
// the learner's progress (the last step reached, 0: never started; finished).
#pragma once

#include <QtQml/qqmlregistration.h>

#include "row_list_model.h"
#include "tour_catalog.h"
#include "tour_progress.h"

namespace meshscope::ui {

// A shipped tour and where the learner's progress is read (at the time a view asks: refresh_progress says when).
struct TourListRow {
    const Tour* tour = nullptr;
    const TourProgress* progress = nullptr;
};

class TourListModel : public MESHSCOPE_ROW_LIST_MODEL(TourListRow) {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("TourListModel belongs to a TourController")

public:
    enum Role { NameRole = Qt::UserRole + 1, TitleRole, SummaryRole, StepsRole, ProgressRole, FinishedRole };
    Q_ENUM(Role)

    // The catalog and progress outlive the model (the TourController owns all three).
    TourListModel(const TourCatalog& catalog, const TourProgress& progress, QObject* parent = nullptr);

    // The progress of this tour changed (or all, for an empty name).
    void refresh_progress(const QString& tour = {});
};

}  // namespace meshscope::ui
