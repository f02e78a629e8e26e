#include "meshscope/cost/mesh_dims.h"

#include <algorithm>
#include <numeric>

#include "meshscope/mesh/model_mesh.h"
#include "meshscope/mesh/parallel_state.h"

namespace meshscope::cost {

std::vector<MeshDim> mesh_dims(const Plan& plan) {
    std::vector<MeshDim> out;
    for (const auto& pm : plan.meshes()) {
        // LlamaFactory's model mesh carries no traffic under FSDPTurbo, whose outer FSDP2 runs on the data
        // mesh (dim_collectives.h): costing starts at the data mesh, as mesh_dims(topology, placement) does.
        if (pm.name == model_mesh_name) continue;
        for (const auto& span : pm.spans)
            out.push_back({pm.name, span.dim, span.group_size, span.cross_node_groups > 0, span.max_nodes});
    }
    return out;
}

bool dim_crosses_node(const DeviceMesh& mesh, std::size_t dim, const Placement& placement) {
    const auto shape = mesh.shape();
    const std::int64_t n = shape.at(dim);
    if (n <= 1) return false;
    std::int64_t stride = 1;
    for (std::size_t d = dim + 1; d < shape.size(); ++d) stride *= shape[d];
    const std::int64_t g = placement.gpus_per_node;
    if (g >= mesh.size()) return false;           // one node holds the whole mesh
    const std::int64_t reach = (n - 1) * stride;  // from a group's first member to its last
    if (reach >= g) return true;                  // no node holds a whole group
    const std::int64_t block = n * stride;        // the ranks of one line of groups along dim
    if (g % block == 0) return false;             // nodes hold whole blocks: every group stays inside one
    // Irregular node sizes: a group starts at every rank whose coordinate along dim is 0; check each. Blocks and
    // nodes line up again every lcm(block, g) ranks (block < 2g here), so one period decides. A period past 2^24
    // ranks (node sizes in the millions, not a real cluster) is answered "crosses", the costlier assumption.
    const std::int64_t per_block = block / std::gcd(block, g);
    constexpr std::int64_t max_period = std::int64_t{1} << 24;
    const std::int64_t period = per_block > mesh.size() / g ? mesh.size() : per_block * g;
    if (period > max_period) return true;
    for (std::int64_t first = 0; first < period; first += block)
        for (std::int64_t base = first; base < first + stride; ++base)
            if (placement.node_of(base) != placement.node_of(base + reach)) return true;
    return false;
}

std::int64_t first_group_nodes(const DeviceMesh& mesh, std::size_t dim, const Placement& placement) {
    const auto shape = mesh.shape();
    std::int64_t stride = 1;
    for (std::size_t d = dim + 1; d < shape.size(); ++d) stride *= shape[d];
    const std::int64_t n = shape.at(dim);
    const std::int64_t g = placement.gpus_per_node;
    // Members 0, stride, ..., (n-1) stride: a stride of a node or more puts each on its own node; a smaller one
    // skips no node between the first member's and the last's.
    return stride >= g ? n : (n - 1) * stride / g + 1;
}

std::vector<MeshDim> mesh_dims(const Topology& topology, const Placement& placement) {
    std::vector<MeshDim> out;
    auto add = [&](const char* name, const DeviceMesh& mesh) {
        const auto names = mesh.dim_names();
        for (std::size_t d = 0; d < mesh.ndim(); ++d) {
            const bool crosses = dim_crosses_node(mesh, d, placement);
            out.push_back({name, names[d], mesh.dim_size(d), crosses,
                           crosses ? std::max<std::int64_t>(2, first_group_nodes(mesh, d, placement)) : 1});
        }
    };
    add("data", make_data_mesh(topology).value());
    if (topology.has_expert_mesh())
        add(std::string(ParallelState::expert_mesh_name).c_str(), make_expert_mesh(topology).value());
    return out;
}

}  // namespace meshscope::cost
