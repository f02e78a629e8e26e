// What the dashboard's start-up needs of the Live page: a --connect URL checked, and a wait until the session
// shows a job settled (for screenshots). The Live page always watches a collector URL: the demo's embedded one
// (app/demo) or `meshscope --connect URL`'s.
#pragma once

#include <QObject>
#include <QString>

#include <functional>

#include "live_session.h"

namespace meshscope::ui {

// "--connect expects an http:// or https:// URL with a host, got 'x'" or empty when the URL is usable.
[[nodiscard]] QString check_connect_url(const QString& url);

// Calls `then` once the session has settled, watches `job` and shows `kinds` kinds of finding (an empty job: any
// job, settled is enough) — or after `timeout_ms`, whichever comes first.
void when_job_settled(LiveSession& session, const QString& job, int kinds, int timeout_ms, QObject* context,
                      std::function<void()> then);

}  // namespace meshscope::ui
