#include "meshscope/mesh/topology.h"

#include <array>

#include "meshscope/mesh/python_repr.h"

namespace meshscope {

namespace {
std::string n(std::int64_t v) {
    return std::to_string(v);
}

std::vector<std::int64_t> divisors(std::int64_t value) {
    std::vector<std::int64_t> low, high;
    for (std::int64_t d = 1; d * d <= value; ++d) {
        if (value % d != 0) continue;
        low.push_back(d);
        if (d != value / d) high.push_back(value / d);
    }
    low.insert(low.end(), high.rbegin(), high.rend());
    return low;
}
}  // namespace

std::string Topology::tuple_string() const {
    const std::array<std::int64_t, 3> t{dp, cp, ep};
    return repr::int_tuple(t);
}

Expected<Topology> Topology::make(std::int64_t dp, std::int64_t cp, std::int64_t ep, const ModelMeshSizes& model) {
    if (dp < 1) return ValueError("dp_size must be positive, got " + n(dp) + ".", Input::dp, Rule::positive);
    if (cp < 1) return ValueError("cp_size must be positive, got " + n(cp) + ".", Input::cp, Rule::positive);
    if (dp > max_world_size || cp > max_world_size / dp)
        return ValueError(
            "world_size (" + n(dp) + " * " + n(cp) + ") exceeds the supported maximum of " + n(max_world_size) + ".",
            Input::world, Rule::maximum);
    // LlamaFactory builds its model mesh before the data mesh and FSDPTurbo's state.
    const auto shape = resolve_model_mesh(dp * cp, model);
    if (!shape) return shape.error();
    // From here on the order and text are FSDPTurbo's own.
    if (ep < 1) return ValueError("ep_size must be positive, got " + n(ep) + ".", Input::ep, Rule::positive);
    if (dp % ep != 0)
        return ValueError("dp_size must be divisible by ep_size, got " + n(dp) + " % " + n(ep) + " != 0.", Input::ep,
                          Rule::divides);
    Topology t;
    t.dp = dp;
    t.cp = cp;
    t.ep = ep;
    t.mp_replicate = shape->mp_replicate;
    t.mp_shard = shape->mp_shard;
    if (ep > 1) {
        t.efsdp = dp / ep;
        t.edp = dp / (ep * t.efsdp);
    }
    return t;
}

Expected<Topology> Topology::from_world(std::int64_t world, std::int64_t cp, std::int64_t ep,
                                        const ModelMeshSizes& model) {
    if (world < 1)
        return ValueError("world_size must be positive, got " + n(world) + ".", Input::world, Rule::positive);
    if (auto shape = resolve_model_mesh(world, model); !shape) return shape.error();
    if (cp < 1) return ValueError("cp_size must be positive, got " + n(cp) + ".", Input::cp, Rule::positive);
    if (world % cp != 0)
        return ValueError("world_size (" + n(world) + ") must be divisible by cp_size (" + n(cp) + ").", Input::cp,
                          Rule::divides);
    return make(world / cp, cp, ep, model);
}

std::vector<std::int64_t> valid_ep_sizes(std::int64_t dp) {
    return dp < 1 ? std::vector<std::int64_t>{} : divisors(dp);
}

std::vector<std::int64_t> valid_cp_sizes(std::int64_t world) {
    return world < 1 ? std::vector<std::int64_t>{} : divisors(world);
}

}  // namespace meshscope
