// The cost model's answers as text a person reads: one layout's memory and communication, and the ranking.
#pragma once

#include <cstddef>
#include <iosfwd>

#include "meshscope/cost/advice.h"

namespace meshscope::app {

// "qwen3-30b-a3b (30.53B parameters, 3.35B active) on h200 (141 GiB, 8 per node, ndr); seq 4096, ..."
void write_inputs_text(std::ostream& out, const cost::CostInputs& in);
// Memory by part against the usable memory, then every dim's collectives with bytes, link and time.
void write_layout_cost_text(std::ostream& out, const cost::LayoutCost& cost);
// The ranked table (at most `show` rows), the best layout in detail, and every excluded layout with its reason.
void write_advice_text(std::ostream& out, const cost::CostInputs& in, const cost::Advice& advice, std::size_t show);

}  // namespace meshscope::app
