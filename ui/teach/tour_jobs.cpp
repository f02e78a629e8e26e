#include "tour_jobs.h"

#include "simulation.h"

namespace meshscope::ui {

namespace {
std::int64_t size_of(const nlohmann::json& simulate, const char* key, std::int64_t fallback) {
    const auto it = simulate.find(key);
    return it != simulate.end() && it->is_number_integer() ? it->get<std::int64_t>() : fallback;
}
}  // namespace

LiveDemo* TourJobs::collector() {
    if (demo_) return demo_;
    if (!own_) {
        LiveDemoOptions options;
        options.demo_job = false;
        options.stale_after = 6.0;  // a tour's stale_rank shows within seconds, not the demo's half minute
        auto demo = LiveDemo::start(options);
        if (!demo) return nullptr;
        own_ = std::move(demo).value();
    }
    return own_.get();
}

std::optional<Error> TourJobs::show(const QString& job, const nlohmann::json& simulate, LiveSession& session) {
    LiveDemo* demo = collector();
    if (!demo) return RuntimeError("the dashboard's collector did not start");
    sim::ScenarioOptions options;
    options.dp = size_of(simulate, "dp", options.dp);
    options.cp = size_of(simulate, "cp", options.cp);
    options.ep = size_of(simulate, "ep", options.ep);
    options.gpus_per_node = size_of(simulate, "gpus_per_node", options.gpus_per_node);
    options.job = job.toStdString();
    options.seed = 7;  // the demo's: a tour shows the same job every time
    if (const auto faults = simulate.find("faults"); faults != simulate.end() && faults->is_string()) {
        auto counts = sim::parse_faults(faults->get<std::string>());
        if (!counts) return counts.error();
        options.faults = std::move(counts).value();
    }
    if (auto error = demo->add_job(options)) return error;
    if (session.inputs()->url() != demo->url()) session.inputs()->setUrl(demo->url());
    session.inputs()->setCurrentJob(job);
    return std::nullopt;
}

int TourJobs::injected_kinds(const QString& job) const {
    for (const LiveDemo* demo : {demo_, own_.get()})
        if (demo)
            if (const sim::Scenario* scenario = demo->job_scenario(job))
                return static_cast<int>(scenario->injected.size());
    return 0;
}

}  // namespace meshscope::ui
