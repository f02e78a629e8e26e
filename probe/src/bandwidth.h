// Algorithm and bus bandwidth with nccl-tests' definitions (doc/PERFORMANCE.md; domain.md section 5), for a
// collective whose every rank holds an input buffer of `input_bytes`:
//   algbw = S / t, with S the size nccl-tests reports: the whole gathered output for all_gather (input x n),
//           the input otherwise (all_reduce, reduce_scatter's total, all_to_all's per-rank send buffer);
//   busbw = algbw x factor: 2(n-1)/n for all_reduce, (n-1)/n for all_gather, reduce_scatter and all_to_all.
// The factor is core's meshscope::bus_factor, which the cost model uses too. busbw is the figure comparable
// across group sizes and with the link's speed.
#pragma once

#include <cstdint>

#include "meshscope/mesh/dim_collectives.h"

namespace meshscope::probe {

[[nodiscard]] double counted_bytes(Collective collective, std::int64_t input_bytes, std::int64_t ranks) noexcept;

struct Bandwidth {
    double algbw = 0;  // GB/s (1e9 bytes per second)
    double busbw = 0;  // GB/s
};
[[nodiscard]] Bandwidth bandwidth(Collective collective, std::int64_t input_bytes, std::int64_t ranks,
                                  double seconds) noexcept;

}  // namespace meshscope::probe
