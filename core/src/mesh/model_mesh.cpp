#include "meshscope/mesh/model_mesh.h"

#include <string>

#include "meshscope/mesh/topology.h"

namespace meshscope {

Expected<ModelMeshShape> resolve_model_mesh(std::int64_t world, const ModelMeshSizes& sizes) {
    const auto n = [](std::int64_t v) { return std::to_string(v); };
    const std::int64_t r = sizes.mp_replicate;
    if (r < 1)
        return ValueError("mp_replicate_size must be positive, got " + n(r) + ".", Input::mp_replicate, Rule::positive);
    if (world % r != 0)
        return ValueError("world_size (" + n(world) + ") must be divisible by mp_replicate_size (" + n(r) + ").",
                          Input::mp_replicate, Rule::divides);
    const std::int64_t s = sizes.mp_shard.value_or(world / r);
    // r divides world, so r * s == world exactly when s == world / r (and nothing can overflow).
    if (s != world / r)
        return ValueError("mp_replicate_size * mp_shard_size must equal to world_size, got " + n(r) + " * " + n(s) +
                              " != " + n(world) + ".",
                          Input::mp_shard, Rule::equals);
    return ModelMeshShape{r, s};
}

Expected<DeviceMesh> make_model_mesh(const Topology& t) {
    return DeviceMesh::make({t.mp_replicate, t.mp_shard}, {std::string(mp_replicate_dim), std::string(mp_shard_dim)});
}

}  // namespace meshscope
