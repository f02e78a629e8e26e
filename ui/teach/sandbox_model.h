// SandboxModel: the singleton pitfall's sandbox, one simulated training process holding FSDPTurbo's parallel
// state. Each call the learner makes (initialize with (dp, cp, ep), MeshScope's reset, a relaunch) is appended to
// the history, and the whole history is replayed by core's run_sandbox, so every row shows what core says that
// call did: its outcome, the exact error with its type, and the state after it. No JavaScript copy of the rules.
//
//   sandbox.initialize(16, 1, 2); sandbox.initialize(16, 1, 4)   // row 1: RuntimeError "... already initialized ..."
#pragma once

#include <QtQml/qqmlregistration.h>

#include <vector>

#include <nlohmann/json.hpp>

#include "meshscope/tour/tour.h"
#include "row_list_model.h"

namespace meshscope::ui {

// A call of the history and what core's replay says it did.
struct SandboxRow {
    SandboxCall call;
    SandboxResult result;
};

class SandboxModel : public MESHSCOPE_ROW_LIST_MODEL(SandboxRow) {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("SandboxModel belongs to a TourController")
    Q_PROPERTY(bool initialized READ initialized NOTIFY historyChanged)
    // "dp 16 · cp 1 · ep 2 · efsdp 8 · edp 1", or "not initialized"
    Q_PROPERTY(QString stateText READ stateText NOTIFY historyChanged)
    // The last call and what it did: "initialize(16, 1, 4)" and "RuntimeError: FSDPTurbo parallel state ..."
    Q_PROPERTY(QString lastCall READ lastCall NOTIFY historyChanged)
    Q_PROPERTY(QString lastResult READ lastResult NOTIFY historyChanged)
    Q_PROPERTY(bool lastFailed READ lastFailed NOTIFY historyChanged)

public:
    enum Role { CallRole = Qt::UserRole + 1, OpRole, OutcomeRole, ErrorTypeRole, ErrorTextRole, StateTextRole };
    Q_ENUM(Role)

    explicit SandboxModel(QObject* parent = nullptr);

    [[nodiscard]] bool initialized() const;
    [[nodiscard]] QString stateText() const;
    [[nodiscard]] QString lastCall() const;
    [[nodiscard]] QString lastResult() const;
    [[nodiscard]] bool lastFailed() const;

    Q_INVOKABLE void initialize(int dp, int cp, int ep);
    Q_INVOKABLE void reset();
    Q_INVOKABLE void relaunch();
    // A fresh process with no calls yet (a tour step's "fresh": true).
    Q_INVOKABLE void clear();

    // {"calls": [{"op": "initialize", "dp": 16, "cp": 1, "ep": 2}, {"op": "reset"}, ...]}: the answer to a
    // `sandbox` check.
    [[nodiscard]] nlohmann::json calls_json() const;

signals:
    void historyChanged();
    void called();  // the learner made a call (not on clear)

private:
    void call(SandboxCall call);
};

// "dp 16 · cp 1 · ep 2 · efsdp 8 · edp 1"; "not initialized" for none.
[[nodiscard]] QString sandbox_state_text(const std::optional<Topology>& state);

}  // namespace meshscope::ui
