#include "live_startup.h"

#include <QElapsedTimer>
#include <QSet>
#include <QTimer>
#include <QUrl>

namespace meshscope::ui {

QString check_connect_url(const QString& url) {
    const QUrl parsed(url, QUrl::StrictMode);
    const bool ok = parsed.isValid() && !parsed.host().isEmpty() &&
                    (parsed.scheme() == QLatin1String("http") || parsed.scheme() == QLatin1String("https"));
    return ok ? QString()
              : QStringLiteral("--connect expects an http:// or https:// URL with a host, got '%1'").arg(url);
}

LiveStartup start_live(LiveSession& session, const QString& connect_url, const QString& token, bool start_demo) {
    LiveStartup startup;
    if (!connect_url.isEmpty()) {
        session.inputs()->setToken(token);
        session.inputs()->setUrl(connect_url);
        return startup;
    }
    if (!start_demo) return startup;
    auto demo = LiveDemo::start();
    if (!demo) {
        startup.error = QString::fromStdString(demo.error().what());
        return startup;
    }
    startup.demo = std::move(demo).value();
    session.inputs()->setUrl(startup.demo->url());
    return startup;
}

namespace {
bool shows_injected(LiveSession& session, const LiveDemo* demo) {
    if (!demo) return true;
    if (session.inputs()->currentJob() != demo->job()) return false;
    QSet<QString> kinds;
    for (const FindingRow& f : session.view()->findingRows().findings()) kinds.insert(f.kind);
    return kinds.size() >= demo->injectedKinds() && session.view()->seenCount() > 0;
}
}  // namespace

void when_live_settled(LiveSession& session, const LiveDemo* demo, int timeout_ms, QObject* context,
                       std::function<void()> then) {
    auto* poll = new QTimer(context);
    auto elapsed = std::make_shared<QElapsedTimer>();
    elapsed->start();
    poll->setInterval(50);
    QObject::connect(poll, &QTimer::timeout, context, [poll, elapsed, &session, demo, timeout_ms, then] {
        if ((session.view()->settled() && shows_injected(session, demo)) || elapsed->elapsed() >= timeout_ms) {
            poll->stop();
            poll->deleteLater();
            then();
        }
    });
    poll->start();
}

}  // namespace meshscope::ui
