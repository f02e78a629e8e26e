#include "cost_form.h"

#include <QSettings>

#include "meshscope/cost/cluster.h"
#include "meshscope/cost/presets.h"

namespace meshscope::ui {

namespace {
constexpr cost::Recompute recompute_modes[] = {cost::Recompute::none, cost::Recompute::selective,
                                               cost::Recompute::full};

QString qt(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}
}  // namespace

CostForm::CostForm(QObject* parent) : QObject(parent) {}

template <typename T>
void CostForm::set_input(T& slot, const T& value) {
    if (value == slot) return;
    slot = value;
    emit inputsChanged();
}

void CostForm::setModel(const QString& value) {
    set_input(model_, value);
}
void CostForm::setHardware(const QString& value) {
    set_input(hardware_, value);
}
void CostForm::setNetwork(const QString& value) {
    set_input(network_, value);
}
void CostForm::setSeq(int value) {
    set_input(seq_, value);
}
void CostForm::setMicroBatch(int value) {
    set_input(micro_batch_, value);
}
void CostForm::setGradAccum(int value) {
    set_input(grad_accum_, value);
}
void CostForm::setGlobalBatch(int value) {
    set_input(global_batch_, value);
}
void CostForm::setRecompute(const QString& value) {
    set_input(recompute_, value);
}

void CostForm::setClusterProfile(std::shared_ptr<const cost::LoadedClusterProfile> profile) {
    if (profile == cluster_profile_) return;
    cluster_profile_ = std::move(profile);
    emit inputsChanged();
}

QStringList CostForm::modelNames() {
    QStringList names{no_model};
    for (const auto& m : cost::model_presets()) names << QString::fromStdString(m.name);
    return names;
}

QStringList CostForm::hardwareNames() {
    QStringList names;
    for (const auto& h : cost::hardware_presets()) names << qt(h.name);
    return names;
}

QStringList CostForm::networkNames() {
    QStringList names;
    for (const auto& n : cost::network_presets()) names << qt(n.name);
    return names;
}

QStringList CostForm::recomputeNames() {
    QStringList names;
    for (const auto r : recompute_modes) names << qt(cost::to_string(r));
    return names;
}

cost::CostRequest CostForm::request(std::int64_t gpus_per_node) const {
    cost::CostRequest r;
    r.model = model_.toStdString();
    r.hardware = hardware_.toStdString();
    r.network = network_.toStdString();
    r.gpus_per_node = gpus_per_node;
    r.seq = std::to_string(seq_);
    r.micro_batch = std::to_string(micro_batch_);
    r.grad_accum = std::to_string(grad_accum_);
    r.global_batch = std::to_string(global_batch_);
    r.recompute = recompute_.toStdString();
    r.cluster_profile = cluster_profile_;
    return r;
}

std::optional<cost::CostAnswer> CostForm::inputs(std::int64_t gpus_per_node) const {
    if (!hasModel()) return std::nullopt;
    return cost::cost_answer(request(gpus_per_node));
}

QString CostForm::errorText() const {
    const auto in = inputs(0);
    return in && in->rejection ? QString::fromStdString(in->rejection->message) : QString();
}

QString CostForm::errorField() const {
    const auto in = inputs(0);
    return in && in->rejection ? qt(cost::to_string(in->rejection->field)) : QString();
}

bool CostForm::restore(QSettings& settings) {
    settings.beginGroup(QStringLiteral("planner/cost"));
    CostForm read;
    read.model_ = settings.value(QStringLiteral("model"), model_).toString();
    read.hardware_ = settings.value(QStringLiteral("hardware"), hardware_).toString();
    read.network_ = settings.value(QStringLiteral("network"), network_).toString();
    read.seq_ = settings.value(QStringLiteral("seq"), seq_).toInt();
    read.micro_batch_ = settings.value(QStringLiteral("microBatch"), micro_batch_).toInt();
    read.grad_accum_ = settings.value(QStringLiteral("gradAccum"), grad_accum_).toInt();
    read.global_batch_ = settings.value(QStringLiteral("globalBatch"), global_batch_).toInt();
    read.recompute_ = settings.value(QStringLiteral("recompute"), recompute_).toString();
    settings.endGroup();
    // "none" is judged with a stand-in model, so its remembered hardware and step are checked too.
    const bool none = !read.hasModel();
    if (none) read.model_ = modelNames().value(1);
    if (!read.errorText().isEmpty()) return false;
    if (none) read.model_ = no_model;
    model_ = read.model_;
    hardware_ = read.hardware_;
    network_ = read.network_;
    seq_ = read.seq_;
    micro_batch_ = read.micro_batch_;
    grad_accum_ = read.grad_accum_;
    global_batch_ = read.global_batch_;
    recompute_ = read.recompute_;
    emit inputsChanged();
    return true;
}

void CostForm::save(QSettings& settings) const {
    settings.beginGroup(QStringLiteral("planner/cost"));
    settings.setValue(QStringLiteral("model"), model_);
    settings.setValue(QStringLiteral("hardware"), hardware_);
    settings.setValue(QStringLiteral("network"), network_);
    settings.setValue(QStringLiteral("seq"), seq_);
    settings.setValue(QStringLiteral("microBatch"), micro_batch_);
    settings.setValue(QStringLiteral("gradAccum"), grad_accum_);
    settings.setValue(QStringLiteral("globalBatch"), global_batch_);
    settings.setValue(QStringLiteral("recompute"), recompute_);
    settings.endGroup();
}

}  // namespace meshscope::ui
