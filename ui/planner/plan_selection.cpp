#include "plan_selection.h"

namespace meshscope::ui {

PlanSelection::PlanSelection(PlanForm* form, QObject* parent) : QObject(parent), form_(form) {
    Q_ASSERT(form_);
    connect(form_, &PlanForm::planChanged, this, &PlanSelection::on_plan_changed);
    inspector_.set(form_->plan(), selected_rank_);
}

void PlanSelection::on_plan_changed() {
    if (selected_rank_ >= form_->plan()->topology().world()) {
        selected_rank_ = -1;
        emit selectedRankChanged();
    }
    inspector_.set(form_->plan(), selected_rank_);
}

void PlanSelection::setSelectedRank(int rank) {
    if (rank < -1 || rank >= form_->plan()->topology().world()) rank = -1;
    if (rank == selected_rank_) return;
    selected_rank_ = rank;
    inspector_.set(form_->plan(), selected_rank_);
    emit selectedRankChanged();
}

}  // namespace meshscope::ui
