#include "sandbox_model.h"

namespace meshscope::ui {

namespace {
QString qt(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}
}  // namespace

QString sandbox_state_text(const std::optional<Topology>& state) {
    if (!state) return SandboxModel::tr("not initialized");
    return QStringLiteral("dp %1 · cp %2 · ep %3 · efsdp %4 · edp %5")
        .arg(state->dp)
        .arg(state->cp)
        .arg(state->ep)
        .arg(state->efsdp)
        .arg(state->edp);
}

int SandboxModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : count();
}

QString SandboxModel::call_text(std::size_t row) const {
    const SandboxCall& c = calls_[row];
    if (c.op == SandboxOp::initialize) return QStringLiteral("initialize(%1, %2, %3)").arg(c.dp).arg(c.cp).arg(c.ep);
    return qt(to_string(c.op)) + QStringLiteral("()");
}

QString SandboxModel::result_text(std::size_t row) const {
    const SandboxResult& r = results_[row];
    if (r.outcome == SandboxOutcome::error && r.error)
        return qt(python_name(r.error->type())) + QStringLiteral(": ") + QString::fromStdString(r.error->message());
    return qt(to_string(r.outcome));
}

QVariant SandboxModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const auto row = static_cast<std::size_t>(index.row());
    const SandboxResult& r = results_[row];
    switch (role) {
        case Qt::DisplayRole:
        case CallRole: return call_text(row);
        case OpRole: return qt(to_string(calls_[row].op));
        case OutcomeRole: return qt(to_string(r.outcome));
        case ErrorTypeRole: return r.error ? qt(python_name(r.error->type())) : QString();
        case ErrorTextRole: return r.error ? QString::fromStdString(r.error->message()) : QString();
        case StateTextRole: return sandbox_state_text(r.state);
        default: return {};
    }
}

QHash<int, QByteArray> SandboxModel::roleNames() const {
    return {{CallRole, "call"},           {OpRole, "op"},
            {OutcomeRole, "outcome"},     {ErrorTypeRole, "errorType"},
            {ErrorTextRole, "errorText"}, {StateTextRole, "stateText"}};
}

bool SandboxModel::initialized() const {
    return !results_.empty() && results_.back().state.has_value();
}

QString SandboxModel::stateText() const {
    return sandbox_state_text(results_.empty() ? std::nullopt : results_.back().state);
}

QString SandboxModel::lastCall() const {
    return calls_.empty() ? QString() : call_text(calls_.size() - 1);
}

QString SandboxModel::lastResult() const {
    return results_.empty() ? QString() : result_text(results_.size() - 1);
}

bool SandboxModel::lastFailed() const {
    return !results_.empty() && results_.back().outcome == SandboxOutcome::error;
}

void SandboxModel::call(SandboxCall call) {
    std::vector<SandboxCall> calls = calls_;
    calls.push_back(call);
    // The whole history again: core's replay is the one truth, and a history is a few calls.
    std::vector<SandboxResult> results = run_sandbox(calls);
    const int row = count();
    beginInsertRows({}, row, row);
    calls_ = std::move(calls);
    results_ = std::move(results);
    endInsertRows();
    emit historyChanged();
    emit called();
}

void SandboxModel::initialize(int dp, int cp, int ep) {
    call({SandboxOp::initialize, dp, cp, ep});
}

void SandboxModel::reset() {
    call({SandboxOp::reset});
}

void SandboxModel::relaunch() {
    call({SandboxOp::relaunch});
}

void SandboxModel::clear() {
    if (calls_.empty()) return;
    beginResetModel();
    calls_.clear();
    results_.clear();
    endResetModel();
    emit historyChanged();
}

nlohmann::json SandboxModel::calls_json() const {
    nlohmann::json calls = nlohmann::json::array();
    for (const SandboxCall& c : calls_) {
        nlohmann::json call{{"op", to_string(c.op)}};
        if (c.op == SandboxOp::initialize) {
            call["dp"] = c.dp;
            call["cp"] = c.cp;
            call["ep"] = c.ep;
        }
        calls.push_back(std::move(call));
    }
    return {{"calls", std::move(calls)}};
}

}  // namespace meshscope::ui
