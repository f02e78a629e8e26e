#include "meshscope/plan_request.h"

#include <charconv>
#include <sstream>

namespace meshscope {

namespace {
std::string join(const std::vector<std::int64_t>& values) {
    std::ostringstream out;
    for (std::size_t i = 0; i < values.size(); ++i) out << (i ? ", " : "") << values[i];
    return out.str();
}

bool starts_with(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

// The dp and world the person meant, where they can be known (0 where not).
std::int64_t meant_world(const PlanRequest& r) {
    if (r.world && !r.dp) return *r.world;
    if (r.dp && r.cp > 0 && *r.dp > 0 && *r.dp <= max_world_size / r.cp) return *r.dp * r.cp;
    return 0;
}

std::int64_t meant_dp(const PlanRequest& r) {
    if (r.dp) return *r.dp;
    return r.world && r.cp > 0 ? *r.world / r.cp : 0;
}
}  // namespace

Expected<Topology> make_topology(const PlanRequest& r) {
    if (!r.dp && !r.world) return ValueError("give dp or world");
    if (r.dp && r.world && *r.dp >= 1 && r.cp >= 1 && *r.world >= 1 &&
        (*r.dp > max_world_size / r.cp || *r.dp * r.cp != *r.world))
        return ValueError("dp_size * cp_size must equal to world_size, got " + std::to_string(*r.dp) + " * " +
                          std::to_string(r.cp) + " != " + std::to_string(*r.world) + ".");
    const ModelMeshSizes model{r.mp_replicate, r.mp_shard};
    return r.dp ? Topology::make(*r.dp, r.cp, r.ep, model) : Topology::from_world(*r.world, r.cp, r.ep, model);
}

Expected<Plan> make_plan(const PlanRequest& r) {
    const auto topology = make_topology(r);
    if (!topology) return topology.error();
    return Plan::make(*topology, r.gpus_per_node, r.order);
}

PlanAdvice plan_advice(const PlanRequest& r, const Error& error) {
    const std::string message = error.message();
    const std::int64_t world = meant_world(r);
    const std::int64_t dp = meant_dp(r);
    const std::string size_field = r.dp ? "dp" : "world";
    if (starts_with(message, "dp_size must be divisible by ep_size") ||
        starts_with(message, "ep_size must be positive")) {
        if (dp > 0)
            return {"ep", "hint: ep must divide dp = " + std::to_string(dp) + "; valid ep: " + join(valid_ep_sizes(dp)),
                    valid_ep_sizes(dp)};
        return {"ep", "hint: dp (or world), cp and ep are positive integers, and ep must divide dp", {}};
    }
    const bool cp_divides = starts_with(message, "world_size (") && message.find("cp_size") != std::string::npos;
    if ((cp_divides || starts_with(message, "cp_size must be positive")) && world > 0)
        return {"cp",
                "hint: cp must divide world = " + std::to_string(world) + "; valid cp: " + join(valid_cp_sizes(world)),
                valid_cp_sizes(world)};
    if (message.find("mp_replicate_size") != std::string::npos && world > 0)
        return {"mp_replicate",
                "hint: mp_replicate must divide world = " + std::to_string(world) + " (valid: " +
                    join(valid_cp_sizes(world)) + ") and mp_shard, if given, must be world / mp_replicate",
                valid_cp_sizes(world)};
    if (starts_with(message, "gpus_per_node"))
        return {"gpus_per_node", "hint: --gpus-per-node is a positive integer (8 on H100/H200 nodes)", {8, 4, 2, 1}};
    if (message.find("exceeds the supported maximum") != std::string::npos)
        return {
            size_field, "hint: the largest world meshscope plans is " + std::to_string(max_world_size) + " ranks", {}};
    if (starts_with(message, "dp_size * cp_size must equal to world_size")) {
        std::vector<std::int64_t> values;
        if (world > 0) values.push_back(world);  // dp * cp, when it is in range
        return {"world", "hint: world = dp * cp; give dp or world, or make them agree", std::move(values)};
    }
    if (starts_with(message, "give dp or world"))
        return {"dp", "hint: dp (or world), cp and ep are positive integers, and ep must divide dp", {}};
    const std::string field = starts_with(message, "world_size") ? "world"
                              : starts_with(message, "dp_size")  ? "dp"
                              : starts_with(message, "cp_size")  ? "cp"
                                                                 : size_field;
    // One and two nodes' worth of ranks: sizes that always make a plan with ep = 1.
    std::vector<std::int64_t> values;
    if ((field == "world" || field == "dp") && r.gpus_per_node > 0) values = {r.gpus_per_node, 2 * r.gpus_per_node};
    return {field, "hint: dp (or world), cp and ep are positive integers, and ep must divide dp", std::move(values)};
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
