#include "plan_view.h"

#include <QClipboard>
#include <QFile>
#include <QGuiApplication>
#include <QSettings>

#include "meshscope/mesh/plan_export.h"

namespace meshscope::ui {

PlanView::PlanView(PlanForm* form, QObject* parent) : QObject(parent), form_(form) {
    Q_ASSERT(form_);
    connect(form_, &PlanForm::planChanged, this, &PlanView::on_plan_changed);
    refresh_models();
}

void PlanView::on_plan_changed() {
    ++revision_;
    refresh_models();
    emit planChanged();
}

int PlanView::planWorld() const {
    return static_cast<int>(plan().topology().world());
}
int PlanView::planDp() const {
    return static_cast<int>(plan().topology().dp);
}
int PlanView::planCp() const {
    return static_cast<int>(plan().topology().cp);
}
int PlanView::planEp() const {
    return static_cast<int>(plan().topology().ep);
}
int PlanView::planEfsdp() const {
    return static_cast<int>(plan().topology().efsdp);
}
int PlanView::planEdp() const {
    return static_cast<int>(plan().topology().edp);
}
int PlanView::planMpReplicate() const {
    return static_cast<int>(plan().topology().mp_replicate);
}
int PlanView::planMpShard() const {
    return static_cast<int>(plan().topology().mp_shard);
}
int PlanView::planNodes() const {
    return static_cast<int>(plan().placement().nodes());
}
bool PlanView::hasExpertMesh() const {
    return plan().topology().has_expert_mesh();
}

QString PlanView::topologyText() const {
    const Topology& t = plan().topology();
    return QStringLiteral("(dp, cp, ep) = %1 · world %2 = dp %3 × cp %4")
        .arg(QString::fromStdString(t.tuple_string()))
        .arg(t.world())
        .arg(t.dp)
        .arg(t.cp);
}

QString PlanView::modelMeshText() const {
    const Topology& t = plan().topology();
    const QString text = QStringLiteral("mp_replicate %1 × mp_shard %2").arg(t.mp_replicate).arg(t.mp_shard);
    return t.mp_replicate == 1 ? text + QStringLiteral(" (LlamaFactory's default)") : text;
}

QString PlanView::expertMeshText() const {
    const Topology& t = plan().topology();
    if (!t.has_expert_mesh()) return QStringLiteral("No expert mesh: ep = 1 (FSDPTurbo builds none; efsdp = edp = 1)");
    return QStringLiteral("edp %1 × efsdp %2 × ep %3 × expert_cp %4").arg(t.edp).arg(t.efsdp).arg(t.ep).arg(t.cp);
}

QString PlanView::clusterText() const {
    const Placement& p = plan().placement();
    return QStringLiteral("%1 %2 × %3 GPUs per node")
        .arg(p.nodes())
        .arg(p.nodes() == 1 ? QStringLiteral("node") : QStringLiteral("nodes"))
        .arg(p.gpus_per_node);
}

QStringList PlanView::warnings() const {
    QStringList out;
    for (const Warning& w : plan().warnings()) out << QString::fromStdString(w.message);
    return out;
}

GridMesh PlanView::drawn_mesh() const {
    // The expert mesh exists only when ep > 1; the choice stays for when it does again.
    return view_mesh_ == GridMesh::expert && !hasExpertMesh() ? GridMesh::data : view_mesh_;
}

void PlanView::setViewMesh(int value) {
    const std::optional<GridMesh> mesh = grid_mesh_of(value);
    if (!mesh || *mesh == view_mesh_) return;
    view_mesh_ = *mesh;
    refresh_models();
    emit viewChanged();
}

void PlanView::setShownDim(const QString& dim) {
    if (dim == shown_dim_) return;
    shown_dim_ = dim;
    refresh_models();
    emit viewChanged();
}

void PlanView::toggleShownDim(const QString& dim) {
    setShownDim(dim == shown_dim_ ? QString() : dim);
}

void PlanView::refresh_models() {
    const auto plan = form_->plan();
    const QString mesh = name_of(drawn_mesh());
    // A dim of another mesh cannot be shown in this one.
    const PlanMesh* pm = plan->mesh(mesh.toStdString());
    if (!shown_dim_.isEmpty() && (pm == nullptr || !pm->mesh.dim_index(shown_dim_.toStdString()))) shown_dim_.clear();
    legend_.set_plan(plan, mesh);
    legend_.set_shown_dim(shown_dim_);
    dims_.set_plan(plan, {});
    dims_.set_shown_dim(shown_dim_);
}

QString PlanView::exportText(const QString& kind) const {
    // The same bytes as `meshscope plan --format <kind>` and GET /api/v1/plan/export: core writes them.
    const auto format = parse_plan_export_format(kind.toStdString());
    return format ? QString::fromStdString(plan_export(plan(), *format)) : QString();
}

bool PlanView::saveExport(const QString& kind, const QUrl& file) {
    const QString text = exportText(kind);
    const QString path = file.isLocalFile() ? file.toLocalFile() : file.toString();
    QFile out(path);
    if (text.isEmpty() || !out.open(QIODevice::WriteOnly | QIODevice::Truncate) || out.write(text.toUtf8()) < 0) {
        set_status(QStringLiteral("Could not write %1: %2").arg(path, out.errorString()));
        return false;
    }
    set_status(QStringLiteral("Saved %1").arg(path));
    return true;
}

void PlanView::copyExport(const QString& kind) {
    const QString text = exportText(kind);
    if (auto* clipboard = QGuiApplication::clipboard(); clipboard != nullptr && !text.isEmpty()) {
        clipboard->setText(text);
        set_status(QStringLiteral("Copied the %1 to the clipboard")
                       .arg(kind == QLatin1String("json")   ? QStringLiteral("plan JSON")
                            : kind == QLatin1String("yaml") ? QStringLiteral("LlamaFactory YAML")
                                                            : QStringLiteral("torchrun command")));
    }
}

void PlanView::reportStatus(const QString& text) {
    set_status(text);
}

void PlanView::set_status(const QString& text) {
    if (text == status_text_) return;
    status_text_ = text;
    emit statusTextChanged();
}

void PlanView::restore(QSettings& settings) {
    const std::optional<GridMesh> view =
        grid_mesh_named(settings.value(QStringLiteral("planner/viewMesh"), name_of(view_mesh_)).toString());
    if (view) setViewMesh(static_cast<int>(*view));
}

void PlanView::save(QSettings& settings) const {
    settings.setValue(QStringLiteral("planner/viewMesh"), name_of(view_mesh_));
}

}  // namespace meshscope::ui
