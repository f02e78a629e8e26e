// Peer layouts: the same world and ep as FSDPTurbo, TorchTitan and Megatron-Core each lay them out, so a user
// can see which ranks share an expert group in each and which layout keeps it inside a node (docs/peers.md).
// Each framework's rules are transcribed from its code at a pinned commit, cited in docs/peers.md:
//   FSDPTurbo     core's own expert mesh (make_expert_mesh): (edp, efsdp, ep, expert_cp), ep strided by cp.
//   TorchTitan    ParallelDims (torchtitan/distributed/parallel_dims.py): dp_shard = world / cp, the sparse mesh
//                 (pp, dp_replicate, efsdp, ep) unflattened from the world, so ep takes the fastest ranks: it
//                 borrows from tp, then cp, then dp_shard.
//   Megatron-Core initialize_model_parallel's expert RankGenerator (megatron/core/parallel_state.py), order
//                 tp-cp-ep-dp-pp with the expert side's cp = 1: ep folds onto the cp ranks ("MoE parallel folding").
//
// Usage:
//   auto titan = meshscope::peer_layout(meshscope::Framework::torchtitan, {.world = 16, .cp = 2, .ep = 2}).value();
//   const auto& ep = titan.dim("ep")->groups;  // [[0, 1], [2, 3], ...]
//   auto all = meshscope::compare_peers({.world = 12, .cp = 1, .ep = 8});  // one outcome per framework
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "meshscope/mesh/error.h"

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
    std::int64_t gpus_per_node = 8;  // consecutive ranks fill a node; only cross_node_groups depends on it
};

// The largest world laid out: every group of every framework is listed (about 3 * 4 * world ranks).
inline constexpr std::int64_t max_peer_world = 65536;

// One kind of group of the framework's expert side, all its groups in the framework's creation order.
struct PeerDim {
    std::string name;  // "ep" in every framework; the others under the framework's own name
    std::vector<std::vector<std::int64_t>> groups;
    std::int64_t cross_node_groups = 0;  // groups with members on more than one node (node = rank / gpus_per_node)
};

// The dims each framework reports, "ep" first:
//   fsdpturbo   ep, edp, efsdp, expert_cp (the expert mesh's own names); ep = 1 builds no expert mesh: ep only,
//               every rank its own group.
//   torchtitan  ep, efsdp (the sparse mesh's names); ep = 1: ep only (TorchTitan backs efsdp with the fake
//               backend then: no process groups).
//   megatron    ep, expt_dp (ProcessGroupCollection's names for the expert model- and data-parallel groups).
struct PeerLayout {
    Framework framework = Framework::fsdpturbo;
    std::vector<PeerDim> dims;  // "ep" first
    [[nodiscard]] const PeerDim* dim(std::string_view name) const noexcept;
    // The members of rank's group along dim; nullptr for an unknown dim or a rank outside the world.
    [[nodiscard]] const std::vector<std::int64_t>* group_of(std::string_view dim, std::int64_t rank) const noexcept;
};

// MeshScope's own checks, the same for every framework and run before any of them: world_size, cp_size, ep_size
// and gpus_per_node positive (`cp_size must be positive, got 0.`), world at most max_peer_world
// (`world_size (70000) exceeds the largest world meshscope lays out for peers (65536).`). ValueError.
[[nodiscard]] std::optional<Error> check_peer_shape(const PeerShape& shape);

// The framework's layout of the shape, or the framework's own exact error for a shape it refuses
// (after check_peer_shape's):
//   fsdpturbo   LlamaFactory's / FSDPTurbo's ValueErrors (`world_size (16) must be divisible by cp_size (3).`,
//               `dp_size must be divisible by ep_size, got 6 % 4 != 0.`);
//   torchtitan  AssertionError `Invalid parallel dims: dp_replicate(1) * dp_shard(5) * cp(3) * tp(1) * pp(1) !=
//               WORLD_SIZE(16)`; a cp larger than the world fails TorchTitan's bare `assert dp_shard >= 1`, reported
//               as that statement; ValueError `expert_parallel_degree (3) must divide dp_shard * cp * tp (2)`;
//   megatron    RuntimeError `world_size (16) is not divisible by 3` (tp * pp * cp), then `world_size (16) is not
//               divisible by expert_tensor_model_pipeline_parallel size (3)` (etp * ep * pp).
[[nodiscard]] Expected<PeerLayout> peer_layout(Framework framework, const PeerShape& shape);

// One framework's answer for a shape: its layout, or the error it refuses the shape with.
struct PeerOutcome {
    Framework framework = Framework::fsdpturbo;
    std::optional<PeerLayout> layout;
    std::optional<Error> error;
};

// Every framework in all_frameworks order, or check_peer_shape's error. A framework refusing a shape others
// accept is part of the comparison: world 16, cp 4, ep 8 is refused by FSDPTurbo (ep must divide dp = 4) and
// laid out by TorchTitan and Megatron-Core (ep must divide the world; it spans the cp ranks).
[[nodiscard]] Expected<std::vector<PeerOutcome>> compare_peers(const PeerShape& shape);

// What a rejected shape means for the person who typed it: the input to change and the CLI's hint line.
struct PeerAdvice {
    std::string field;  // "world", "cp", "ep", "gpus_per_node"
    std::string hint;
};
[[nodiscard]] PeerAdvice peer_advice(const Error& error);

// Megatron-Core's masked orthogonal rank groups, as a mathematical definition: dims listed fastest first
// (Megatron's order string, "tp-cp-ep-dp-pp"), a rank is the sum of coordinate * stride with stride_i = the
// product of the sizes before i; a group is the ranks that differ only along the masked dims, listed by the
// masked coordinates (first masked dim fastest); groups come by the unmasked coordinates (first fastest).
// sizes and mask have the same length; every size is positive.
[[nodiscard]] std::vector<std::vector<std::int64_t>> orthogonal_rank_groups(std::span<const std::int64_t> sizes,
                                                                            std::span<const bool> mask);

}  // namespace meshscope
