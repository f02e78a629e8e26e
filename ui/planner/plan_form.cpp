#include "plan_form.h"

#include <QSettings>

#include <numeric>

#include "meshscope/mesh/topology.h"

namespace meshscope::ui {

namespace {
std::vector<SuggestionModel::Suggestion> values_for(PlanInput field, const std::vector<std::int64_t>& values) {
    std::vector<SuggestionModel::Suggestion> out;
    for (std::int64_t v : values) out.push_back({field, v});
    return out;
}

// The planner's inputs as core's request: the world, or nodes of gpus GPUs; mp_shard 0 is LlamaFactory's default.
PlanRequest request_of(bool use_world, int size, int gpus, int cp, int ep, int mp_replicate, int mp_shard,
                       CreationOrder order) {
    PlanRequest request;
    (use_world ? request.world : request.nodes) = size;
    request.cp = cp;
    request.ep = ep;
    request.gpus_per_node = gpus;
    request.order = order;
    request.mp_replicate = mp_replicate;
    if (mp_shard != 0) request.mp_shard = mp_shard;
    return request;
}
}  // namespace

PlanForm::PlanForm(QObject* parent) : QObject(parent) {
    recompute();
    // The default inputs are valid, so there is always a plan to draw.
    Q_ASSERT(plan_);
}

void PlanForm::set_input(int& slot, int value) {
    if (value == slot) return;
    slot = value;
    emit inputsChanged();
    recompute();
}

void PlanForm::setNodes(int value) {
    set_input(nodes_, value);
}
void PlanForm::setGpusPerNode(int value) {
    set_input(gpus_per_node_, value);
}
void PlanForm::setWorld(int value) {
    set_input(world_, value);
}
void PlanForm::setCp(int value) {
    set_input(cp_, value);
}
void PlanForm::setEp(int value) {
    set_input(ep_, value);
}
void PlanForm::setMpReplicate(int value) {
    set_input(mp_replicate_, value);
}
void PlanForm::setMpShard(int value) {
    set_input(mp_shard_, value);
}

void PlanForm::setUseWorld(bool value) {
    if (value == use_world_) return;
    use_world_ = value;
    // Switching keeps the same world: the other input takes the current size.
    if (use_world_ && plan_) world_ = static_cast<int>(plan_->topology().world());
    if (!use_world_ && plan_ && gpus_per_node_ > 0) nodes_ = static_cast<int>(plan_->placement().nodes());
    emit inputsChanged();
    recompute();
}

void PlanForm::setExperts(int value) {
    if (value == experts_) return;
    experts_ = value;
    emit inputsChanged();
    update_experts();
}

QStringList PlanForm::orderNames() {
    static_assert(static_cast<int>(CreationOrder::torch29) == 0 && static_cast<int>(CreationOrder::torch28) == 1);
    return {name_of(CreationOrder::torch29), name_of(CreationOrder::torch28)};
}

void PlanForm::setOrder(int value) {
    const std::optional<CreationOrder> order = creation_order_of(value);
    if (!order || *order == order_) return;
    order_ = *order;
    emit inputsChanged();
    recompute();
}

void PlanForm::set_error(const QString& text, PlanInput field, const QString& title,
                         std::vector<SuggestionModel::Suggestion> suggestions) {
    suggestions_.set(std::move(suggestions));
    if (text == error_text_ && field == error_field_ && title == suggestion_title_) return;
    error_text_ = text;
    error_field_ = field;
    suggestion_title_ = title;
    emit validityChanged();
}

// The input a core error is about, and the values that fix it.
void PlanForm::set_topology_error(const Error& error, std::int64_t world) {
    const QString text = QString::fromStdString(error.message());
    const PlanInput world_field = use_world_ ? PlanInput::world : PlanInput::nodes;
    switch (error.input()) {
        case Input::gpus_per_node:
            set_error(text, PlanInput::gpus_per_node, QStringLiteral("GPUs per node:"),
                      values_for(PlanInput::gpus_per_node, {8, 4, 2, 1}));
            return;
        case Input::mp_shard:
            // mp_replicate divides the world here (checked first), so exactly one mp_shard fits.
            set_error(text, PlanInput::mp_shard, QStringLiteral("mp_shard (world / mp_replicate):"),
                      values_for(PlanInput::mp_shard, {world / mp_replicate_}));
            return;
        case Input::mp_replicate:
            set_error(text, PlanInput::mp_replicate,
                      QStringLiteral("valid mp_replicate (divides world = %1):").arg(world),
                      values_for(PlanInput::mp_replicate, valid_cp_sizes(world)));
            return;
        case Input::ep: {
            const std::int64_t dp = world / cp_;
            set_error(text, PlanInput::ep, QStringLiteral("valid ep (divides dp = %1):").arg(dp),
                      values_for(PlanInput::ep, valid_ep_sizes(dp)));
            return;
        }
        case Input::cp:
            set_error(text, PlanInput::cp, QStringLiteral("valid cp (divides world = %1):").arg(world),
                      values_for(PlanInput::cp, valid_cp_sizes(world)));
            return;
        default: break;
    }
    if (error.rule() == Rule::maximum)
        set_error(text, world_field, {}, {});
    else if (use_world_)
        set_error(text, world_field, QStringLiteral("world size:"),
                  values_for(world_field, {gpus_per_node_, 2LL * gpus_per_node_}));
    else
        set_error(text, world_field, QStringLiteral("nodes:"), values_for(world_field, {1, 2, 4}));
}

PlanRequest PlanForm::request() const {
    return request_of(use_world_, use_world_ ? world_ : nodes_, gpus_per_node_, cp_, ep_, mp_replicate_, mp_shard_,
                      order_);
}

void PlanForm::recompute() {
    // The planner draws every rank: a larger world is refused before its plan is built.
    const auto drawable = [](const Topology& topology) -> std::optional<PlanRejection> {
        if (topology.world() <= max_drawn_world) return std::nullopt;
        const QString text = QStringLiteral(
                                 "The planner draws at most %1 ranks, got world_size %2; "
                                 "`meshscope plan --no-groups` handles larger worlds.")
                                 .arg(max_drawn_world)
                                 .arg(topology.world());
        return PlanRejection{ValueError(text.toStdString(), Input::world, Rule::maximum), {}};
    };
    auto answer = plan_answer(request(), drawable, plan_);
    if (answer.rejection) {
        const std::int64_t world = use_world_ ? std::int64_t{world_} : std::int64_t{nodes_} * gpus_per_node_;
        set_topology_error(answer.rejection->error, world);
        update_experts();
        return;
    }
    set_error({}, PlanInput::none, {}, {});
    plan_ = std::move(answer.plan);
    emit planChanged();
    update_experts();
}

void PlanForm::update_experts() {
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

void PlanForm::applySuggestion(int row) {
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
        case PlanInput::mp_replicate: setMpReplicate(value); break;
        case PlanInput::mp_shard: setMpShard(value); break;
        case PlanInput::none: break;
    }
}

void PlanForm::applyExpertsSuggestion(int row) {
    if (const auto* s = experts_suggestions_.at(row)) setEp(static_cast<int>(s->value));
}

void PlanForm::set_layout(const Topology& layout) {
    const Placement& placement = plan_->placement();
    if (layout.world() != plan_->topology().world()) return;
    const bool changed = cp_ != layout.cp || ep_ != layout.ep || gpus_per_node_ != placement.gpus_per_node ||
                         (use_world_ ? world_ != layout.world() : nodes_ != placement.nodes());
    if (!changed) return;
    cp_ = static_cast<int>(layout.cp);
    ep_ = static_cast<int>(layout.ep);
    gpus_per_node_ = static_cast<int>(placement.gpus_per_node);
    if (use_world_)
        world_ = static_cast<int>(layout.world());
    else
        nodes_ = static_cast<int>(placement.nodes());
    emit inputsChanged();
    recompute();
}

bool PlanForm::restore(QSettings& settings) {
    settings.beginGroup(QStringLiteral("planner"));
    // Only a complete, valid plan is restored; anything else keeps the defaults.
    const int nodes = settings.value(QStringLiteral("nodes"), nodes_).toInt();
    const int gpus = settings.value(QStringLiteral("gpusPerNode"), gpus_per_node_).toInt();
    const int world = settings.value(QStringLiteral("world"), world_).toInt();
    const bool use_world = settings.value(QStringLiteral("useWorld"), use_world_).toBool();
    const int cp = settings.value(QStringLiteral("cp"), cp_).toInt();
    const int ep = settings.value(QStringLiteral("ep"), ep_).toInt();
    const int mp_replicate = settings.value(QStringLiteral("mpReplicate"), mp_replicate_).toInt();
    const int mp_shard = settings.value(QStringLiteral("mpShard"), mp_shard_).toInt();
    const int experts = settings.value(QStringLiteral("experts"), experts_).toInt();
    // Settings keep names (core's for the order), so a file stays readable and survives enum changes.
    const std::optional<CreationOrder> order =
        creation_order_named(settings.value(QStringLiteral("order"), name_of(order_)).toString());
    settings.endGroup();
    if (!order) return false;
    const auto topology =
        make_topology(request_of(use_world, use_world ? world : nodes, gpus, cp, ep, mp_replicate, mp_shard, *order));
    if (!topology || gpus < 1 || topology->world() > max_drawn_world) return false;
    use_world_ = use_world;
    nodes_ = nodes;
    gpus_per_node_ = gpus;
    world_ = world;
    cp_ = cp;
    ep_ = ep;
    mp_replicate_ = mp_replicate;
    mp_shard_ = mp_shard;
    experts_ = std::max(0, experts);
    order_ = *order;
    emit inputsChanged();
    recompute();
    return true;
}

void PlanForm::save(QSettings& settings) const {
    const Topology& t = plan_->topology();
    settings.beginGroup(QStringLiteral("planner"));
    settings.setValue(QStringLiteral("useWorld"), use_world_);
    settings.setValue(QStringLiteral("nodes"), static_cast<int>(plan_->placement().nodes()));
    settings.setValue(QStringLiteral("world"), static_cast<int>(t.world()));
    settings.setValue(QStringLiteral("gpusPerNode"), static_cast<int>(plan_->placement().gpus_per_node));
    settings.setValue(QStringLiteral("cp"), static_cast<int>(t.cp));
    settings.setValue(QStringLiteral("ep"), static_cast<int>(t.ep));
    settings.setValue(QStringLiteral("mpReplicate"), static_cast<int>(t.mp_replicate));
    // 0 keeps LlamaFactory's default (world / mp_replicate), so a saved default follows a new world.
    settings.setValue(QStringLiteral("mpShard"), mp_shard_ == 0 ? 0 : static_cast<int>(t.mp_shard));
    settings.setValue(QStringLiteral("experts"), experts_);
    settings.setValue(QStringLiteral("order"), name_of(plan_->order()));
    settings.endGroup();
}

}  // namespace meshscope::ui
