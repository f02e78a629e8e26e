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

namespace {
QString call_text(const SandboxCall& c) {
    if (c.op == SandboxOp::initialize) return QStringLiteral("initialize(%1, %2, %3)").arg(c.dp).arg(c.cp).arg(c.ep);
    return qt(to_string(c.op)) + QStringLiteral("()");
}

QString result_text(const SandboxResult& r) {
    if (r.outcome == SandboxOutcome::error && r.error)
        return qt(python_name(r.error->type())) + QStringLiteral(": ") + QString::fromStdString(r.error->message());
    return qt(to_string(r.outcome));
}

using R = SandboxRow;
constexpr RowRole<R> roles[] = {
    {SandboxModel::CallRole, "call", [](const R& r) -> QVariant { return call_text(r.call); }},
    {SandboxModel::OpRole, "op", [](const R& r) -> QVariant { return qt(to_string(r.call.op)); }},
    {SandboxModel::OutcomeRole, "outcome", [](const R& r) -> QVariant { return qt(to_string(r.result.outcome)); }},
    {SandboxModel::ErrorTypeRole, "errorType",
     [](const R& r) -> QVariant { return r.result.error ? qt(python_name(r.result.error->type())) : QString(); }},
    {SandboxModel::ErrorTextRole, "errorText",
     [](const R& r) -> QVariant {
         return r.result.error ? QString::fromStdString(r.result.error->message()) : QString();
     }},
    {SandboxModel::StateTextRole, "stateText",
     [](const R& r) -> QVariant { return sandbox_state_text(r.result.state); }},
};
static_assert(roles_in_order(roles));
}  // namespace

SandboxModel::SandboxModel(QObject* parent) : RowListModel(roles, CallRole, parent) {}

bool SandboxModel::initialized() const {
    return !rows().empty() && rows().back().result.state.has_value();
}

QString SandboxModel::stateText() const {
    return sandbox_state_text(rows().empty() ? std::nullopt : rows().back().result.state);
}

QString SandboxModel::lastCall() const {
    return rows().empty() ? QString() : call_text(rows().back().call);
}

QString SandboxModel::lastResult() const {
    return rows().empty() ? QString() : result_text(rows().back().result);
}

bool SandboxModel::lastFailed() const {
    return !rows().empty() && rows().back().result.outcome == SandboxOutcome::error;
}

void SandboxModel::call(SandboxCall call) {
    std::vector<SandboxCall> calls;
    for (const SandboxRow& row : rows()) calls.push_back(row.call);
    calls.push_back(call);
    // The whole history again: core's replay is the one truth, and a history is a few calls. A replay's earlier
    // results are those of the shorter history, so only the new call's row is added.
    std::vector<SandboxResult> results = run_sandbox(calls);
    insertRowAt(count(), {call, std::move(results.back())});
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
    if (rows().empty()) return;
    setRows({});
    emit historyChanged();
}

nlohmann::json SandboxModel::calls_json() const {
    nlohmann::json calls = nlohmann::json::array();
    for (const SandboxRow& row : rows()) {
        const SandboxCall& c = row.call;
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
