// How the dashboard starts live mode: `meshscope` embeds the demo (collector + simulated job) and watches it;
// `meshscope --connect URL [--token T]` watches a remote `meshscope serve` instead. Either way the Live page gets
// a LiveSession pointed at a collector URL: one data path.
#pragma once

#include <QObject>
#include <QString>

#include <functional>
#include <memory>

#include "live_demo.h"
#include "live_session.h"

namespace meshscope::demo {

struct LiveStartup {
    std::unique_ptr<LiveDemo> demo;  // null with --connect (or when the demo could not start)
    QString error;                   // why the demo could not start (the window still opens)
};

// Points `session` at `connect_url` (with `token`), or when it is empty starts the demo and points the
// session at it. Needs a Q(Gui)Application.
[[nodiscard]] LiveStartup start_live(ui::LiveSession& session, const QString& connect_url, const QString& token,
                                     bool start_demo);

// Calls `then` once the session has settled and, with a demo, shows every kind of finding the demo
// injected — or after `timeout_ms`, whichever comes first (for screenshots of the Live page).
void when_live_settled(ui::LiveSession& session, const LiveDemo* demo, int timeout_ms, QObject* context,
                       std::function<void()> then);

}  // namespace meshscope::demo
