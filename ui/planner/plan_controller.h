// PlanController: the planner's state in three parts, each its own QML type: the form (inputs as typed and the
// core's verdict on them, holding the last valid plan), the view (what is shown of that plan, its exports, and
// which mesh and groups the grid draws) and the selection (the selected rank and its inspector). The controller
// owns and links them, and remembers them between runs. Beside them: the model and training the Cost panel prices
// the plan for (costForm) and what it costs (cost).
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QObject>

#include <memory>

#include "cost_form.h"
#include "plan_cost.h"
#include "plan_form.h"
#include "plan_selection.h"
#include "plan_view.h"

class QSettings;

namespace meshscope::ui {

class PlanController : public QObject {
    Q_OBJECT
    QML_ELEMENT
    // Qualified: Qt 6.4's qmllint matches a property's type to its QML type only by the fully qualified name.
    Q_PROPERTY(meshscope::ui::PlanForm* form READ form CONSTANT)
    Q_PROPERTY(meshscope::ui::PlanView* view READ view CONSTANT)
    Q_PROPERTY(meshscope::ui::PlanSelection* selection READ selection CONSTANT)
    Q_PROPERTY(meshscope::ui::CostForm* costForm READ costForm CONSTANT)
    Q_PROPERTY(meshscope::ui::PlanCost* cost READ cost CONSTANT)

public:
    explicit PlanController(QObject* parent = nullptr);

    [[nodiscard]] PlanForm* form() { return &form_; }
    [[nodiscard]] PlanView* view() { return &view_; }
    [[nodiscard]] PlanSelection* selection() { return &selection_; }
    [[nodiscard]] CostForm* costForm() { return &cost_form_; }
    [[nodiscard]] PlanCost* cost() { return &cost_; }
    [[nodiscard]] const PlanForm* form() const { return &form_; }
    [[nodiscard]] const PlanView* view() const { return &view_; }
    [[nodiscard]] const PlanSelection* selection() const { return &selection_; }

    // The plan on screen; never null.
    [[nodiscard]] std::shared_ptr<const Plan> plan() const { return form_.plan(); }

    // The last valid plan's inputs, the mesh shown and the cost inputs, under "planner/".
    void restore(QSettings& settings);
    void save(QSettings& settings) const;

private:
    // Declared in the order they are built: the view and the selection follow the form's plan.
    PlanForm form_;
    PlanView view_{&form_};
    PlanSelection selection_{&form_};
    CostForm cost_form_;
    PlanCost cost_{&form_, &cost_form_};
};

}  // namespace meshscope::ui
