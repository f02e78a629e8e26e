#include "peers_api.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "meshscope/mesh/peer_json.h"
#include "meshscope/mesh/peer_layout.h"
#include "meshscope/mesh/plan_request.h"
#include "url_parts.h"

namespace meshscope::server {

namespace {
using nlohmann::json;

constexpr std::string_view usage = "hint: GET /api/v1/peers?world=W&ep=E[&cp=C][&gpus_per_node=G]";

HttpReply reject(std::string_view error, std::string_view hint, std::string_view field) {
    HttpReply reply;
    reply.status = 400;
    reply.body =
        json{{"error", error}, {"hint", hint}, {"field", field}}.dump(-1, ' ', false, json::error_handler_t::replace);
    return reply;
}

}  // namespace

HttpReply answer_peers(std::string_view query) {
    constexpr std::array<std::string_view, 4> allowed{"world", "cp", "ep", "gpus_per_node"};
    for (const auto& name : query_names(query))
        if (std::find(allowed.begin(), allowed.end(), name) == allowed.end())
            return reject("unknown parameter \"" + name + "\"", usage, name);
    PeerShape shape;
    for (const auto& [name, value] : {std::pair{"world", &shape.world}, std::pair{"cp", &shape.cp},
                                      std::pair{"ep", &shape.ep}, std::pair{"gpus_per_node", &shape.gpus_per_node}}) {
        const auto text = query_value(query, name);
        if (!text) {
            if (std::string_view(name) == "world" || std::string_view(name) == "ep")
                return reject(std::string("give ") + name, usage, name);
            continue;
        }
        if (auto error = parse_plan_integer(name, *text, *value)) return reject(*error, usage, name);
    }
    const auto outcomes = compare_peers(shape);
    if (!outcomes) {
        const auto advice = peer_advice(outcomes.error());
        return reject(outcomes.error().message(), advice.hint, advice.field);
    }
    HttpReply reply;
    reply.body = peers_to_json(shape, *outcomes).dump(-1, ' ', false, json::error_handler_t::replace);
    return reply;
}

}  // namespace meshscope::server
