// PlanForm: the planner's inputs as typed, judged by the core. While they are invalid it holds the core's exact
// message, the input it is about and the values that would fix it, and keeps the last valid plan (plan()) for
// everything that draws one. The experts per rank are judged against that plan.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QObject>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <memory>

#include "meshscope/mesh/plan.h"
#include "meshscope/mesh/plan_request.h"
#include "planner_enums.h"
#include "suggestion_model.h"

class QSettings;

namespace meshscope::ui {

class PlanForm : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("PlanForm belongs to a PlanController")

    // Inputs, as typed: any integer is accepted and judged by the core.
    Q_PROPERTY(int nodes READ nodes WRITE setNodes NOTIFY inputsChanged)
    Q_PROPERTY(int gpusPerNode READ gpusPerNode WRITE setGpusPerNode NOTIFY inputsChanged)
    Q_PROPERTY(int world READ world WRITE setWorld NOTIFY inputsChanged)  // used when useWorld
    Q_PROPERTY(bool useWorld READ useWorld WRITE setUseWorld NOTIFY inputsChanged)
    Q_PROPERTY(int cp READ cp WRITE setCp NOTIFY inputsChanged)
    Q_PROPERTY(int ep READ ep WRITE setEp NOTIFY inputsChanged)
    // LlamaFactory's model mesh: mp_replicate (default 1) and mp_shard (0: world / mp_replicate, its default).
    Q_PROPERTY(int mpReplicate READ mpReplicate WRITE setMpReplicate NOTIFY inputsChanged)
    Q_PROPERTY(int mpShard READ mpShard WRITE setMpShard NOTIFY inputsChanged)
    Q_PROPERTY(int experts READ experts WRITE setExperts NOTIFY inputsChanged)  // 0: not given
    Q_PROPERTY(int order READ order WRITE setOrder NOTIFY inputsChanged)        // a CreationOrder value
    Q_PROPERTY(QStringList orderNames READ orderNames CONSTANT)                 // core's, index: CreationOrder value

    // The verdict on the inputs.
    Q_PROPERTY(bool valid READ valid NOTIFY validityChanged)
    Q_PROPERTY(QString errorText READ errorText NOTIFY validityChanged)
    Q_PROPERTY(int errorField READ errorField NOTIFY validityChanged)  // a PlanInput value (None when valid)
    Q_PROPERTY(QString suggestionTitle READ suggestionTitle NOTIFY validityChanged)
    Q_PROPERTY(meshscope::ui::SuggestionModel* suggestions READ suggestions CONSTANT)
    Q_PROPERTY(QString expertsText READ expertsText NOTIFY expertsChanged)
    Q_PROPERTY(bool expertsValid READ expertsValid NOTIFY expertsChanged)
    Q_PROPERTY(meshscope::ui::SuggestionModel* expertsSuggestions READ expertsSuggestions CONSTANT)

public:
    // The planner draws every rank; beyond this `meshscope plan` is the tool.
    static constexpr std::int64_t max_drawn_world = 65536;

    explicit PlanForm(QObject* parent = nullptr);

    [[nodiscard]] int nodes() const { return nodes_; }
    [[nodiscard]] int gpusPerNode() const { return gpus_per_node_; }
    [[nodiscard]] int world() const { return world_; }
    [[nodiscard]] bool useWorld() const { return use_world_; }
    [[nodiscard]] int cp() const { return cp_; }
    [[nodiscard]] int ep() const { return ep_; }
    [[nodiscard]] int mpReplicate() const { return mp_replicate_; }
    [[nodiscard]] int mpShard() const { return mp_shard_; }
    [[nodiscard]] int experts() const { return experts_; }
    [[nodiscard]] int order() const { return static_cast<int>(order_); }
    void setNodes(int value);
    void setGpusPerNode(int value);
    void setWorld(int value);
    void setUseWorld(bool value);
    void setCp(int value);
    void setEp(int value);
    void setMpReplicate(int value);
    void setMpShard(int value);
    void setExperts(int value);
    void setOrder(int value);  // anything but a CreationOrder value is ignored
    [[nodiscard]] static QStringList orderNames();

    [[nodiscard]] bool valid() const { return error_text_.isEmpty(); }
    [[nodiscard]] QString errorText() const { return error_text_; }
    [[nodiscard]] int errorField() const { return static_cast<int>(error_field_); }
    [[nodiscard]] QString suggestionTitle() const { return suggestion_title_; }
    [[nodiscard]] SuggestionModel* suggestions() { return &suggestions_; }
    [[nodiscard]] QString expertsText() const { return experts_text_; }
    [[nodiscard]] bool expertsValid() const { return experts_valid_; }
    [[nodiscard]] SuggestionModel* expertsSuggestions() { return &experts_suggestions_; }

    // The last valid plan; never null (the form starts from valid defaults).
    [[nodiscard]] std::shared_ptr<const Plan> plan() const { return plan_; }

    // Sets the input a suggestion names to its value.
    Q_INVOKABLE void applySuggestion(int row);
    Q_INVOKABLE void applyExpertsSuggestion(int row);
    // Shows (dp, cp, ep) of the last valid plan's world in one step (a ranked layout clicked): cp and ep, and the
    // world's own inputs back to that plan's should they hold an invalid value meanwhile.
    void set_layout(const Topology& layout);

    // The last valid plan's inputs under "planner/"; restore takes only a complete, valid set.
    [[nodiscard]] bool restore(QSettings& settings);
    void save(QSettings& settings) const;

signals:
    void inputsChanged();
    void validityChanged();
    void expertsChanged();
    void planChanged();  // a new valid plan

private:
    void set_input(int& slot, int value);
    void recompute();
    void update_experts();
    void set_error(const QString& text, PlanInput field, const QString& title,
                   std::vector<SuggestionModel::Suggestion> suggestions);
    void set_topology_error(const Error& error, std::int64_t world);
    [[nodiscard]] PlanRequest request() const;  // the inputs as core's request

    int nodes_ = 2;
    int gpus_per_node_ = 8;
    int world_ = 16;
    bool use_world_ = false;
    int cp_ = 1;
    int ep_ = 8;
    int mp_replicate_ = 1;
    int mp_shard_ = 0;
    int experts_ = 0;
    CreationOrder order_ = CreationOrder::torch29;

    QString error_text_;
    PlanInput error_field_ = PlanInput::none;
    QString suggestion_title_;
    SuggestionModel suggestions_;
    QString experts_text_;
    bool experts_valid_ = true;
    SuggestionModel experts_suggestions_;

    std::shared_ptr<const Plan> plan_;
};

}  // namespace meshscope::ui
