// What the tour sources share: the parse failure, a step's plan, mesh dim names, framework titles.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "meshscope/mesh/plan.h"
#include "meshscope/tour/tour.h"

namespace meshscope::tour {

// Thrown inside parse_tour with the whole message ("step 3: task.check: ..."), caught once at the top.
struct Fail : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The plan of a planner state, with core's own messages (and the tour's world bound).
[[nodiscard]] Expected<Plan> planner_plan(const TourPlannerState& state);
// The dims of the "model", "data" or "expert" mesh, outermost first.
[[nodiscard]] std::vector<std::string> mesh_dims(std::string_view mesh);
// "FSDPTurbo", "TorchTitan", "Megatron-Core" for "fsdpturbo", "torchtitan", "megatron".
[[nodiscard]] std::string framework_title(std::string_view framework);

}  // namespace meshscope::tour
