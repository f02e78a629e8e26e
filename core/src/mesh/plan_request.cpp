#include "meshscope/mesh/plan_request.h"

#include <algorithm>
#include <charconv>
#include <sstream>

namespace meshscope {

namespace {
std::string join(const std::vector<std::int64_t>& values) {
    std::ostringstream out;
    for (std::size_t i = 0; i < values.size(); ++i) out << (i ? ", " : "") << values[i];
    return out.str();
}

// The dp and world the person meant, where they can be known (0 where not).
std::int64_t meant_world(const PlanRequest& r) {
    if (r.world && !r.dp) return *r.world;
    if (r.dp && r.cp > 0 && *r.dp > 0 && *r.dp <= max_world_size / r.cp) return *r.dp * r.cp;
    if (!r.dp && !r.world && r.nodes && r.gpus_per_node > 0 && *r.nodes > 0 &&
        *r.nodes <= max_world_size / r.gpus_per_node)
        return *r.nodes * r.gpus_per_node;
    return 0;
}

std::int64_t meant_dp(const PlanRequest& r) {
    if (r.dp) return *r.dp;
    const std::int64_t world = meant_world(r);
    return world > 0 && r.cp > 0 ? world / r.cp : 0;
}

// The world nodes * gpus_per_node, or the error that leaves it unknown.
Expected<std::int64_t> world_of_nodes(std::int64_t nodes, std::int64_t gpus_per_node) {
    if (auto placement = Placement::make(1, gpus_per_node); !placement) return placement.error();
    if (nodes > max_world_size / gpus_per_node)
        return ValueError("world_size (" + std::to_string(nodes) + " * " + std::to_string(gpus_per_node) +
                              ") exceeds the supported maximum of " + std::to_string(max_world_size) + ".",
                          Input::world, Rule::maximum);
    // Below -max_world_size every world is refused alike (world_size must be positive).
    return std::max(nodes, -max_world_size) * gpus_per_node;
}
}  // namespace

Expected<Topology> make_topology(const PlanRequest& r) {
    if (!r.dp && !r.world && r.nodes) {
        const auto world = world_of_nodes(*r.nodes, r.gpus_per_node);
        if (!world) return world.error();
        PlanRequest by_world = r;
        by_world.nodes.reset();
        by_world.world = *world;
        return make_topology(by_world);
    }
    if (!r.dp && !r.world) return ValueError("give dp or world", Input::dp, Rule::given);
    if (r.dp && r.world && *r.dp >= 1 && r.cp >= 1 && *r.world >= 1 &&
        (*r.dp > max_world_size / r.cp || *r.dp * r.cp != *r.world))
        return ValueError("dp_size * cp_size must equal to world_size, got " + std::to_string(*r.dp) + " * " +
                              std::to_string(r.cp) + " != " + std::to_string(*r.world) + ".",
                          Input::world, Rule::equals);
    const ModelMeshSizes model{r.mp_replicate, r.mp_shard};
    return r.dp ? Topology::make(*r.dp, r.cp, r.ep, model) : Topology::from_world(*r.world, r.cp, r.ep, model);
}

Expected<Plan> make_plan(const PlanRequest& r) {
    const auto topology = make_topology(r);
    if (!topology) return topology.error();
    return Plan::make(*topology, r.gpus_per_node, r.order);
}

PlanAdvice plan_advice(const PlanRequest& r, const Error& error) {
    const std::int64_t world = meant_world(r);
    const std::int64_t dp = meant_dp(r);
    const std::string size_field = r.dp ? "dp" : "world";
    const std::string general = "hint: dp (or world), cp and ep are positive integers, and ep must divide dp";
    // One and two nodes' worth of ranks: sizes that always make a plan with ep = 1.
    const auto sizes = [&](const std::string& field) {
        std::vector<std::int64_t> values;
        if (r.gpus_per_node > 0) values = {r.gpus_per_node, 2 * r.gpus_per_node};
        return PlanAdvice{field, general, std::move(values)};
    };
    switch (error.input()) {
        case Input::ep:
            if (dp > 0)
                return {"ep",
                        "hint: ep must divide dp = " + std::to_string(dp) + "; valid ep: " + join(valid_ep_sizes(dp)),
                        valid_ep_sizes(dp)};
            return {"ep", general, {}};
        case Input::cp:
            if (world > 0)
                return {"cp",
                        "hint: cp must divide world = " + std::to_string(world) +
                            "; valid cp: " + join(valid_cp_sizes(world)),
                        valid_cp_sizes(world)};
            return {"cp", general, {}};
        case Input::mp_replicate:
        case Input::mp_shard:
            if (world > 0)
                return {"mp_replicate",
                        "hint: mp_replicate must divide world = " + std::to_string(world) + " (valid: " +
                            join(valid_cp_sizes(world)) + ") and mp_shard, if given, must be world / mp_replicate",
                        valid_cp_sizes(world)};
            break;
        case Input::gpus_per_node:
            return {
                "gpus_per_node", "hint: --gpus-per-node is a positive integer (8 on H100/H200 nodes)", {8, 4, 2, 1}};
        case Input::world:
            if (error.rule() == Rule::maximum)
                return {size_field,
                        "hint: the largest world meshscope plans is " + std::to_string(max_world_size) + " ranks",
                        {}};
            if (error.rule() == Rule::equals) {
                std::vector<std::int64_t> values;
                if (world > 0) values.push_back(world);  // dp * cp, when it is in range
                return {"world", "hint: world = dp * cp; give dp or world, or make them agree", std::move(values)};
            }
            return sizes("world");
        case Input::dp:
            if (error.rule() == Rule::given) return {"dp", general, {}};
            return sizes("dp");
        default: break;
    }
    return sizes(size_field);
}

PlanAnswer plan_answer(const PlanRequest& r, const PlanBound& bound, std::shared_ptr<const Plan> reuse) {
    const auto refuse = [&](const Error& error) {
        return PlanAnswer{nullptr, PlanRejection{error, plan_advice(r, error)}};
    };
    const auto topology = make_topology(r);
    if (!topology) return refuse(topology.error());
    if (const auto placement = Placement::make(topology->world(), r.gpus_per_node); !placement)
        return refuse(placement.error());
    if (bound)
        if (auto rejection = bound(*topology)) return {nullptr, std::move(rejection)};
    if (reuse && reuse->topology() == *topology && reuse->placement().gpus_per_node == r.gpus_per_node &&
        reuse->order() == r.order)
        return {std::move(reuse), std::nullopt};
    auto plan = Plan::make(*topology, r.gpus_per_node, r.order);
    if (!plan) return refuse(plan.error());
    return {std::make_shared<const Plan>(std::move(plan).value()), std::nullopt};
}

std::optional<std::string> parse_plan_integer(std::string_view name, std::string_view text, std::int64_t& out) {
    const char* first = text.data();
    const char* last = text.data() + text.size();
    if (first != last && *first == '+') ++first;
    const auto [end, error] = std::from_chars(first, last, out);
    if (error == std::errc::result_out_of_range)
        return std::string(name) + " is out of range, got '" + std::string(text) + "'.";
    if (error != std::errc() || end != last || first == last)
        return std::string(name) + " expects an integer, got '" + std::string(text) + "'.";
    return std::nullopt;
}

}  // namespace meshscope
