// The simulated jobs the demo runs: the 64-GPU job `meshscope` opens on, and a guided tour's job. A tour's job
// becomes simulator options here and only here, so the desktop's tours (DemoTourJobs) and the collector's tour
// route (CollectorTourJobs, for the web) run the same job for the same tour.
#pragma once

#include <string>

#include "meshscope/mesh/error.h"
#include "meshscope/tour/tour.h"
#include "simulation.h"

namespace meshscope::demo {

// The demo job: dp=32 cp=2 ep=8 on 8 GPUs per node (64 ranks on 8 nodes, an expert mesh of 4 efsdp blocks) with
// a topology mismatch, a straggler and a missing rank.
[[nodiscard]] sim::ScenarioOptions demo_scenario();

// A tour's job (its step's "simulate": dp, cp, ep, gpus_per_node, faults in `meshscope simulate --faults` form)
// as job `name`, with the demo's seed: a tour shows the same job every time. The simulator's ValueError for
// faults it cannot read ("--faults: ...").
[[nodiscard]] Expected<sim::ScenarioOptions> scenario_for(const TourJob& job, const std::string& name);

}  // namespace meshscope::demo
