#include "scenarios.h"

namespace meshscope::demo {

namespace {
constexpr std::uint64_t demo_seed = 7;
}

sim::ScenarioOptions demo_scenario() {
    sim::ScenarioOptions scenario;
    scenario.dp = 32;
    scenario.cp = 2;
    scenario.ep = 8;
    scenario.gpus_per_node = 8;
    scenario.job = "demo-dp32-cp2-ep8";
    scenario.faults = {
        {FindingKind::topology_mismatch, 1}, {FindingKind::straggler, 1}, {FindingKind::missing_rank, 1}};
    scenario.seed = demo_seed;
    return scenario;
}

Expected<sim::ScenarioOptions> scenario_for(const TourJob& job, const std::string& name) {
    sim::ScenarioOptions options;
    options.dp = job.dp;
    options.cp = job.cp;
    options.ep = job.ep;
    options.gpus_per_node = job.gpus_per_node;
    options.job = name;
    options.seed = demo_seed;
    if (!job.faults.empty()) {
        auto faults = sim::parse_faults(job.faults);
        if (!faults) return faults.error();
        options.faults = std::move(faults).value();
    }
    return options;
}

}  // namespace meshscope::demo
