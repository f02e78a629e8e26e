// The groups a rank creates, in the plan's creation order: the data mesh's dims, then the expert mesh's
// (as LlamaFactory and FSDPTurbo build them), each dim's groups in the plan's order (torch29 or torch28).
#pragma once

#include <cstdint>
#include <vector>

#include "communicator.h"
#include "meshscope/mesh/plan.h"

namespace meshscope::probe {

// The rank's own group of every dim, in creation order; `creation` counts every group of the plan before it
// (so it names the same group on every rank that has the same plan, and differs when plans differ).
[[nodiscard]] std::vector<GroupSpec> rank_schedule(const Plan& plan, std::int64_t rank);

}  // namespace meshscope::probe
