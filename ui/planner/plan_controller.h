// PlanController: the planner's inputs, validated by the core into a Plan. While the inputs are invalid it
// shows the core's exact message and the values that would fix it, and keeps the last valid plan for the
// grid, the inspector and the exports. It also owns what is selected and shown in the grid.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <cstdint>
#include <memory>

#include "dims_model.h"
#include "inspector_model.h"
#include "meshscope/plan.h"
#include "planner_enums.h"
#include "suggestion_model.h"

class QSettings;

namespace meshscope::ui {

class PlanController : public QObject {
    Q_OBJECT
    QML_ELEMENT

    // Inputs, as typed: any integer is accepted and judged by the core.
    Q_PROPERTY(int nodes READ nodes WRITE setNodes NOTIFY inputsChanged)
    Q_PROPERTY(int gpusPerNode READ gpusPerNode WRITE setGpusPerNode NOTIFY inputsChanged)
    Q_PROPERTY(int world READ world WRITE setWorld NOTIFY inputsChanged)  // used when useWorld
    Q_PROPERTY(bool useWorld READ useWorld WRITE setUseWorld NOTIFY inputsChanged)
    Q_PROPERTY(int cp READ cp WRITE setCp NOTIFY inputsChanged)
    Q_PROPERTY(int ep READ ep WRITE setEp NOTIFY inputsChanged)
    Q_PROPERTY(int experts READ experts WRITE setExperts NOTIFY inputsChanged)  // 0: not given
    Q_PROPERTY(int order READ order WRITE setOrder NOTIFY inputsChanged)        // a CreationOrder value
    Q_PROPERTY(QStringList orderNames READ orderNames CONSTANT)                 // core's, index: CreationOrder value

    // The verdict on the inputs.
    Q_PROPERTY(bool valid READ valid NOTIFY validityChanged)
    Q_PROPERTY(QString errorText READ errorText NOTIFY validityChanged)
    Q_PROPERTY(int errorField READ errorField NOTIFY validityChanged)  // a PlanInput value (None when valid)
    Q_PROPERTY(QString suggestionTitle READ suggestionTitle NOTIFY validityChanged)
    Q_PROPERTY(SuggestionModel* suggestions READ suggestions CONSTANT)
    Q_PROPERTY(QString expertsText READ expertsText NOTIFY expertsChanged)
    Q_PROPERTY(bool expertsValid READ expertsValid NOTIFY expertsChanged)
    Q_PROPERTY(SuggestionModel* expertsSuggestions READ expertsSuggestions CONSTANT)

    // The plan shown (the last valid one).
    Q_PROPERTY(int planRevision READ planRevision NOTIFY planChanged)
    Q_PROPERTY(int planWorld READ planWorld NOTIFY planChanged)
    Q_PROPERTY(int planDp READ planDp NOTIFY planChanged)
    Q_PROPERTY(int planCp READ planCp NOTIFY planChanged)
    Q_PROPERTY(int planEp READ planEp NOTIFY planChanged)
    Q_PROPERTY(int planEfsdp READ planEfsdp NOTIFY planChanged)
    Q_PROPERTY(int planEdp READ planEdp NOTIFY planChanged)
    Q_PROPERTY(int planNodes READ planNodes NOTIFY planChanged)
    Q_PROPERTY(bool hasExpertMesh READ hasExpertMesh NOTIFY planChanged)
    Q_PROPERTY(QString topologyText READ topologyText NOTIFY planChanged)
    Q_PROPERTY(QString expertMeshText READ expertMeshText NOTIFY planChanged)
    Q_PROPERTY(QString clusterText READ clusterText NOTIFY planChanged)
    Q_PROPERTY(QStringList warnings READ warnings NOTIFY planChanged)
    Q_PROPERTY(QString llamaFactoryYaml READ llamaFactoryYaml NOTIFY planChanged)
    Q_PROPERTY(QString torchrunCommand READ torchrunCommand NOTIFY planChanged)

    // What the grid shows.
    Q_PROPERTY(int viewMesh READ viewMesh WRITE setViewMesh NOTIFY viewChanged)  // a MeshView value
    Q_PROPERTY(bool showingExpertMesh READ showingExpertMesh NOTIFY viewChanged)
    Q_PROPERTY(QString shownDim READ shownDim WRITE setShownDim NOTIFY viewChanged)  // all its groups drawn
    Q_PROPERTY(int selectedRank READ selectedRank WRITE setSelectedRank NOTIFY selectedRankChanged)
    Q_PROPERTY(DimsModel* legend READ legend CONSTANT)  // the shown mesh's dims
    Q_PROPERTY(DimsModel* dims READ dims CONSTANT)      // every dim of the plan
    Q_PROPERTY(InspectorModel* inspector READ inspector CONSTANT)
    Q_PROPERTY(QString statusText READ statusText NOTIFY statusTextChanged)

public:
    // The planner draws every rank; beyond this `meshscope plan` is the tool.
    static constexpr std::int64_t max_drawn_world = 65536;

