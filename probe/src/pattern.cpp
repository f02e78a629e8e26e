#include "pattern.h"

#include <algorithm>

namespace meshscope::probe {

namespace {
float value(std::int64_t rank, std::size_t i) {
    return static_cast<float>(rank + 1 + static_cast<std::int64_t>(i % 13));
}
}  // namespace

Shape shape_of(Collective collective, std::int64_t input_bytes, std::size_t ranks) noexcept {
    ranks = std::max<std::size_t>(ranks, 1);
    std::size_t elements = static_cast<std::size_t>(std::max<std::int64_t>(input_bytes, 0)) / sizeof(float);
    switch (collective) {
        case Collective::all_reduce: return {std::max<std::size_t>(elements, 1), std::max<std::size_t>(elements, 1)};
        case Collective::all_gather: elements = std::max<std::size_t>(elements, 1); return {elements, elements * ranks};
        case Collective::reduce_scatter: {
            const std::size_t chunk = std::max<std::size_t>(elements / ranks, 1);
            return {chunk * ranks, chunk};
        }
        case Collective::all_to_all: {
            const std::size_t chunk = std::max<std::size_t>(elements / ranks, 1);
            return {chunk * ranks, chunk * ranks};
        }
    }
    return {};
}

std::vector<float> input_of(std::int64_t rank, std::size_t elements) {
    std::vector<float> data(elements);
    for (std::size_t i = 0; i < elements; ++i) data[i] = value(rank, i);
    return data;
}

std::vector<float> expected_output(Collective collective, std::span<const std::int64_t> members, std::size_t position,
                                   const Shape& shape) {
    const std::size_t n = members.size();
    std::vector<float> out(shape.output, 0.0f);
    switch (collective) {
        case Collective::all_reduce:
            for (std::size_t i = 0; i < shape.output; ++i)
                for (const auto m : members) out[i] += value(m, i);
            break;
        case Collective::all_gather:
            // Member q's input lands at [q * input, (q + 1) * input).
            for (std::size_t q = 0; q < n; ++q)
                for (std::size_t i = 0; i < shape.input; ++i) out[q * shape.input + i] = value(members[q], i);
            break;
        case Collective::reduce_scatter:
            // Chunk `position` of every member's input, summed.
            for (std::size_t i = 0; i < shape.output; ++i)
                for (const auto m : members) out[i] += value(m, position * shape.output + i);
            break;
        case Collective::all_to_all: {
            // Chunk q of the output is chunk `position` of member q's input.
            const std::size_t chunk = shape.input / n;
            for (std::size_t q = 0; q < n; ++q)
                for (std::size_t i = 0; i < chunk; ++i) out[q * chunk + i] = value(members[q], position * chunk + i);
            break;
        }
    }
    return out;
}

std::optional<std::size_t> first_difference(std::span<const float> got, std::span<const float> expected) {
    if (got.size() != expected.size()) return std::min(got.size(), expected.size());
    const auto [a, b] = std::mismatch(got.begin(), got.end(), expected.begin());
    if (a == got.end()) return std::nullopt;
    return static_cast<std::size_t>(a - got.begin());
}

}  // namespace meshscope::probe
