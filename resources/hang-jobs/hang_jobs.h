// A tour's records job (TourJob::records): a shipped fault job's Flight Recorder dumps (real torch jobs) diagnosed on
// the tour's plan exactly as `meshscope import` diagnoses a user's, into what a collector takes
// (Collector::submit_records takes to_json(import)). One place for the desktop's collector, `meshscope serve`'s tour
// route and the tests that judge the tour's tasks.
#pragma once

#include <string>

#include "meshscope/mesh/error.h"
#include "meshscope/monitor/records_import.h"
#include "meshscope/tour/tour.h"

namespace meshscope {

// The import, or ValueError `no shipped job "x" (the jobs: skip, die, host, healthy)` / the plan's error.
[[nodiscard]] Expected<RecordsImport> hang_job_import(const TourJob& job);

}  // namespace meshscope
