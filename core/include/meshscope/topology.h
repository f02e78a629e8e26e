// Topology: the (dp, cp, ep) of one FSDPTurbo run and the sizes that follow from it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "meshscope/error.h"

namespace meshscope {

struct Topology {
    std::int64_t dp = 1;
    std::int64_t cp = 1;
    std::int64_t ep = 1;
    std::int64_t efsdp = 1;  // dp / ep when ep > 1, else 1 (as FSDPTurbo sets it)
    std::int64_t edp = 1;    // dp / (ep * efsdp): always 1 with today's formula

    [[nodiscard]] std::int64_t world() const noexcept { return dp * cp; }
    // FSDPTurbo builds the expert mesh only when ep > 1.
    [[nodiscard]] bool has_expert_mesh() const noexcept { return ep > 1; }
    // "(16, 1, 2)": the (dp, cp, ep) tuple as FSDPTurbo prints it.
    [[nodiscard]] std::string tuple_string() const;

    friend bool operator==(const Topology&, const Topology&) = default;

    // Validates in FSDPTurbo's order: dp and cp positive (LlamaFactory's data mesh), then
    // `ep_size must be positive, got {ep}.`, then `dp_size must be divisible by ep_size, ...`.
    [[nodiscard]] static Expected<Topology> make(std::int64_t dp, std::int64_t cp, std::int64_t ep);
    // The same from a world size, as LlamaFactory derives dp = world / cp; first checks
    // `world_size ({world}) must be divisible by cp_size ({cp}).`
    [[nodiscard]] static Expected<Topology> from_world(std::int64_t world, std::int64_t cp, std::int64_t ep);
};

// The ep values that divide dp (what the CLI and the planner offer after a divisibility error).
[[nodiscard]] std::vector<std::int64_t> valid_ep_sizes(std::int64_t dp);
// The cp values that divide world.
[[nodiscard]] std::vector<std::int64_t> valid_cp_sizes(std::int64_t world);

// The largest world the tools accept: keeps every rank index and product inside int64 with margin.
inline constexpr std::int64_t max_world_size = std::int64_t{1} << 40;

}  // namespace meshscope
