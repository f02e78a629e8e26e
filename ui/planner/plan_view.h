// PlanView: what the planner shows of the form's last valid plan: its facts and texts, its exports, which mesh
// the grid draws and which dim's groups it outlines (the legend and the dims table follow both).
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QUrl>

#include "dims_model.h"
#include "plan_form.h"
#include "planner_enums.h"

class QSettings;

namespace meshscope::ui {

class PlanView : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("PlanView belongs to a PlanController")

    // The plan shown (the form's last valid one).
    Q_PROPERTY(int planRevision READ planRevision NOTIFY planChanged)
    Q_PROPERTY(int planWorld READ planWorld NOTIFY planChanged)
    Q_PROPERTY(int planDp READ planDp NOTIFY planChanged)
    Q_PROPERTY(int planCp READ planCp NOTIFY planChanged)
    Q_PROPERTY(int planEp READ planEp NOTIFY planChanged)
    Q_PROPERTY(int planEfsdp READ planEfsdp NOTIFY planChanged)
    Q_PROPERTY(int planEdp READ planEdp NOTIFY planChanged)
    Q_PROPERTY(int planMpReplicate READ planMpReplicate NOTIFY planChanged)
    Q_PROPERTY(int planMpShard READ planMpShard NOTIFY planChanged)
    Q_PROPERTY(int planNodes READ planNodes NOTIFY planChanged)
    Q_PROPERTY(bool hasExpertMesh READ hasExpertMesh NOTIFY planChanged)
    Q_PROPERTY(QString topologyText READ topologyText NOTIFY planChanged)
    Q_PROPERTY(QString modelMeshText READ modelMeshText NOTIFY planChanged)
    Q_PROPERTY(QString expertMeshText READ expertMeshText NOTIFY planChanged)
    Q_PROPERTY(QString clusterText READ clusterText NOTIFY planChanged)
    Q_PROPERTY(QStringList warnings READ warnings NOTIFY planChanged)
    Q_PROPERTY(QString llamaFactoryYaml READ llamaFactoryYaml NOTIFY planChanged)
    Q_PROPERTY(QString torchrunCommand READ torchrunCommand NOTIFY planChanged)
    Q_PROPERTY(QString statusText READ statusText NOTIFY statusTextChanged)  // the last export's outcome

    // What the grid draws.
    Q_PROPERTY(int viewMesh READ viewMesh WRITE setViewMesh NOTIFY viewChanged)  // the MeshView chosen
    Q_PROPERTY(int shownMesh READ shownMesh NOTIFY viewChanged)  // the MeshView drawn (expert falls back to data)
    Q_PROPERTY(bool showingExpertMesh READ showingExpertMesh NOTIFY viewChanged)
    Q_PROPERTY(QString shownDim READ shownDim WRITE setShownDim NOTIFY viewChanged)  // all its groups drawn
    Q_PROPERTY(meshscope::ui::DimsModel* legend READ legend CONSTANT)                // the drawn mesh's dims
    Q_PROPERTY(meshscope::ui::DimsModel* dims READ dims CONSTANT)                    // every dim of the plan

public:
    explicit PlanView(PlanForm* form, QObject* parent = nullptr);

    [[nodiscard]] int planRevision() const { return revision_; }
    [[nodiscard]] int planWorld() const;
    [[nodiscard]] int planDp() const;
    [[nodiscard]] int planCp() const;
    [[nodiscard]] int planEp() const;
    [[nodiscard]] int planEfsdp() const;
    [[nodiscard]] int planEdp() const;
    [[nodiscard]] int planMpReplicate() const;
    [[nodiscard]] int planMpShard() const;
    [[nodiscard]] int planNodes() const;
    [[nodiscard]] bool hasExpertMesh() const;
    [[nodiscard]] QString topologyText() const;
    [[nodiscard]] QString modelMeshText() const;
    [[nodiscard]] QString expertMeshText() const;
    [[nodiscard]] QString clusterText() const;
    [[nodiscard]] QStringList warnings() const;
    [[nodiscard]] QString llamaFactoryYaml() const { return exportText(QStringLiteral("yaml")); }
    [[nodiscard]] QString torchrunCommand() const { return exportText(QStringLiteral("torchrun")); }
    [[nodiscard]] QString statusText() const { return status_text_; }

    [[nodiscard]] int viewMesh() const { return static_cast<int>(view_mesh_); }
    void setViewMesh(int mesh);  // anything but a MeshView value is ignored
    [[nodiscard]] GridMesh drawn_mesh() const;
    [[nodiscard]] int shownMesh() const { return static_cast<int>(drawn_mesh()); }
    [[nodiscard]] bool showingExpertMesh() const { return drawn_mesh() == GridMesh::expert; }
    [[nodiscard]] QString shownDim() const { return shown_dim_; }
    void setShownDim(const QString& dim);
    [[nodiscard]] DimsModel* legend() { return &legend_; }
    [[nodiscard]] DimsModel* dims() { return &dims_; }

    // Shows all groups of a dim, or hides them when that dim is already shown.
    Q_INVOKABLE void toggleShownDim(const QString& dim);
    // kind: "json", "yaml" or "torchrun"; an unknown kind gives an empty string.
    Q_INVOKABLE QString exportText(const QString& kind) const;
    Q_INVOKABLE bool saveExport(const QString& kind, const QUrl& file);
    Q_INVOKABLE void copyExport(const QString& kind);
    // For the grid's own exports, so every export reports in one place.
    Q_INVOKABLE void reportStatus(const QString& text);

    // The mesh chosen, under "planner/viewMesh" (by name).
    void restore(QSettings& settings);
    void save(QSettings& settings) const;

signals:
    void planChanged();
    void viewChanged();
    void statusTextChanged();

private:
    [[nodiscard]] const Plan& plan() const { return *form_->plan(); }
    void on_plan_changed();
    void refresh_models();
    void set_status(const QString& text);

    QPointer<PlanForm> form_;
    int revision_ = 0;
    GridMesh view_mesh_ = GridMesh::expert;
    QString shown_dim_;
    DimsModel legend_;
    DimsModel dims_;
    QString status_text_;
};

}  // namespace meshscope::ui
