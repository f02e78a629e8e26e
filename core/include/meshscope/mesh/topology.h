// Topology: the (dp, cp, ep) of one FSDPTurbo run and the sizes that follow from it, with LlamaFactory's
// model mesh (mp_replicate, mp_shard) beside it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "meshscope/mesh/error.h"
#include "meshscope/mesh/model_mesh.h"

namespace meshscope {

struct Topology {
    std::int64_t dp = 1;
    std::int64_t cp = 1;
    std::int64_t ep = 1;
    std::int64_t efsdp = 1;         // dp / ep when ep > 1, else 1 (as FSDPTurbo sets it)
    std::int64_t edp = 1;           // dp / (ep * efsdp): always 1 with today's formula
    std::int64_t mp_replicate = 1;  // LlamaFactory's model mesh; default 1
    std::int64_t mp_shard = 1;      // world / mp_replicate

    [[nodiscard]] std::int64_t world() const noexcept { return dp * cp; }
    // FSDPTurbo builds the expert mesh only when ep > 1.
    [[nodiscard]] bool has_expert_mesh() const noexcept { return ep > 1; }
    // "(16, 1, 2)": the (dp, cp, ep) tuple as FSDPTurbo prints it.
    [[nodiscard]] std::string tuple_string() const;
    [[nodiscard]] ModelMeshShape model_mesh() const noexcept { return {mp_replicate, mp_shard}; }

    friend bool operator==(const Topology&, const Topology&) = default;

    // Validates in LlamaFactory's and FSDPTurbo's order: dp and cp positive (the data mesh), the model mesh
    // (resolve_model_mesh, default (1, world)), then `ep_size must be positive, got {ep}.`, then
    // `dp_size must be divisible by ep_size, ...`.
    [[nodiscard]] static Expected<Topology> make(std::int64_t dp, std::int64_t cp, std::int64_t ep,
                                                 const ModelMeshSizes& model = {});
    // The same from a world size, as LlamaFactory derives dp = world / cp: the model mesh first (LlamaFactory
    // builds it first), then `world_size ({world}) must be divisible by cp_size ({cp}).`
    [[nodiscard]] static Expected<Topology> from_world(std::int64_t world, std::int64_t cp, std::int64_t ep,
                                                       const ModelMeshSizes& model = {});
};

// The ep values that divide dp (what the CLI and the planner offer after a divisibility error).
[[nodiscard]] std::vector<std::int64_t> valid_ep_sizes(std::int64_t dp);
// The cp values that divide world (also the mp_replicate values a world allows).
[[nodiscard]] std::vector<std::int64_t> valid_cp_sizes(std::int64_t world);

// The largest world the tools accept: keeps every rank index and product inside int64 with margin.
inline constexpr std::int64_t max_world_size = std::int64_t{1} << 40;

}  // namespace meshscope
