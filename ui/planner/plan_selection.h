// PlanSelection: the rank selected in the grid and what the inspector says about it. A selection beyond a
// smaller new plan is cleared.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QObject>
#include <QPointer>

#include "inspector_model.h"
#include "plan_form.h"

namespace meshscope::ui {

class PlanSelection : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("PlanSelection belongs to a PlanController")
    Q_PROPERTY(int selectedRank READ selectedRank WRITE setSelectedRank NOTIFY selectedRankChanged)  // -1: none
    Q_PROPERTY(meshscope::ui::InspectorModel* inspector READ inspector CONSTANT)

public:
    explicit PlanSelection(PlanForm* form, QObject* parent = nullptr);

    [[nodiscard]] int selectedRank() const { return selected_rank_; }
    void setSelectedRank(int rank);  // outside the plan: none
    [[nodiscard]] InspectorModel* inspector() { return &inspector_; }

signals:
    void selectedRankChanged();

private:
    void on_plan_changed();

    QPointer<PlanForm> form_;
    int selected_rank_ = -1;
    InspectorModel inspector_;
};

}  // namespace meshscope::ui
