// TourJobs: the simulated jobs of a tour's live steps. A step's `simulate` (dp, cp, ep, gpus_per_node, faults in
// `meshscope simulate --faults` form) runs as job `tour-NAME` in the dashboard's embedded collector (LiveDemo),
// and the Live page's session watches it. Without an embedded collector (`--connect`, a Planner screenshot, a
// test) TourJobs starts one of its own, with no demo job, and points the session at it.
#pragma once

#include <QString>

#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "live_demo.h"
#include "live_session.h"
#include "meshscope/error.h"

namespace meshscope::ui {

class TourJobs {
public:
    // The app's embedded demo collector (may be null); it outlives this.
    void set_demo(LiveDemo* demo) { demo_ = demo; }

    // Starts `job` with the shape of `simulate` unless it already runs, and has `session` watch it. The
    // simulator's or core's ValueError when the shape or the faults are refused.
    [[nodiscard]] std::optional<Error> show(const QString& job, const nlohmann::json& simulate, LiveSession& session);
    // How many finding kinds the simulator injected into `job` (0 for a job not started here).
    [[nodiscard]] int injected_kinds(const QString& job) const;

private:
    [[nodiscard]] LiveDemo* collector();

    LiveDemo* demo_ = nullptr;
    std::unique_ptr<LiveDemo> own_;
};

}  // namespace meshscope::ui
