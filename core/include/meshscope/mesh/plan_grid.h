// PlanGrid: how the planners (desktop and web) arrange one mesh of a plan as a grid of cells: a row of
// blocks, each `columns` x `rows` cells, with rank = (block * columns + column) * rows + row. The expert mesh:
// a block per (edp, efsdp) pair, columns ep, rows expert_cp. The data mesh: columns dp wrapped every ep
// columns (so switching meshes keeps every rank in place), or with ep = 1 every node's worth of dp; rows cp.
// LlamaFactory's model mesh: one row, columns the largest divisor of mp_shard up to a node's GPUs.
#pragma once

#include <cstdint>
#include <string_view>

#include "meshscope/mesh/plan.h"

namespace meshscope {

struct PlanGrid {
    std::int64_t blocks = 1;
    std::int64_t columns = 1;  // cells per block row
    std::int64_t rows = 1;     // cells per block column (= cp)
    friend bool operator==(const PlanGrid&, const PlanGrid&) = default;
};

// mesh: "model", "expert" or "data"; the expert mesh falls back to the data mesh when the plan has none (ep = 1).
[[nodiscard]] PlanGrid plan_grid(const Plan& plan, std::string_view mesh);

}  // namespace meshscope
