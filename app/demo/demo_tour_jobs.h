// DemoTourJobs: the dashboard's TourJobs (ui/teach/tour_jobs.h). A tour's live step runs as job `tour-NAME` in the
// demo's embedded collector (LiveDemo) beside the demo job. Without a demo (`--connect`, a Planner or tour
// screenshot, a test) it starts a collector of its own, with no demo job, on the first live step.
//
//   DemoTourJobs jobs;  jobs.set_demo(startup.demo.get());  tours.setJobs(&jobs);
//   TourController { jobs: DemoTourJobs {} }   // in QML (MeshScope.Demo)
#pragma once

#include <QtQml/qqmlregistration.h>

#include <memory>

#include "live_demo.h"
#include "tour_jobs.h"

namespace meshscope::demo {

// The base is named in full: QML's type registrar (and qmllint) find it by that name.
class DemoTourJobs : public meshscope::ui::TourJobs {
    Q_OBJECT
    QML_ELEMENT

public:
    explicit DemoTourJobs(QObject* parent = nullptr);
    ~DemoTourJobs() override;

    // The app's embedded demo (may be null); it outlives this.
    void set_demo(LiveDemo* demo) { demo_ = demo; }

    [[nodiscard]] Expected<QString> start(const TourJob& job, const QString& name) override;
    [[nodiscard]] int injected_kinds(const QString& name) const override;

private:
    [[nodiscard]] LiveDemo* collector();

    LiveDemo* demo_ = nullptr;
    std::unique_ptr<LiveDemo> own_;
};

}  // namespace meshscope::demo
