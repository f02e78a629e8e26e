#include "advise_api.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "meshscope/cost/advice_json.h"
#include "meshscope/cost/cluster.h"
#include "meshscope/cost/cost_request.h"
#include "meshscope/mesh/plan_request.h"
#include "url_parts.h"

namespace meshscope::server {

namespace {
using nlohmann::json;

// The hardware names come from core's presets, so a new preset shows here as it does in the CLI's help.
const std::string& usage() {
    static const std::string text =
        "hint: GET /api/v1/advise?model=NAME&world=W[&gpus_per_node=G][&hardware=" + cost::hardware_names("|") +
        "][&network=ndr|hdr][&seq=S][&micro_batch=B][&global_batch=N]"
        "[&recompute=none|selective|full][&overlap_a2a=0|1][&show=K]";
    return text;
}

HttpReply reject(std::string_view error, std::string_view field) {
    HttpReply reply;
    reply.status = 400;
    reply.body = json{{"error", error}, {"hint", usage()}, {"field", field}}.dump(-1, ' ', false,
                                                                                  json::error_handler_t::replace);
    return reply;
}

// The cost inputs of the query, by core's names: CostRequest judges them.
cost::CostRequest cost_request(std::string_view query, std::int64_t gpus_per_node,
                               const std::shared_ptr<const cost::LoadedClusterProfile>& profile) {
    cost::CostRequest r;
    r.gpus_per_node = gpus_per_node;
    if (profile) {
        r.cluster_profile = profile;
        r.hardware = profile->profile.hardware;
        r.network = profile->profile.network;
    }
    for (auto [name, slot] : {std::pair{"model", &r.model}, std::pair{"hardware", &r.hardware},
                              std::pair{"network", &r.network}, std::pair{"seq", &r.seq},
                              std::pair{"micro_batch", &r.micro_batch}, std::pair{"global_batch", &r.global_batch},
                              std::pair{"recompute", &r.recompute}, std::pair{"overlap_a2a", &r.overlap_a2a}})
        if (auto value = query_value(query, name)) *slot = std::move(*value);
    return r;
}

// world, gpus_per_node and show: the ranking's own integers.
std::optional<HttpReply> read_ranking_integers(std::string_view query, std::int64_t& world, std::int64_t& gpus_per_node,
                                               std::int64_t& show) {
    for (const auto& [name, value, least] :
         {std::tuple{"world", &world, 1}, std::tuple{"gpus_per_node", &gpus_per_node, 1},
          std::tuple{"show", &show, 0}}) {
        const auto text = query_value(query, name);
        if (!text) {
            if (std::string_view(name) == "world") return reject("give world", "world");
            continue;
        }
        if (auto error = parse_plan_integer(name, *text, *value)) return reject(*error, name);
        if (*value < least)
            return reject(
                std::string(name) + " must be " + (least == 0 ? "at least 0" : "positive") + ", got " + *text + ".",
                name);
    }
    if (world > max_api_advise_world)
        return reject("The collector ranks at most " + std::to_string(max_api_advise_world) +
                          " ranks, got world_size " + std::to_string(world) + "; `meshscope advise` has no such limit.",
                      "world");
    return std::nullopt;
}

}  // namespace

HttpReply answer_advise(std::string_view query,
                        const std::shared_ptr<const cost::LoadedClusterProfile>& cluster_profile) {
    constexpr std::array<std::string_view, 11> allowed{"model",     "world",       "gpus_per_node", "hardware",
                                                       "network",   "seq",         "micro_batch",   "global_batch",
                                                       "recompute", "overlap_a2a", "show"};
    for (const auto& name : query_names(query))
        if (std::find(allowed.begin(), allowed.end(), name) == allowed.end())
            return reject("unknown parameter \"" + name + "\"", name);
    // gpus_per_node 0 (not given) takes the hardware's own: 8, or gb200's 72-GPU NVLink domain.
    std::int64_t world = 0, gpus_per_node = 0, show = 10;
    if (auto refused = read_ranking_integers(query, world, gpus_per_node, show)) return std::move(*refused);
    const auto asked = cost::cost_answer(cost_request(query, gpus_per_node, cluster_profile));
    if (asked.rejection) return reject(asked.rejection->message, to_string(asked.rejection->field));
    const auto& in = *asked.inputs;
    const auto advice = cost::advise(in, world);
    if (!advice) return reject(advice.error().message(), "world");
    HttpReply reply;
    auto doc = cost::advice_json(in, *advice, static_cast<std::size_t>(show));
    doc["cluster_profile"] = cost::cluster_constants_json(asked.constants);
    reply.body = doc.dump(-1, ' ', false, json::error_handler_t::replace);
    return reply;
}

}  // namespace meshscope::server