    explicit PlanController(QObject* parent = nullptr);

    [[nodiscard]] int nodes() const { return nodes_; }
    [[nodiscard]] int gpusPerNode() const { return gpus_per_node_; }
    [[nodiscard]] int world() const { return world_; }
    [[nodiscard]] bool useWorld() const { return use_world_; }
    [[nodiscard]] int cp() const { return cp_; }
    [[nodiscard]] int ep() const { return ep_; }
    [[nodiscard]] int experts() const { return experts_; }
    [[nodiscard]] int order() const { return static_cast<int>(order_); }
    void setNodes(int value);
    void setGpusPerNode(int value);
    void setWorld(int value);
    void setUseWorld(bool value);
    void setCp(int value);
    void setEp(int value);
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

    [[nodiscard]] int planRevision() const { return revision_; }
    [[nodiscard]] int planWorld() const;
    [[nodiscard]] int planDp() const;
    [[nodiscard]] int planCp() const;
    [[nodiscard]] int planEp() const;
    [[nodiscard]] int planEfsdp() const;
    [[nodiscard]] int planEdp() const;
    [[nodiscard]] int planNodes() const;
    [[nodiscard]] bool hasExpertMesh() const;
    [[nodiscard]] QString topologyText() const;
    [[nodiscard]] QString expertMeshText() const;
    [[nodiscard]] QString clusterText() const;
    [[nodiscard]] QStringList warnings() const;
    [[nodiscard]] QString llamaFactoryYaml() const { return exportText(QStringLiteral("yaml")); }
    [[nodiscard]] QString torchrunCommand() const { return exportText(QStringLiteral("torchrun")); }

    [[nodiscard]] int viewMesh() const { return static_cast<int>(view_mesh_); }
    void setViewMesh(int mesh);  // anything but a MeshView value is ignored
    [[nodiscard]] bool showingExpertMesh() const;
    [[nodiscard]] QString shownDim() const { return shown_dim_; }
    void setShownDim(const QString& dim);
    [[nodiscard]] int selectedRank() const { return selected_rank_; }
    void setSelectedRank(int rank);
    [[nodiscard]] DimsModel* legend() { return &legend_; }
    [[nodiscard]] DimsModel* dims() { return &dims_; }
    [[nodiscard]] InspectorModel* inspector() { return &inspector_; }
    [[nodiscard]] QString statusText() const { return status_text_; }

    // The plan on screen; never null (the controller starts from a valid default).
    [[nodiscard]] std::shared_ptr<const Plan> plan() const { return plan_; }

    // Sets the input a suggestion names to its value.
    Q_INVOKABLE void applySuggestion(int row);
    Q_INVOKABLE void applyExpertsSuggestion(int row);
    // Shows all groups of a dim, or hides them when that dim is already shown.
    Q_INVOKABLE void toggleShownDim(const QString& dim);
    // kind: "json", "yaml" or "torchrun"; an unknown kind gives an empty string.
    Q_INVOKABLE QString exportText(const QString& kind) const;
    Q_INVOKABLE bool saveExport(const QString& kind, const QUrl& file);
    Q_INVOKABLE void copyExport(const QString& kind);
    // For the grid's own exports, so every export reports in one place.
    Q_INVOKABLE void reportStatus(const QString& text);

    // The last valid plan's inputs and the mesh shown, under "planner/".
    void restore(QSettings& settings);
    void save(QSettings& settings) const;

signals:
    void inputsChanged();
    void validityChanged();
    void expertsChanged();
    void planChanged();
    void viewChanged();
    void selectedRankChanged();
    void statusTextChanged();

private:
    void recompute();
    void update_experts();
    void set_error(const QString& text, PlanInput field, const QString& title,
                   std::vector<SuggestionModel::Suggestion> suggestions);
    void refresh_view_models();
    void set_status(const QString& text);

    int nodes_ = 2;
    int gpus_per_node_ = 8;
    int world_ = 16;
    bool use_world_ = false;
    int cp_ = 1;
    int ep_ = 8;
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
    int revision_ = 0;
    GridMesh view_mesh_ = GridMesh::expert;
    QString shown_dim_;
    int selected_rank_ = -1;
    DimsModel legend_;
    DimsModel dims_;
    InspectorModel inspector_;
    QString status_text_;
};

}  // namespace meshscope::ui
