#include "live_demo.h"

#include "collector_tour_jobs.h"
#include "http/collector_service.h"
#include "meshscope/client/reporter.h"

namespace meshscope::demo {

Expected<std::unique_ptr<LiveDemo>> LiveDemo::start(LiveDemoOptions options) {
    std::optional<sim::Scenario> first;
    if (options.demo_job) {
        auto scenario = sim::make_scenario(options.scenario);
        if (!scenario) return scenario.error();
        first = std::move(scenario).value();
    }
    std::unique_ptr<LiveDemo> demo(new LiveDemo());
    if (!demo->folder_.isValid()) return RuntimeError("cannot create a temporary folder for the demo's history");

    server::CollectorOptions collector;
    collector.database = demo->folder_.filePath(QStringLiteral("demo.db")).toStdString();
    collector.durability = server::Durability::normal;  // a throw-away history: no fsync per commit
    collector.monitor.missing_after = options.missing_after;
    collector.monitor.stale_after = options.stale_after;
    server::HttpOptions http;
    http.port = 0;  // any free loopback port
    http.tour_jobs = CollectorTourJobs::factory();
    auto service = server::CollectorService::start(std::move(collector), http);
    if (!service) return service.error();
    demo->service_ = std::move(service).value();

    demo->run_.time_scale = options.time_scale;
    demo->run_.hold = true;
    demo->run_.heartbeat_interval = 1.0;
    if (first) {
        demo->has_demo_job_ = true;
        demo->run(std::move(*first));
    }
    return demo;
}

void LiveDemo::run(sim::Scenario scenario) {
    auto job = std::make_unique<Job>();
    job->scenario = std::move(scenario);
    client::ReporterOptions reporter;
    reporter.url = service_->url();
    job->reporter = std::make_unique<client::Reporter>(reporter);
    job->ranks =
        std::thread([j = job.get(), run = run_, this] { sim::run_scenario(j->scenario, *j->reporter, run, stop_); });
    jobs_.push_back(std::move(job));
}

std::optional<Error> LiveDemo::add_job(const sim::ScenarioOptions& options) {
    if (job_scenario(QString::fromStdString(options.job)) != nullptr) return std::nullopt;
    auto scenario = sim::make_scenario(options);
    if (!scenario) return scenario.error();
    run(std::move(scenario).value());
    return std::nullopt;
}

void LiveDemo::add_records(const std::string& name, std::string body) {
    auto& last = imported_[name];
    if (last == body) return;  // a later step of the same job: already there
    last = body;
    service_->collector().submit_records(name, std::move(body), [](const server::SubmitResult&) {});
}

const sim::Scenario* LiveDemo::job_scenario(const QString& job) const {
    for (const auto& j : jobs_)
        if (QString::fromStdString(j->scenario.job) == job) return &j->scenario;
    return nullptr;
}

const sim::Scenario& LiveDemo::scenario() const {
    static const sim::Scenario none;
    return has_demo_job_ ? jobs_.front()->scenario : none;
}

LiveDemo::~LiveDemo() {
    stop_ = true;
    for (auto& job : jobs_)
        if (job->ranks.joinable()) job->ranks.join();
    for (auto& job : jobs_) job->reporter->shutdown(std::chrono::milliseconds(500));
    jobs_.clear();
    service_.reset();
}

QString LiveDemo::url() const {
    return service_ ? QString::fromStdString(service_->url()) : QString();
}

}  // namespace meshscope::demo
