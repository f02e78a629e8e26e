// Deterministic data for each collective and the exact result every rank must get back. Values are small
// integers held in float, so sums are exact in any reduction order and a wrong result is a real one.
// Member p of a group (global rank r) fills element i of its input with r + 1 + (i % 13).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "meshscope/mesh/dim_collectives.h"

namespace meshscope::probe {

// Element counts: every rank's input holds `input` floats; `output` is what the collective writes.
struct Shape {
    std::size_t input = 0;
    std::size_t output = 0;
};
// input_bytes rounded down to a multiple of 4 x ranks (reduce_scatter and all_to_all split the input in
// `ranks` equal chunks); at least one element per chunk.
[[nodiscard]] Shape shape_of(Collective collective, std::int64_t input_bytes, std::size_t ranks) noexcept;

[[nodiscard]] std::vector<float> input_of(std::int64_t rank, std::size_t elements);
// What member `position` of a group with `members` (global ranks, by position) must receive.
[[nodiscard]] std::vector<float> expected_output(Collective collective, std::span<const std::int64_t> members,
                                                 std::size_t position, const Shape& shape);
// The first element where `got` differs from `expected`, if any.
[[nodiscard]] std::optional<std::size_t> first_difference(std::span<const float> got, std::span<const float> expected);

}  // namespace meshscope::probe
