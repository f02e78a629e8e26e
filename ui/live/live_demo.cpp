#include "live_demo.h"

#include "http/collector_service.h"
#include "meshscope/client/reporter.h"

namespace meshscope::ui {

sim::ScenarioOptions demo_scenario() {
    sim::ScenarioOptions scenario;
    scenario.dp = 32;
    scenario.cp = 2;
    scenario.ep = 8;
    scenario.gpus_per_node = 8;
    scenario.job = "demo-dp32-cp2-ep8";
    scenario.faults = {
        {FindingKind::topology_mismatch, 1}, {FindingKind::straggler, 1}, {FindingKind::missing_rank, 1}};
    scenario.seed = 7;
    return scenario;
}

Expected<std::unique_ptr<LiveDemo>> LiveDemo::start(LiveDemoOptions options) {
    auto scenario = sim::make_scenario(options.scenario);
    if (!scenario) return scenario.error();
    std::unique_ptr<LiveDemo> demo(new LiveDemo());
    if (!demo->folder_.isValid()) return RuntimeError("cannot create a temporary folder for the demo's history");
    demo->scenario_ = std::move(scenario).value();

    server::CollectorOptions collector;
    collector.database = demo->folder_.filePath(QStringLiteral("demo.db")).toStdString();
    collector.durability = server::Durability::normal;  // a throw-away history: no fsync per commit
    collector.monitor.missing_after = options.missing_after;
    collector.monitor.stale_after = options.stale_after;
    server::HttpOptions http;
    http.port = 0;  // any free loopback port
    auto service = server::CollectorService::start(std::move(collector), http);
    if (!service) return service.error();
    demo->service_ = std::move(service).value();

    client::ReporterOptions reporter;
    reporter.url = demo->service_->url();
    demo->reporter_ = std::make_unique<client::Reporter>(reporter);
    sim::RunOptions run;
    run.time_scale = options.time_scale;
    run.hold = true;
    run.heartbeat_interval = 1.0;
    demo->ranks_ =
        std::thread([d = demo.get(), run] { sim::run_scenario(d->scenario_, *d->reporter_, run, d->stop_); });
    return demo;
}

LiveDemo::~LiveDemo() {
    stop_ = true;
    if (ranks_.joinable()) ranks_.join();
    if (reporter_) reporter_->shutdown(std::chrono::milliseconds(500));
    reporter_.reset();
    service_.reset();
}

QString LiveDemo::url() const {
    return service_ ? QString::fromStdString(service_->url()) : QString();
}

}  // namespace meshscope::ui
