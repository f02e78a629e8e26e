// Placement: where each rank runs (node, local rank) and which mesh groups leave a node.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "meshscope/mesh/device_mesh.h"

namespace meshscope {

struct Placement {
    std::int64_t world = 1;
    std::int64_t gpus_per_node = 8;

    // "gpus_per_node must be positive, got 0."
    [[nodiscard]] static Expected<Placement> make(std::int64_t world, std::int64_t gpus_per_node);

    // Consecutive ranks fill a node, as torchrun and Slurm place them.
    [[nodiscard]] std::int64_t nodes() const noexcept { return (world + gpus_per_node - 1) / gpus_per_node; }
    [[nodiscard]] std::int64_t node_of(std::int64_t rank) const noexcept { return rank / gpus_per_node; }
    [[nodiscard]] std::int64_t local_rank_of(std::int64_t rank) const noexcept { return rank % gpus_per_node; }
    friend bool operator==(const Placement&, const Placement&) = default;
};

// How the groups along one dim of one mesh fall on nodes.
struct DimSpan {
    std::string mesh;
    std::string dim;
    std::int64_t group_size = 0;
    std::int64_t groups = 0;
    std::int64_t cross_node_groups = 0;  // groups whose members sit on more than one node
    std::int64_t max_nodes = 0;          // the most nodes one group spans
};

[[nodiscard]] DimSpan analyze_dim(const DeviceMesh& mesh, std::string mesh_name, std::size_t dim,
                                  const Placement& placement);

// Whether a group, given as sorted ranks, leaves its first member's node.
[[nodiscard]] bool leaves_node(std::span<const std::int64_t> ranks, const Placement& placement) noexcept;

}  // namespace meshscope
