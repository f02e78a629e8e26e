#include "demo_startup.h"

#include "live_startup.h"

namespace meshscope::demo {

LiveStartup start_live(ui::LiveSession& session, const QString& connect_url, const QString& token, bool start_demo) {
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

void when_live_settled(ui::LiveSession& session, const LiveDemo* demo, int timeout_ms, QObject* context,
                       std::function<void()> then) {
    if (!demo) {
        ui::when_job_settled(session, QString(), 0, timeout_ms, context, std::move(then));
        return;
    }
    ui::when_job_settled(session, demo->job(), demo->injectedKinds(), timeout_ms, context, std::move(then));
}

}  // namespace meshscope::demo
