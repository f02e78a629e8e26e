#include "demo_tour_jobs.h"

#include "hang_jobs.h"
#include "scenarios.h"

namespace meshscope::demo {

DemoTourJobs::DemoTourJobs(QObject* parent) : ui::TourJobs(parent) {}

DemoTourJobs::~DemoTourJobs() = default;

LiveDemo* DemoTourJobs::collector() {
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

Expected<QString> DemoTourJobs::start(const TourJob& job, const QString& name) {
    LiveDemo* demo = collector();
    if (!demo) return RuntimeError("the dashboard's collector did not start");
    if (!job.records.empty()) {
        auto records = hang_job_import(job);
        if (!records) return records.error();
        demo->add_records(name.toStdString(), to_json(*records).dump());
        return demo->url();
    }
    const auto options = scenario_for(job, name.toStdString());
    if (!options) return options.error();
    if (auto error = demo->add_job(*options)) return *error;
    return demo->url();
}

int DemoTourJobs::injected_kinds(const QString& name) const {
    for (const LiveDemo* demo : {demo_, own_.get()})
        if (demo)
            if (const sim::Scenario* scenario = demo->job_scenario(name))
                return static_cast<int>(scenario->injected.size());
    return 0;
}

}  // namespace meshscope::demo
