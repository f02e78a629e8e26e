#include "plan_cost.h"

namespace meshscope::ui {

namespace {
QString billions(std::int64_t n) {
    return QStringLiteral("%1B").arg(static_cast<double>(n) / 1e9, 0, 'f', 2);
}
}  // namespace

PlanCost::PlanCost(PlanForm* form, CostForm* inputs, QObject* parent) : QObject(parent), form_(form), inputs_(inputs) {
    connect(form, &PlanForm::planChanged, this, &PlanCost::update);
    connect(inputs, &CostForm::inputsChanged, this, [this] {
        ranking_stale_ = true;
        update();
    });
    update();
}

void PlanCost::clear() {
    memory_.clear();
    comm_.clear();
    ranking_.clear();
    constants_.clear();
    ranking_stale_ = true;
    if (!shown_ && model_text_.isEmpty()) return;
    shown_ = false;
    model_text_.clear();
    cluster_text_.clear();
    layout_problem_.clear();
    ranking_text_.clear();
    why_text_.clear();
    emit costChanged();
}

void PlanCost::update() {
    const std::shared_ptr<const Plan> plan = form_->plan();
    const std::int64_t gpus_per_node = plan->placement().gpus_per_node;
    const auto in = inputs_->inputs(gpus_per_node);
    if (!in || !in->inputs) {
        clear();
        return;
    }
    const cost::CostInputs& inputs = *in->inputs;
    constants_.set(in->constants);
    const Topology& topology = plan->topology();
    // The plan at the ranking's global batch: the one asked for, else world x micro-batch x grad-accum sequences
    // (what cp 1 runs; cp ranks share their sequences, so the plan runs cp times the micro-batches). A global batch
    // that dp x micro-batch does not divide leaves the layout out, as advise does: its memory, no step.
    cost::CostInputs plan_inputs = inputs;
    QString batch_problem;
    if (inputs.training.global_batch > 0) {
        const auto grad_accum = cost::grad_accum_for(inputs.training, topology.dp);
        if (grad_accum)
            plan_inputs.training.grad_accum = *grad_accum;
        else
            batch_problem = QString::fromStdString(grad_accum.error().message());
    } else {
        plan_inputs.training.grad_accum = inputs.training.grad_accum * topology.cp;
    }
    const cost::LayoutCost layout = cost::cost_plan(plan_inputs, *plan);
    memory_.set(layout.memory);
    if (batch_problem.isEmpty())
        comm_.set(layout);
    else
        comm_.clear();

    const std::int64_t world = topology.world();
    if (ranking_stale_ || world != ranked_world_ || gpus_per_node != ranked_gpus_per_node_) {
        auto advice = cost::advise(inputs, world);
        if (advice) {
            ranking_text_ = QStringLiteral("world %1, %2 sequences a step: %3 layouts, %4 fit, %5 excluded")
                                .arg(world)
                                .arg(advice->global_batch)
                                .arg(advice->considered())
                                .arg(advice->ranked.size())
                                .arg(advice->excluded.size());
            why_text_ = QString::fromStdString(advice->why);
            ranking_.set(std::move(advice).value());
        } else {
            ranking_text_ = QString::fromStdString(advice.error().message());
            why_text_.clear();
            ranking_.clear();
        }
        ranking_stale_ = false;
        ranked_world_ = world;
        ranked_gpus_per_node_ = gpus_per_node;
    }
    ranking_.set_current(topology);

    const auto& p = inputs.params;
    const auto& c = inputs.cluster;
    shown_ = true;
    model_text_ = QStringLiteral("%1: %2 parameters, %3 active")
                      .arg(QString::fromStdString(inputs.model.name), billions(p.total()), billions(p.active()));
    cluster_text_ = QStringLiteral("%1: %2 GiB per GPU, %3% kept free · NVLink %4 GB/s · %5 %6 GB/s per GPU")
                        .arg(QString::fromStdString(c.hardware))
                        .arg(c.gib_per_gpu, 0, 'g', 4)
                        .arg(c.reserve * 100.0, 0, 'g', 3)
                        .arg(c.intra.bus_gbps, 0, 'g', 4)
                        .arg(QString::fromStdString(c.network))
                        .arg(c.inter.bus_gbps, 0, 'g', 4);
    const auto problem = cost::layout_problem(inputs.model, topology);
    layout_problem_ = problem ? QString::fromStdString(*problem) : batch_problem;
    emit costChanged();
}

void PlanCost::applyRanked(int row) {
    if (const auto layout = ranking_.layout(row)) form_->set_layout(*layout);
}

}  // namespace meshscope::ui
