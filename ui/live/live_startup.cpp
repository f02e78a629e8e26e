#include "live_startup.h"

#include <QElapsedTimer>
#include <QSet>
#include <QTimer>
#include <QUrl>

#include <memory>

namespace meshscope::ui {

QString check_connect_url(const QString& url) {
    const QUrl parsed(url, QUrl::StrictMode);
    const bool ok = parsed.isValid() && !parsed.host().isEmpty() &&
                    (parsed.scheme() == QLatin1String("http") || parsed.scheme() == QLatin1String("https"));
    return ok ? QString()
              : QStringLiteral("--connect expects an http:// or https:// URL with a host, got '%1'").arg(url);
}

namespace {
bool shows_injected(LiveSession& session, const QString& job, int kinds) {
    if (session.inputs()->currentJob() != job) return false;
    QSet<QString> seen;
    for (const FindingRow& f : session.view()->findingRows().findings()) seen.insert(f.kind);
    return seen.size() >= kinds && session.view()->seenCount() > 0;
}
}  // namespace

void when_job_settled(LiveSession& session, const QString& job, int kinds, int timeout_ms, QObject* context,
                      std::function<void()> then) {
    auto* poll = new QTimer(context);
    auto elapsed = std::make_shared<QElapsedTimer>();
    elapsed->start();
    poll->setInterval(50);
    // An empty job: any job (no demo), settled is enough.
    QObject::connect(poll, &QTimer::timeout, context, [poll, elapsed, &session, job, kinds, timeout_ms, then] {
        const bool shows = job.isEmpty() || shows_injected(session, job, kinds);
        if ((session.view()->settled() && shows) || elapsed->elapsed() >= timeout_ms) {
            poll->stop();
            poll->deleteLater();
            then();
        }
    });
    poll->start();
}

}  // namespace meshscope::ui
