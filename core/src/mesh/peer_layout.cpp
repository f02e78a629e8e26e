// The three peers' expert layouts (peer_layout.h). Each builder follows its framework's own order of checks and
// its own texts (docs/peers.md cites the commits read); the groups come from core's DeviceMesh where the framework
// builds a PyTorch DeviceMesh (FSDPTurbo, TorchTitan) and from orthogonal_rank_groups for Megatron-Core's
// RankGenerator, which computes ranks arithmetically.
#include "meshscope/mesh/peer_layout.h"

#include <algorithm>

#include "meshscope/mesh/device_mesh.h"
#include "meshscope/mesh/parallel_state.h"
#include "meshscope/mesh/topology.h"

namespace meshscope {

namespace {
using Groups = std::vector<std::vector<std::int64_t>>;

std::string n(std::int64_t value) {
    return std::to_string(value);
}

std::int64_t count_cross_node(const Groups& groups, std::int64_t gpus_per_node) {
    return std::count_if(groups.begin(), groups.end(), [&](const std::vector<std::int64_t>& group) {
        return std::any_of(group.begin(), group.end(),
                           [&](std::int64_t rank) { return rank / gpus_per_node != group.front() / gpus_per_node; });
    });
}

PeerDim make_dim(std::string name, Groups groups, const PeerShape& shape) {
    PeerDim dim{std::move(name), std::move(groups), 0};
    dim.cross_node_groups = count_cross_node(dim.groups, shape.gpus_per_node);
    return dim;
}

// ep = 1: no expert parallelism, so every rank is alone in its ep group.
PeerDim singleton_ep(const PeerShape& shape) {
    Groups groups;
    groups.reserve(static_cast<std::size_t>(shape.world));
    for (std::int64_t rank = 0; rank < shape.world; ++rank) groups.push_back({rank});
    return make_dim("ep", std::move(groups), shape);
}

// The named dims of a PyTorch mesh, in PyTorch >= 2.9's creation order (the order TorchTitan's _unflatten and
// FSDPTurbo's init_device_mesh use on a current PyTorch).
std::vector<PeerDim> mesh_dims(const DeviceMesh& mesh, std::initializer_list<std::string_view> names,
                               const PeerShape& shape) {
    std::vector<PeerDim> dims;
    for (const auto name : names)
        dims.push_back(
            make_dim(std::string(name), mesh.groups(mesh.dim_index(name).value(), CreationOrder::torch29), shape));
    return dims;
}

// LlamaFactory derives dp = world / cp and FSDPTurbo builds (edp, efsdp, ep, expert_cp) over it.
Expected<PeerLayout> fsdpturbo_layout(const PeerShape& shape) {
    const auto topology = Topology::from_world(shape.world, shape.cp, shape.ep);
    if (!topology) return topology.error();
    PeerLayout layout{Framework::fsdpturbo, {}};
    if (!topology->has_expert_mesh()) {
        layout.dims.push_back(singleton_ep(shape));
        return layout;
    }
    const auto mesh = make_expert_mesh(*topology);
    if (!mesh) return mesh.error();
    layout.dims = mesh_dims(
        *mesh, {ParallelState::ep, ParallelState::edp, ParallelState::efsdp, ParallelState::expert_cp}, shape);
    return layout;
}

// ParallelDims(dp_replicate=1, dp_shard=-1, cp, tp=1, pp=1, ep): _validate, then build_mesh's sparse mesh.
Expected<PeerLayout> torchtitan_layout(const PeerShape& shape) {
    // dp_shard = -1 resolves to world // (dp_replicate * cp * tp * pp), then `assert dp_shard >= 1` (no text).
    const std::int64_t dp_shard = shape.world / shape.cp;
    if (dp_shard < 1) return AssertionError("assert dp_shard >= 1");
    if (dp_shard * shape.cp != shape.world)
        return AssertionError("Invalid parallel dims: dp_replicate(1) * dp_shard(" + n(dp_shard) + ") * cp(" +
                              n(shape.cp) + ") * tp(1) * pp(1) != WORLD_SIZE(" + n(shape.world) + ")");
    const std::int64_t sparse_region = dp_shard * shape.cp;  // dp_shard * cp * tp
    if (sparse_region % shape.ep != 0)
        return ValueError("expert_parallel_degree (" + n(shape.ep) + ") must divide dp_shard * cp * tp (" +
                          n(sparse_region) + ")");
    PeerLayout layout{Framework::torchtitan, {}};
    if (shape.ep == 1) {
        layout.dims.push_back(singleton_ep(shape));
        return layout;
    }
    // The world unflattened into (pp, dp_replicate, efsdp, ep): ep is the fastest-varying ranks.
    const auto mesh =
        DeviceMesh::make({1, 1, sparse_region / shape.ep, shape.ep}, {"pp", "dp_replicate", "efsdp", "ep"});
    if (!mesh) return mesh.error();
    layout.dims = mesh_dims(*mesh, {"ep", "efsdp"}, shape);
    return layout;
}

// initialize_model_parallel(tp=1, pp=1, cp, ep, etp=1, order "tp-cp-ep-dp-pp"): the decoder generator's world
// check, then the expert generator's, whose order has gtp_remat injected after ep and whose cp is 1.
Expected<PeerLayout> megatron_layout(const PeerShape& shape) {
    const std::int64_t model_size = shape.cp;  // tp * pp * cp * gtp_remat
    if (shape.world % model_size != 0)
        return RuntimeError("world_size (" + n(shape.world) + ") is not divisible by " + n(model_size));
    const std::int64_t expert_tmp = shape.ep;  // etp * ep * pp * expert_gtp_remat
    if (shape.world % expert_tmp != 0)
        return RuntimeError("world_size (" + n(shape.world) +
                            ") is not divisible by expert_tensor_model_pipeline_parallel size (" + n(expert_tmp) + ")");
    // tp, cp, ep, gtp_remat, dp, pp: fastest first.
    const std::array<std::int64_t, 6> sizes{1, 1, shape.ep, 1, shape.world / expert_tmp, 1};
    const std::array<bool, 6> ep_mask{false, false, true, false, false, false};
    const std::array<bool, 6> dp_mask{false, false, false, false, true, false};
    PeerLayout layout{Framework::megatron, {}};
    layout.dims.push_back(make_dim("ep", orthogonal_rank_groups(sizes, ep_mask), shape));
    layout.dims.push_back(make_dim("expt_dp", orthogonal_rank_groups(sizes, dp_mask), shape));
    return layout;
}
}  // namespace

std::string_view to_string(Framework framework) noexcept {
    switch (framework) {
        case Framework::fsdpturbo: return "fsdpturbo";
        case Framework::torchtitan: return "torchtitan";
        case Framework::megatron: return "megatron";
    }
    return "fsdpturbo";
}

std::optional<Framework> parse_framework(std::string_view text) noexcept {
    for (const auto framework : all_frameworks)
        if (to_string(framework) == text) return framework;
    return std::nullopt;
}

const PeerDim* PeerLayout::dim(std::string_view name) const noexcept {
    const auto it = std::find_if(dims.begin(), dims.end(), [&](const PeerDim& d) { return d.name == name; });
    return it == dims.end() ? nullptr : &*it;
}

const std::vector<std::int64_t>* PeerLayout::group_of(std::string_view name, std::int64_t rank) const noexcept {
    const PeerDim* d = dim(name);
    if (!d) return nullptr;
    for (const auto& group : d->groups)
        if (std::find(group.begin(), group.end(), rank) != group.end()) return &group;
    return nullptr;
}

std::optional<Error> check_peer_shape(const PeerShape& shape) {
    if (shape.world < 1)
        return ValueError("world_size must be positive, got " + n(shape.world) + ".", Input::world, Rule::positive);
    if (shape.cp < 1)
        return ValueError("cp_size must be positive, got " + n(shape.cp) + ".", Input::cp, Rule::positive);
    if (shape.ep < 1)
        return ValueError("ep_size must be positive, got " + n(shape.ep) + ".", Input::ep, Rule::positive);
    if (shape.gpus_per_node < 1)
        return ValueError("gpus_per_node must be positive, got " + n(shape.gpus_per_node) + ".", Input::gpus_per_node,
                          Rule::positive);
    if (shape.world > max_peer_world)
        return ValueError("world_size (" + n(shape.world) +
                              ") exceeds the largest world meshscope lays out for peers (" + n(max_peer_world) + ").",
                          Input::world, Rule::maximum);
    return std::nullopt;
}

Expected<PeerLayout> peer_layout(Framework framework, const PeerShape& shape) {
    if (auto error = check_peer_shape(shape)) return *error;
    switch (framework) {
        case Framework::fsdpturbo: return fsdpturbo_layout(shape);
        case Framework::torchtitan: return torchtitan_layout(shape);
        case Framework::megatron: return megatron_layout(shape);
    }
    return ValueError("unknown framework");
}

Expected<std::vector<PeerOutcome>> compare_peers(const PeerShape& shape) {
    if (auto error = check_peer_shape(shape)) return *error;
    std::vector<PeerOutcome> outcomes;
    for (const auto framework : all_frameworks) {
        auto layout = peer_layout(framework, shape);
        PeerOutcome outcome{framework, std::nullopt, std::nullopt};
        if (layout)
            outcome.layout = std::move(layout).value();
        else
            outcome.error = layout.error();
        outcomes.push_back(std::move(outcome));
    }
    return outcomes;
}

PeerAdvice peer_advice(const Error& error) {
    switch (error.input()) {
        case Input::cp: return {"cp", "hint: cp is a positive integer that divides world"};
        case Input::ep: return {"ep", "hint: ep is a positive integer; each framework says which ep it takes"};
        case Input::gpus_per_node:
            return {"gpus_per_node", "hint: --gpus-per-node is a positive integer (8 on H100/H200 nodes)"};
        default: break;
    }
    if (error.input() == Input::world && error.rule() == Rule::maximum)
        return {"world", "hint: meshscope lays out peers for worlds of 1 to " + n(max_peer_world) + " ranks"};
    return {"world", "hint: world, cp and ep are positive integers; cp must divide world"};
}

std::vector<std::vector<std::int64_t>> orthogonal_rank_groups(std::span<const std::int64_t> sizes,
                                                              std::span<const bool> mask) {
    // Strides of the dims (fastest first), split into the dims a group spans and the dims that pick the group.
    std::vector<std::int64_t> inner_size, inner_stride, outer_size, outer_stride;
    std::int64_t stride = 1;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        (mask[i] ? inner_size : outer_size).push_back(sizes[i]);
        (mask[i] ? inner_stride : outer_stride).push_back(stride);
        stride *= sizes[i];
    }
    // Offsets reached by counting through some dims, first dim fastest (a mixed-radix odometer).
    const auto offsets = [](const std::vector<std::int64_t>& size, const std::vector<std::int64_t>& step) {
        std::vector<std::int64_t> out{0};
        for (std::size_t d = 0; d < size.size(); ++d) {
            const std::size_t block = out.size();
            for (std::int64_t k = 1; k < size[d]; ++k)
                for (std::size_t j = 0; j < block; ++j) out.push_back(out[j] + k * step[d]);
        }
        return out;
    };
    const auto members = offsets(inner_size, inner_stride);
    const auto bases = offsets(outer_size, outer_stride);
    std::vector<std::vector<std::int64_t>> groups;
    groups.reserve(bases.size());
    for (const auto base : bases) {
        std::vector<std::int64_t> group;
        group.reserve(members.size());
        for (const auto member : members) group.push_back(base + member);
        groups.push_back(std::move(group));
    }
    return groups;
}

}  // namespace meshscope
