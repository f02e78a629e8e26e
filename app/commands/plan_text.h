// The plan as a summary a person pastes into a ticket: sizes, groups per dim (abbreviated), warnings.
#pragma once

#include <iosfwd>

#include "meshscope/mesh/plan.h"

namespace meshscope::app {

struct PlanTextOptions {
    bool groups = true;
    bool ranks = true;
    int max_groups_shown = 4;   // per dim; the rest are counted
    int max_members_shown = 8;  // per group; longer groups show their ends
};

void write_plan_text(std::ostream& out, const Plan& plan, const PlanTextOptions& options = {});

}  // namespace meshscope::app
