#include "plan_controller.h"

#include <QClipboard>
#include <QFile>
#include <QGuiApplication>
#include <QSettings>

#include <numeric>

#include "meshscope/plan_export.h"
#include "meshscope/topology.h"

namespace meshscope::ui {

namespace {
std::vector<SuggestionModel::Suggestion> values_for(PlanInput field, const std::vector<std::int64_t>& values) {
    std::vector<SuggestionModel::Suggestion> out;
    for (std::int64_t v : values) out.push_back({field, v});
    return out;
}

bool starts_with(const std::string& text, std::string_view prefix) {
    return text.rfind(prefix, 0) == 0;
}
}  // namespace

PlanController::PlanController(QObject* parent) : QObject(parent) {
    recompute();
    // The default inputs are valid, so there is always a plan to draw.
    Q_ASSERT(plan_);
}

void PlanController::setNodes(int value) {
    if (value == nodes_) return;
    nodes_ = value;
    emit inputsChanged();
    recompute();
}

void PlanController::setGpusPerNode(int value) {
    if (value == gpus_per_node_) return;
    gpus_per_node_ = value;
    emit inputsChanged();
    recompute();
}

void PlanController::setWorld(int value) {
    if (value == world_) return;
    world_ = value;
    emit inputsChanged();
    recompute();
}

void PlanController::setUseWorld(bool value) {
    if (value == use_world_) return;
    use_world_ = value;
    // Switching keeps the same world: the other input takes the current size.
    if (use_world_ && plan_) world_ = static_cast<int>(plan_->topology().world());
    if (!use_world_ && plan_ && gpus_per_node_ > 0) nodes_ = static_cast<int>(plan_->placement().nodes());
    emit inputsChanged();
    recompute();
}

void PlanController::setCp(int value) {
    if (value == cp_) return;
    cp_ = value;
    emit inputsChanged();
    recompute();
}

void PlanController::setEp(int value) {
    if (value == ep_) return;
    ep_ = value;
    emit inputsChanged();
    recompute();
}

void PlanController::setExperts(int value) {
    if (value == experts_) return;
    experts_ = value;
    emit inputsChanged();
    update_experts();
}

QStringList PlanController::orderNames() {
    static_assert(static_cast<int>(CreationOrder::torch29) == 0 && static_cast<int>(CreationOrder::torch28) == 1);
    return {name_of(CreationOrder::torch29), name_of(CreationOrder::torch28)};
}

void PlanController::setOrder(int value) {
    const std::optional<CreationOrder> order = creation_order_of(value);
    if (!order || *order == order_) return;
    order_ = *order;
    emit inputsChanged();
    recompute();
}

void PlanController::set_error(const QString& text, PlanInput field, const QString& title,
                               std::vector<SuggestionModel::Suggestion> suggestions) {
    suggestions_.set(std::move(suggestions));
    if (text == error_text_ && field == error_field_ && title == suggestion_title_) return;
    error_text_ = text;
    error_field_ = field;
    suggestion_title_ = title;
    emit validityChanged();
}

void PlanController::recompute() {
    const PlanInput world_field = use_world_ ? PlanInput::world : PlanInput::nodes;
    // gpus per node first: without it "nodes" means no world at all.
    if (auto placement = Placement::make(1, gpus_per_node_); !placement) {
        set_error(QString::fromStdString(placement.error().message()), PlanInput::gpus_per_node,
                  QStringLiteral("GPUs per node:"), values_for(PlanInput::gpus_per_node, {8, 4, 2, 1}));
        update_experts();
        return;
    }
    const std::int64_t world = use_world_ ? std::int64_t{world_} : std::int64_t{nodes_} * gpus_per_node_;
    if (world > max_drawn_world) {
        set_error(QStringLiteral("The planner draws at most %1 ranks, got world_size %2; "
                                 "`meshscope plan --no-groups` handles larger worlds.")
                      .arg(max_drawn_world)
                      .arg(world),
                  world_field, {}, {});
        update_experts();
        return;
    }
    const auto topology = Topology::from_world(world, cp_, ep_);
    if (!topology) {
        const std::string message = topology.error().message();
        const QString text = QString::fromStdString(message);
        if (starts_with(message, "ep_size") || starts_with(message, "dp_size must be divisible")) {
            const std::int64_t dp = world / cp_;
            set_error(text, PlanInput::ep, QStringLiteral("valid ep (divides dp = %1):").arg(dp),
                      values_for(PlanInput::ep, valid_ep_sizes(dp)));
        } else if (starts_with(message, "cp_size") || message.find("cp_size (") != std::string::npos) {
            set_error(text, PlanInput::cp, QStringLiteral("valid cp (divides world = %1):").arg(world),
                      values_for(PlanInput::cp, valid_cp_sizes(world)));
        } else if (use_world_) {
            set_error(text, world_field, QStringLiteral("world size:"),
                      values_for(world_field, {gpus_per_node_, 2LL * gpus_per_node_}));
        } else {
            set_error(text, world_field, QStringLiteral("nodes:"), values_for(world_field, {1, 2, 4}));
        }
        update_experts();
        return;
    }
    auto plan = Plan::make(*topology, gpus_per_node_, order_);
    if (!plan) {
        set_error(QString::fromStdString(plan.error().message()), world_field, {}, {});
        update_experts();
        return;
    }
    set_error({}, PlanInput::none, {}, {});
    plan_ = std::make_shared<const Plan>(std::move(plan).value());
    ++revision_;
    if (selected_rank_ >= planWorld()) {
        selected_rank_ = -1;
        emit selectedRankChanged();
    }
    refresh_view_models();
    emit planChanged();
    update_experts();
}

void PlanController::update_experts() {
    QString text;
    bool ok = true;
    std::vector<SuggestionModel::Suggestion> suggestions;
    if (experts_ != 0 && plan_) {
        const Topology& t = plan_->topology();
        const auto per_rank = experts_per_rank(experts_, t.ep);
        if (per_rank) {
            text =
                t.ep > 1
                    ? QStringLiteral("%1 experts per rank (%2 experts / ep %3)").arg(*per_rank).arg(experts_).arg(t.ep)
                    : QStringLiteral("%1 experts per rank: ep = 1 keeps every expert on every rank").arg(*per_rank);
        } else {
            ok = false;
            text = QString::fromStdString(per_rank.error().message());
            // ep values that divide both dp (a valid plan) and the experts (whole experts per rank).
            if (experts_ > 0)
                for (std::int64_t e : valid_ep_sizes(std::gcd(t.dp, std::int64_t{experts_})))
                    suggestions.push_back({PlanInput::ep, e});
        }
    }
    experts_suggestions_.set(std::move(suggestions));
    if (text == experts_text_ && ok == experts_valid_) return;
    experts_text_ = text;
    experts_valid_ = ok;
    emit expertsChanged();
}

int PlanController::planWorld() const {
    return static_cast<int>(plan_->topology().world());
}
int PlanController::planDp() const {
    return static_cast<int>(plan_->topology().dp);
}
int PlanController::planCp() const {
    return static_cast<int>(plan_->topology().cp);
}
int PlanController::planEp() const {
    return static_cast<int>(plan_->topology().ep);
}
int PlanController::planEfsdp() const {
    return static_cast<int>(plan_->topology().efsdp);
}
int PlanController::planEdp() const {
    return static_cast<int>(plan_->topology().edp);
}
int PlanController::planNodes() const {
    return static_cast<int>(plan_->placement().nodes());
}
bool PlanController::hasExpertMesh() const {
    return plan_->topology().has_expert_mesh();
}

QString PlanController::topologyText() const {
    const Topology& t = plan_->topology();
    return QStringLiteral("(dp, cp, ep) = %1 · world %2 = dp %3 × cp %4")
        .arg(QString::fromStdString(t.tuple_string()))
        .arg(t.world())
        .arg(t.dp)
        .arg(t.cp);
}

QString PlanController::expertMeshText() const {
    const Topology& t = plan_->topology();
    if (!t.has_expert_mesh()) return QStringLiteral("No expert mesh: ep = 1 (FSDPTurbo builds none; efsdp = edp = 1)");
    return QStringLiteral("edp %1 × efsdp %2 × ep %3 × expert_cp %4").arg(t.edp).arg(t.efsdp).arg(t.ep).arg(t.cp);
}

QString PlanController::clusterText() const {
    const Placement& p = plan_->placement();
    return QStringLiteral("%1 %2 × %3 GPUs per node")
        .arg(p.nodes())
        .arg(p.nodes() == 1 ? QStringLiteral("node") : QStringLiteral("nodes"))
        .arg(p.gpus_per_node);
}

QStringList PlanController::warnings() const {
    QStringList out;
    for (const Warning& w : plan_->warnings()) out << QString::fromStdString(w.message);
    return out;
}

void PlanController::setViewMesh(int value) {
    const std::optional<GridMesh> mesh = grid_mesh_of(value);
    if (!mesh || *mesh == view_mesh_) return;
    view_mesh_ = *mesh;
    refresh_view_models();
    emit viewChanged();
}

bool PlanController::showingExpertMesh() const {
    return view_mesh_ == GridMesh::expert && hasExpertMesh();
}

void PlanController::setShownDim(const QString& dim) {
    if (dim == shown_dim_) return;
    shown_dim_ = dim;
    refresh_view_models();
    emit viewChanged();
}

void PlanController::toggleShownDim(const QString& dim) {
    setShownDim(dim == shown_dim_ ? QString() : dim);
}

void PlanController::setSelectedRank(int rank) {
    if (rank < -1 || rank >= planWorld()) rank = -1;
    if (rank == selected_rank_) return;
    selected_rank_ = rank;
    inspector_.set(plan_, selected_rank_);
    emit selectedRankChanged();
}

void PlanController::refresh_view_models() {
    const QString mesh = showingExpertMesh() ? QStringLiteral("expert") : QStringLiteral("data");
    // A dim of the other mesh cannot be shown in this one.
    const PlanMesh* pm = plan_->mesh(mesh.toStdString());
    if (!shown_dim_.isEmpty() && (pm == nullptr || !pm->mesh.dim_index(shown_dim_.toStdString()))) shown_dim_.clear();
    legend_.set_plan(plan_, mesh);
    legend_.set_shown_dim(shown_dim_);
    dims_.set_plan(plan_, {});
    dims_.set_shown_dim(shown_dim_);
    inspector_.set(plan_, selected_rank_);
}

void PlanController::applySuggestion(int row) {
    const auto* s = suggestions_.at(row);
    if (s == nullptr) return;
    const auto field = s->field;  // the model changes under us once the input is set
    const auto value = static_cast<int>(s->value);
    switch (field) {
        case PlanInput::ep: setEp(value); break;
        case PlanInput::cp: setCp(value); break;
        case PlanInput::nodes: setNodes(value); break;
        case PlanInput::world: setWorld(value); break;
        case PlanInput::gpus_per_node: setGpusPerNode(value); break;
        case PlanInput::none: break;
    }
}

void PlanController::applyExpertsSuggestion(int row) {
    if (const auto* s = experts_suggestions_.at(row)) setEp(static_cast<int>(s->value));
}

QString PlanController::exportText(const QString& kind) const {
    // The same bytes as `meshscope plan --format <kind>` and GET /api/v1/plan/export: core writes them.
    const auto format = parse_plan_export_format(kind.toStdString());
    return format ? QString::fromStdString(plan_export(*plan_, *format)) : QString();
}

bool PlanController::saveExport(const QString& kind, const QUrl& file) {
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

void PlanController::copyExport(const QString& kind) {
    const QString text = exportText(kind);
    if (auto* clipboard = QGuiApplication::clipboard(); clipboard != nullptr && !text.isEmpty()) {
        clipboard->setText(text);
        set_status(QStringLiteral("Copied the %1 to the clipboard")
                       .arg(kind == QLatin1String("json")   ? QStringLiteral("plan JSON")
                            : kind == QLatin1String("yaml") ? QStringLiteral("LlamaFactory YAML")
                                                            : QStringLiteral("torchrun command")));
    }
}

void PlanController::reportStatus(const QString& text) {
    set_status(text);
}

void PlanController::set_status(const QString& text) {
    if (text == status_text_) return;
    status_text_ = text;
    emit statusTextChanged();
}

void PlanController::restore(QSettings& settings) {
    settings.beginGroup(QStringLiteral("planner"));
    // Only a complete, valid plan is restored; anything else keeps the defaults.
    const int nodes = settings.value(QStringLiteral("nodes"), nodes_).toInt();
    const int gpus = settings.value(QStringLiteral("gpusPerNode"), gpus_per_node_).toInt();
    const int world = settings.value(QStringLiteral("world"), world_).toInt();
    const bool use_world = settings.value(QStringLiteral("useWorld"), use_world_).toBool();
    const int cp = settings.value(QStringLiteral("cp"), cp_).toInt();
    const int ep = settings.value(QStringLiteral("ep"), ep_).toInt();
    const int experts = settings.value(QStringLiteral("experts"), experts_).toInt();
    // Settings keep names (core's for the order), so a file stays readable and survives enum changes.
    const std::optional<CreationOrder> order =
        creation_order_named(settings.value(QStringLiteral("order"), name_of(order_)).toString());
    const std::optional<GridMesh> view =
        grid_mesh_named(settings.value(QStringLiteral("viewMesh"), name_of(view_mesh_)).toString());
    settings.endGroup();
    const std::int64_t w = use_world ? std::int64_t{world} : std::int64_t{nodes} * gpus;
    const auto topology = Topology::from_world(w, cp, ep);
    if (!topology || gpus < 1 || w > max_drawn_world || !order) return;
    use_world_ = use_world;
    nodes_ = nodes;
    gpus_per_node_ = gpus;
    world_ = world;
    cp_ = cp;
    ep_ = ep;
    experts_ = std::max(0, experts);
    order_ = *order;
    emit inputsChanged();
    recompute();
    if (view) setViewMesh(static_cast<int>(*view));
}

void PlanController::save(QSettings& settings) const {
    const Topology& t = plan_->topology();
    settings.beginGroup(QStringLiteral("planner"));
    settings.setValue(QStringLiteral("useWorld"), use_world_);
    settings.setValue(QStringLiteral("nodes"), static_cast<int>(plan_->placement().nodes()));
    settings.setValue(QStringLiteral("world"), static_cast<int>(t.world()));
    settings.setValue(QStringLiteral("gpusPerNode"), static_cast<int>(plan_->placement().gpus_per_node));
    settings.setValue(QStringLiteral("cp"), static_cast<int>(t.cp));
    settings.setValue(QStringLiteral("ep"), static_cast<int>(t.ep));
    settings.setValue(QStringLiteral("experts"), experts_);
    settings.setValue(QStringLiteral("order"), name_of(plan_->order()));
    settings.setValue(QStringLiteral("viewMesh"), name_of(view_mesh_));
    settings.endGroup();
}

}  // namespace meshscope::ui
