#include "meshscope/mesh/plan_json.h"

#include <ostream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace meshscope {

namespace {
using nlohmann::json;

void write_ints(std::ostream& out, std::span<const std::int64_t> values) {
    out << '[';
    for (std::size_t i = 0; i < values.size(); ++i) out << (i ? ", " : "") << values[i];
    out << ']';
}

void write_mesh(std::ostream& out, const PlanMesh& pm, CreationOrder order, bool groups) {
    const auto names = pm.mesh.dim_names();
    out << "    {\"name\": " << json(pm.name).dump() << ", \"dim_names\": " << json(names).dump()
        << ", \"shape\": " << json(pm.mesh.shape()).dump() << ",\n     \"spans\": {";
    for (std::size_t d = 0; d < pm.spans.size(); ++d) {
        const auto& s = pm.spans[d];
        out << (d ? ", " : "") << json(s.dim).dump() << ": {\"group_size\": " << s.group_size
            << ", \"groups\": " << s.groups << ", \"cross_node_groups\": " << s.cross_node_groups
            << ", \"max_nodes\": " << s.max_nodes << "}";
    }
    out << "}";
    if (groups) {
        out << ",\n     \"groups\": {";
        for (std::size_t d = 0; d < names.size(); ++d) {
            out << (d ? ",\n                " : "") << json(names[d]).dump() << ": [";
            pm.mesh.for_each_group(d, order, [&out](std::int64_t index, std::span<const std::int64_t> ranks) {
                if (index) out << ", ";
                write_ints(out, ranks);
            });
            out << "]";
        }
        out << "}";
    }
    out << "}";
}

void write_ranks(std::ostream& out, const Plan& plan) {
    out << ",\n  \"ranks\": [";
    const auto& p = plan.placement();
    for (std::int64_t r = 0; r < p.world; ++r) {
        out << (r ? ",\n    " : "\n    ") << "{\"rank\": " << r << ", \"node\": " << p.node_of(r)
            << ", \"local_rank\": " << p.local_rank_of(r) << ", \"coords\": {";
        bool first = true;
        for (const auto& pm : plan.meshes()) {
            out << (first ? "" : ", ") << json(pm.name).dump() << ": ";
            write_ints(out, pm.mesh.coordinate(r));
            first = false;
        }
        out << "}}";
    }
    out << "\n  ]";
}

Error bad(const std::string& message) {
    return ValueError("invalid plan: " + message);
}

Expected<std::int64_t> get_int(const json& object, const char* key, const std::string& where) {
    const auto it = object.find(key);
    if (it == object.end()) return bad("missing \"" + where + "." + key + "\"");
    if (!it->is_number_integer()) return bad("\"" + where + "." + key + "\" must be an integer");
    return it->get<std::int64_t>();
}
}  // namespace

void write_plan_json(std::ostream& out, const Plan& plan, const PlanJsonOptions& options) {
    const auto& t = plan.topology();
    const auto& p = plan.placement();
    out << "{\n  \"schema\": \"" << Plan::schema << "\",\n";
    out << "  \"topology\": {\"world\": " << t.world() << ", \"dp\": " << t.dp << ", \"cp\": " << t.cp
        << ", \"ep\": " << t.ep << ", \"efsdp\": " << t.efsdp << ", \"edp\": " << t.edp
        << ", \"mp_replicate\": " << t.mp_replicate << ", \"mp_shard\": " << t.mp_shard << "},\n";
    out << "  \"cluster\": {\"gpus_per_node\": " << p.gpus_per_node << ", \"nodes\": " << p.nodes() << "},\n";
    out << "  \"creation_order\": \"" << to_string(plan.order()) << "\",\n";
    out << "  \"meshes\": [\n";
    for (std::size_t i = 0; i < plan.meshes().size(); ++i) {
        if (i) out << ",\n";
        write_mesh(out, plan.meshes()[i], plan.order(), options.groups);
    }
    out << "\n  ]";
    if (options.ranks) write_ranks(out, plan);
    json warnings = json::array();
    for (const auto& w : plan.warnings()) warnings.push_back({{"code", w.code}, {"message", w.message}});
    out << ",\n  \"warnings\": " << warnings.dump() << "\n}\n";
}

json to_json(const Plan& plan, const PlanJsonOptions& options) {
    std::ostringstream out;
    write_plan_json(out, plan, options);
    return json::parse(out.str());
}

