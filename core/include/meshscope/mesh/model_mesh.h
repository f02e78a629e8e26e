// LlamaFactory's model mesh (mp_replicate, mp_shard): the first root mesh its DistributedInterface builds,
// before the data mesh (dp, cp) and FSDPTurbo's expert mesh, so its groups come first in every rank's
// group-creation order. Defaults (1, world), as LlamaFactory sets them.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "meshscope/mesh/device_mesh.h"
#include "meshscope/mesh/error.h"

namespace meshscope {

struct Topology;

inline constexpr std::string_view model_mesh_name = "model";
inline constexpr std::string_view mp_replicate_dim = "mp_replicate";
inline constexpr std::string_view mp_shard_dim = "mp_shard";

// What a user asks for: mp_replicate (default 1) and, optionally, mp_shard (default world / mp_replicate).
struct ModelMeshSizes {
    std::int64_t mp_replicate = 1;
    std::optional<std::int64_t> mp_shard;
    friend bool operator==(const ModelMeshSizes&, const ModelMeshSizes&) = default;
};

// The resolved (mp_replicate, mp_shard) of a world.
struct ModelMeshShape {
    std::int64_t mp_replicate = 1;
    std::int64_t mp_shard = 1;
    friend bool operator==(const ModelMeshShape&, const ModelMeshShape&) = default;
};

// LlamaFactory's checks in its order and words (ValueError):
//   `mp_replicate_size must be positive, got {r}.` (ours: LlamaFactory would divide by it),
//   `world_size ({W}) must be divisible by mp_replicate_size ({r}).`,
//   `mp_replicate_size * mp_shard_size must equal to world_size, got {r} * {s} != {W}.`
// world must be positive (the caller checked it).
[[nodiscard]] Expected<ModelMeshShape> resolve_model_mesh(std::int64_t world, const ModelMeshSizes& sizes);

// The mesh: shape (mp_replicate, mp_shard), dims ("mp_replicate", "mp_shard").
[[nodiscard]] Expected<DeviceMesh> make_model_mesh(const Topology& topology);

}  // namespace meshscope
