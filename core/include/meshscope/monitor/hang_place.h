// Which place of a hang's summary a rank stands in: the rule summarize_hang sorts ranks by, for those who keep one
// place's ranks (the Live pages' place filter), so a place's count and the ranks it keeps always agree. Apart from
// hang_position.h, which the monitor's every type includes; this rule only a few readers need.
#pragma once

#include "meshscope/monitor/hang_position.h"

namespace meshscope {

// The standing; a waiting rank also by its dim (its group's label when the group is off the plan), seq and op.
[[nodiscard]] bool stands_in(const HangPosition& position, const HangPlace& place);

}  // namespace meshscope
