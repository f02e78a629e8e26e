#include "bandwidth.h"

namespace meshscope::probe {

double counted_bytes(Collective collective, std::int64_t input_bytes, std::int64_t ranks) noexcept {
    const auto bytes = static_cast<double>(input_bytes);
    return collective == Collective::all_gather ? bytes * static_cast<double>(ranks) : bytes;
}

Bandwidth bandwidth(Collective collective, std::int64_t input_bytes, std::int64_t ranks, double seconds) noexcept {
    if (seconds <= 0) return {};
    Bandwidth b;
    b.algbw = counted_bytes(collective, input_bytes, ranks) / seconds / 1e9;
    b.busbw = b.algbw * meshscope::bus_factor(collective, ranks);
    return b;
}

}  // namespace meshscope::probe
