#include "bandwidth.h"

namespace meshscope::probe {

double counted_bytes(Collective collective, std::int64_t input_bytes, std::int64_t ranks) noexcept {
    const auto bytes = static_cast<double>(input_bytes);
    return collective == Collective::all_gather ? bytes * static_cast<double>(ranks) : bytes;
}

double bus_factor(Collective collective, std::int64_t ranks) noexcept {
    if (ranks <= 1) return 0;
    const double n = static_cast<double>(ranks);
    return collective == Collective::all_reduce ? 2 * (n - 1) / n : (n - 1) / n;
}

Bandwidth bandwidth(Collective collective, std::int64_t input_bytes, std::int64_t ranks, double seconds) noexcept {
    if (seconds <= 0) return {};
    Bandwidth b;
    b.algbw = counted_bytes(collective, input_bytes, ranks) / seconds / 1e9;
    b.busbw = b.algbw * bus_factor(collective, ranks);
    return b;
}

}  // namespace meshscope::probe
