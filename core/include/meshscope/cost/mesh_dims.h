// The mesh dims a layout's collectives run on, each with its size and whether a group leaves its node: the
// cost model's only view of the meshes, so any mesh a Plan gains (the model mesh) is costed by name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "meshscope/mesh/device_mesh.h"
#include "meshscope/mesh/placement.h"
#include "meshscope/mesh/plan.h"

namespace meshscope::cost {

struct MeshDim {
    std::string mesh;  // "data", "expert"
    std::string dim;   // "dp", "ep", ...
    std::int64_t size = 1;
    bool crosses_node = false;  // some group has members on more than one node: it pays the inter-node link
    std::int64_t nodes = 1;     // nodes one group spans (the most of any group from a plan; the first group's
                                // from arithmetic): a ring crosses the network nodes - 1 times per pass
};

// From a plan: its placement's own analysis of every group (DimSpan::cross_node_groups).
[[nodiscard]] std::vector<MeshDim> mesh_dims(const Plan& plan);

// The same for the meshes FSDPTurbo builds for `topology` (data, and expert when ep > 1), without listing the
// groups when the node size lets arithmetic decide: what ranking thousands of layouts of a large world needs.
[[nodiscard]] std::vector<MeshDim> mesh_dims(const Topology& topology, const Placement& placement);

// Whether any group along `dim` of a root mesh has members on two nodes. Equals
// analyze_dim(mesh, ..., dim, placement).cross_node_groups > 0 (tests/cost checks both agree).
[[nodiscard]] bool dim_crosses_node(const DeviceMesh& mesh, std::size_t dim, const Placement& placement);
// How many nodes the first group along `dim` of a root mesh spans.
[[nodiscard]] std::int64_t first_group_nodes(const DeviceMesh& mesh, std::size_t dim, const Placement& placement);

}  // namespace meshscope::cost
