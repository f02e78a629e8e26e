#include "meshscope/mesh/parallel_state.h"

namespace meshscope {

Expected<DeviceMesh> make_expert_mesh(const Topology& t) {
    return DeviceMesh::make({t.edp, t.efsdp, t.ep, t.cp},
                            {std::string(ParallelState::edp), std::string(ParallelState::efsdp),
                             std::string(ParallelState::ep), std::string(ParallelState::expert_cp)},
                            t.world());
}

Expected<DeviceMesh> make_data_mesh(const Topology& t) {
    return DeviceMesh::make({t.dp, t.cp}, {"dp", "cp"});
}

void ParallelState::initialize(const ParallelContext& context, const ParallelConfig& config) {
    // Validation runs before the re-initialization check, as in FSDPTurbo.
    const Topology topology = Topology::make(context.dp_size, context.cp_size, config.ep_size).value();

    std::lock_guard lock(mutex_);
    if (state_) {
        if (topology.dp != state_->topology.dp || topology.cp != state_->topology.cp ||
            topology.ep != state_->topology.ep)
            throw RuntimeError("FSDPTurbo parallel state is already initialized with " +
                               state_->topology.tuple_string() + ", got " + topology.tuple_string() + ".");
        return;
    }

    // Everything is built into locals and committed at the end: a throw anywhere leaves the state untouched.
    Snapshot next{topology, std::nullopt};
    if (topology.has_expert_mesh()) {
        if (!context.has_data_mesh)
            throw RuntimeError("FSDPTurbo expert parallelism requires an initialized distributed device mesh.");
        DeviceMesh mesh = make_expert_mesh(topology).value();
        if (context.on_group_created) {
            const auto names = mesh.dim_names();
            for (std::size_t d = 0; d < mesh.ndim(); ++d) {
                const std::int64_t count = mesh.group_count(d);
                mesh.for_each_group(d, context.order, [&](std::int64_t index, std::span<const std::int64_t> ranks) {
                    context.on_group_created(GroupCreated{expert_mesh_name, names[d], index, count, ranks});
                });
            }
        }
        next.expert_mesh = std::move(mesh);
    }
    state_ = std::move(next);
}

void ParallelState::reset() {
    std::lock_guard lock(mutex_);
    state_.reset();
}

bool ParallelState::initialized() const {
    std::lock_guard lock(mutex_);
    return state_.has_value();
}

std::optional<Topology> ParallelState::topology() const {
    std::lock_guard lock(mutex_);
    if (!state_) return std::nullopt;
    return state_->topology;
}

std::optional<DeviceMesh> ParallelState::expert_mesh() const {
    std::lock_guard lock(mutex_);
    if (!state_) return std::nullopt;
    return state_->expert_mesh;
}

std::optional<DeviceMesh> ParallelState::submesh(std::string_view dim) const {
    std::lock_guard lock(mutex_);
    if (!state_ || !state_->expert_mesh) return std::nullopt;
    auto sliced = state_->expert_mesh->slice({std::string(dim)});
    if (!sliced) return std::nullopt;
    return *sliced;
}

ParallelState& parallel_state() {
    static ParallelState instance;
    return instance;
}

}  // namespace meshscope
