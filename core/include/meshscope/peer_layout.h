// Peer layouts: the same world and ep as FSDPTurbo, TorchTitan and Megatron-Core each lay them out, so a user
// can see which ranks share an expert group in each and which layout keeps it inside a node (docs/peers.md).
// Each framework's rules are transcribed from its code at a pinned commit, cited in docs/peers.md.
//
// Usage:
//   auto titan = meshscope::peer_layout(meshscope::Framework::torchtitan, {.world = 16, .cp = 2, .ep = 2}).value();
//   const auto& ep = titan.dim("ep")->groups;  // [[0, 1], [2, 3], ...]
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "meshscope/error.h"

namespace meshscope {

enum class Framework { fsdpturbo, torchtitan, megatron };
inline constexpr std::array<Framework, 3> all_frameworks = {Framework::fsdpturbo, Framework::torchtitan,
                                                            Framework::megatron};
[[nodiscard]] std::string_view to_string(Framework framework) noexcept;  // "fsdpturbo", "torchtitan", "megatron"
[[nodiscard]] std::optional<Framework> parse_framework(std::string_view text) noexcept;

// One job as a user states it for every framework: world ranks, context-parallel size, expert-parallel size;
// no tensor or pipeline parallelism (1), data parallel = world / cp.
struct PeerShape {
    std::int64_t world = 1;
    std::int64_t cp = 1;
    std::int64_t ep = 1;
    std::int64_t gpus_per_node = 8;
};

// One kind of group of the framework's expert side, all its groups in the framework's creation order.
struct PeerDim {
    std::string name;  // "ep" in every framework; the others under the framework's own name
    std::vector<std::vector<std::int64_t>> groups;
};

struct PeerLayout {
    Framework framework = Framework::fsdpturbo;
    std::vector<PeerDim> dims;  // "ep" first
    [[nodiscard]] const PeerDim* dim(std::string_view name) const noexcept;
};

// The framework's own exact error for a shape it refuses (TorchTitan: `expert_parallel_degree ({ep}) must divide
// dp_shard * cp * tp ({n})`), ValueError.
[[nodiscard]] Expected<PeerLayout> peer_layout(Framework framework, const PeerShape& shape);

}  // namespace meshscope
