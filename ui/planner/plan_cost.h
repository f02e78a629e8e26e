// PlanCost: what the plan on screen costs for the model of the CostForm (core's cost model, docs/cost-model.md):
// memory per GPU by part, communication per mesh dim, and core's ranking of every layout of the plan's world,
// whose rows put their layout on screen. Without a model (CostForm "none") or with inputs core rejects, it shows
// nothing and its models are empty.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QObject>
#include <QPointer>
#include <QString>

#include <cstdint>
#include <optional>

#include "cluster_constants_model.h"
#include "cost_comm_model.h"
#include "cost_form.h"
#include "cost_memory_model.h"
#include "plan_form.h"
#include "ranked_layouts_model.h"

namespace meshscope::ui {

class PlanCost : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("PlanCost belongs to a PlanController")
    Q_PROPERTY(bool shown READ shown NOTIFY costChanged)  // a model is chosen and core accepts the inputs
    // "qwen3-30b-a3b: 30.53B parameters, 3.35B active"
    Q_PROPERTY(QString modelText READ modelText NOTIFY costChanged)
    // "h200: 141 GiB per GPU, 10% kept free · NVLink 450 GB/s · ndr 50 GB/s per GPU"
    Q_PROPERTY(QString clusterText READ clusterText NOTIFY costChanged)
    // Core's reason the plan's layout cannot run this model ("" when it can): the ranking leaves it out.
    Q_PROPERTY(QString layoutProblem READ layoutProblem NOTIFY costChanged)
    // "world 64, 64 sequences a step: 28 layouts, 12 fit, 16 excluded"
    Q_PROPERTY(QString rankingText READ rankingText NOTIFY costChanged)
    // Core's sentence on why the first ranked layout beats the second ("" with fewer than two).
    Q_PROPERTY(QString whyText READ whyText NOTIFY costChanged)
    Q_PROPERTY(meshscope::ui::CostMemoryModel* memory READ memory CONSTANT)
    Q_PROPERTY(meshscope::ui::CostCommModel* comm READ comm CONSTANT)
    Q_PROPERTY(meshscope::ui::RankedLayoutsModel* ranking READ ranking CONSTANT)
    // The calibration and bandwidths the numbers use, each from the user's cluster profile or a preset.
    Q_PROPERTY(meshscope::ui::ClusterConstantsModel* constants READ constants CONSTANT)

public:
    PlanCost(PlanForm* form, CostForm* inputs, QObject* parent = nullptr);

    [[nodiscard]] bool shown() const { return shown_; }
    [[nodiscard]] QString modelText() const { return model_text_; }
    [[nodiscard]] QString clusterText() const { return cluster_text_; }
    [[nodiscard]] QString layoutProblem() const { return layout_problem_; }
    [[nodiscard]] QString rankingText() const { return ranking_text_; }
    [[nodiscard]] QString whyText() const { return why_text_; }
    [[nodiscard]] CostMemoryModel* memory() { return &memory_; }
    [[nodiscard]] CostCommModel* comm() { return &comm_; }
    [[nodiscard]] RankedLayoutsModel* ranking() { return &ranking_; }
    [[nodiscard]] ClusterConstantsModel* constants() { return &constants_; }

    // Puts the layout of a ranking row on screen (the form's cp and ep).
    Q_INVOKABLE void applyRanked(int row);

signals:
    void costChanged();

private:
    void update();
    void clear();

    QPointer<PlanForm> form_;
    QPointer<CostForm> inputs_;
    bool shown_ = false;
    QString model_text_;
    QString cluster_text_;
    QString layout_problem_;
    QString ranking_text_;
    QString why_text_;
    CostMemoryModel memory_;
    CostCommModel comm_;
    RankedLayoutsModel ranking_;
    ClusterConstantsModel constants_;
    // The ranking depends on the world, the node size and the cost inputs only: cp and ep changes keep it.
    bool ranking_stale_ = true;
    std::int64_t ranked_world_ = 0;
    std::int64_t ranked_gpus_per_node_ = 0;
};

}  // namespace meshscope::ui
