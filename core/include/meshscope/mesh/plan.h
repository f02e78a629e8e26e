// Plan: topology + placement + meshes, the unit users save, export and compare.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "meshscope/mesh/device_mesh.h"
#include "meshscope/mesh/placement.h"
#include "meshscope/mesh/topology.h"

namespace meshscope {

struct Warning {
    std::string code;  // "ep_cross_node"
    std::string message;
    friend bool operator==(const Warning&, const Warning&) = default;
};

// One named mesh of a plan: "model" (mp_replicate, mp_shard), "data" (dp, cp) or "expert" (edp, efsdp, ep, expert_cp).
struct PlanMesh {
    std::string name;
    DeviceMesh mesh;
    std::vector<DimSpan> spans;  // one per dim
};

class Plan {
public:
    static constexpr std::string_view schema = "meshscope.plan/1";

    [[nodiscard]] static Expected<Plan> make(const Topology& topology, std::int64_t gpus_per_node,
                                             CreationOrder order = CreationOrder::torch29);

    [[nodiscard]] const Topology& topology() const noexcept { return topology_; }
    [[nodiscard]] const Placement& placement() const noexcept { return placement_; }
    [[nodiscard]] CreationOrder order() const noexcept { return order_; }
    // In creation order: the model and data meshes always (LlamaFactory builds both), the expert mesh only when
    // ep > 1 (as FSDPTurbo builds it).
    [[nodiscard]] const std::vector<PlanMesh>& meshes() const noexcept { return meshes_; }
    [[nodiscard]] const PlanMesh* mesh(std::string_view name) const noexcept;
    [[nodiscard]] const std::vector<Warning>& warnings() const noexcept { return warnings_; }

private:
    Plan() = default;
    Topology topology_;
    Placement placement_;
    CreationOrder order_ = CreationOrder::torch29;
    std::vector<PlanMesh> meshes_;
    std::vector<Warning> warnings_;
};

// What a placement costs each kind of group, in one line a person can act on.
[[nodiscard]] std::vector<Warning> placement_warnings(const std::vector<PlanMesh>& meshes, const Placement& placement);

// Experts per rank for a model with `experts` routed experts; ValueError when ep does not divide it.
[[nodiscard]] Expected<std::int64_t> experts_per_rank(std::int64_t experts, std::int64_t ep);

}  // namespace meshscope
