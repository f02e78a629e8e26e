// TourJobs: where a tour's live step runs its simulated job. ui/ runs no collector and no simulator: the app gives
// the dashboard's (app/demo's DemoTourJobs, which runs the job in the embedded collector) to the TourController,
// and the Live page's session then watches the job at the URL it runs at.
#pragma once

#include <QtQml/qqmlregistration.h>
#include <QObject>
#include <QString>

#include "meshscope/mesh/error.h"
#include "meshscope/tour/tour.h"

namespace meshscope::ui {

class TourJobs : public QObject {
    Q_OBJECT
    QML_ANONYMOUS

public:
    using QObject::QObject;

    // Starts `job` as job `name` unless a job of that name already runs; the URL of the collector it runs in. The
    // simulator's or core's ValueError when the shape or the faults are refused, RuntimeError when no collector
    // could start.
    [[nodiscard]] virtual Expected<QString> start(const TourJob& job, const QString& name) = 0;
    // How many finding kinds the simulator injected into `name` (0 for a job not started here).
    [[nodiscard]] virtual int injected_kinds(const QString& name) const = 0;
};

}  // namespace meshscope::ui