// long: every field of meshscope.plan/1 read and checked in order, each with its exact message
Expected<Plan> plan_from_json(const json& document) {
    if (!document.is_object()) return bad("the document must be a JSON object");
    const auto schema = document.find("schema");
    if (schema == document.end() || !schema->is_string()) return bad("missing \"schema\"");
    if (schema->get<std::string>() != Plan::schema)
        return bad("unsupported schema \"" + schema->get<std::string>() + "\", expected \"" +
                   std::string(Plan::schema) + "\"");
    const auto topology = document.find("topology");
    if (topology == document.end() || !topology->is_object()) return bad("missing \"topology\"");
    auto dp = get_int(*topology, "dp", "topology");
    if (!dp) return dp.error();
    auto cp = get_int(*topology, "cp", "topology");
    if (!cp) return cp.error();
    auto ep = get_int(*topology, "ep", "topology");
    if (!ep) return ep.error();
    // The model mesh is optional (plans written before it existed): absent means LlamaFactory's defaults.
    ModelMeshSizes model;
    if (topology->contains("mp_replicate")) {
        auto r = get_int(*topology, "mp_replicate", "topology");
        if (!r) return r.error();
        model.mp_replicate = *r;
    }
    if (topology->contains("mp_shard")) {
        auto s = get_int(*topology, "mp_shard", "topology");
        if (!s) return s.error();
        model.mp_shard = *s;
    }
    auto made = Topology::make(*dp, *cp, *ep, model);
    if (!made) return made.error();
    for (const char* key : {"world", "efsdp", "edp"}) {
        if (!topology->contains(key)) continue;
        auto value = get_int(*topology, key, "topology");
        if (!value) return value.error();
        const std::int64_t expected = std::string_view(key) == "world"
                                          ? made->world()
                                          : (std::string_view(key) == "efsdp" ? made->efsdp : made->edp);
        if (*value != expected)
            return bad("\"topology." + std::string(key) + "\" is " + std::to_string(*value) + " but " +
                       made->tuple_string() + " implies " + std::to_string(expected));
    }
    // Rebuilding costs time and memory in proportion to the world (every group of every dim is walked), and
    // this reader serves the collector (an event's declared plan): past the live protocol's largest world a
    // document would stall or abort it instead of being refused (found by fuzz/fuzz_plan_reader).
    if (made->world() > max_read_plan_world)
        return bad("\"topology\" " + made->tuple_string() + " covers " + std::to_string(made->world()) +
                   " ranks; plans are read back up to " + std::to_string(max_read_plan_world));
    std::int64_t gpus_per_node = 8;
    if (const auto cluster = document.find("cluster"); cluster != document.end()) {
        if (!cluster->is_object()) return bad("\"cluster\" must be an object");
        if (cluster->contains("gpus_per_node")) {
            auto g = get_int(*cluster, "gpus_per_node", "cluster");
            if (!g) return g.error();
            gpus_per_node = *g;
        }
    }
    CreationOrder order = CreationOrder::torch29;
    if (const auto o = document.find("creation_order"); o != document.end()) {
        const auto parsed = o->is_string() ? parse_creation_order(o->get<std::string>()) : std::nullopt;
        if (!parsed) return bad("\"creation_order\" must be \"torch29\" or \"torch28\"");
        order = *parsed;
    }
    auto plan = Plan::make(*made, gpus_per_node, order);
    if (!plan) return plan.error();

    // Listed groups must be exactly the rebuilt ones: a hand-edited or foreign plan is caught here.
    if (const auto meshes = document.find("meshes"); meshes != document.end()) {
        if (!meshes->is_array()) return bad("\"meshes\" must be an array");
        for (const auto& m : *meshes) {
            if (!m.is_object() || !m.contains("name") || !m["name"].is_string()) return bad("a mesh lacks \"name\"");
            const auto name = m["name"].get<std::string>();
            const PlanMesh* pm = plan->mesh(name);
            if (!pm) return bad("mesh \"" + name + "\" is not part of topology " + made->tuple_string());
            if (m.contains("shape") && m["shape"] != json(pm->mesh.shape()))
                return bad("mesh \"" + name + "\" has shape " + m["shape"].dump() + " but " + made->tuple_string() +
                           " implies " + json(pm->mesh.shape()).dump());
            if (!m.contains("groups")) continue;
            const auto& groups = m["groups"];
            if (!groups.is_object()) return bad("\"" + name + ".groups\" must be an object");
            const auto names = pm->mesh.dim_names();
            for (std::size_t d = 0; d < names.size(); ++d) {
                if (!groups.contains(names[d])) continue;
                if (groups[names[d]] != json(pm->mesh.groups(d, order)))
                    return bad("groups of " + name + "." + names[d] + " do not match topology " + made->tuple_string() +
                               " in " + std::string(to_string(order)) + " order");
            }
        }
    }
    return plan;
}

}  // namespace meshscope
