// What the planner exports besides the grid pictures: the plan JSON (the `meshscope plan --format json`
// bytes, from the same core writer), a LlamaFactory config snippet and a torchrun command line.
#pragma once

#include <QString>

#include "meshscope/plan.h"

namespace meshscope::ui {

[[nodiscard]] QString plan_json(const Plan& plan);
// cp_size and dist_config {name: fsdpturbo, ep_size}: the keys LlamaFactory v1 reads for this layout.
[[nodiscard]] QString llamafactory_yaml(const Plan& plan);
// torchrun for the cluster shape, with <PLACEHOLDERS> for what the planner cannot know.
[[nodiscard]] QString torchrun_command(const Plan& plan);

}  // namespace meshscope::ui
