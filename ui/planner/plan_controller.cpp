#include "plan_controller.h"

#include <QSettings>

namespace meshscope::ui {

PlanController::PlanController(QObject* parent) : QObject(parent) {}

void PlanController::restore(QSettings& settings) {
    // The mesh shown is restored only with the plan it belongs to.
    if (form_.restore(settings)) view_.restore(settings);
    cost_form_.restore(settings);
}

void PlanController::save(QSettings& settings) const {
    form_.save(settings);
    view_.save(settings);
    cost_form_.save(settings);
}

}  // namespace meshscope::ui
