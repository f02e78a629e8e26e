#include "advise_api.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "meshscope/cost/advice_json.h"
#include "meshscope/cost/cluster.h"
#include "meshscope/cost/presets.h"
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

}  // namespace

HttpReply answer_advise(std::string_view query) {
    constexpr std::array<std::string_view, 11> allowed{"model",     "world",       "gpus_per_node", "hardware",
                                                       "network",   "seq",         "micro_batch",   "global_batch",
                                                       "recompute", "overlap_a2a", "show"};
    for (const auto& name : query_names(query))
        if (std::find(allowed.begin(), allowed.end(), name) == allowed.end())
            return reject("unknown parameter \"" + name + "\"", name);
    const auto model_name = query_value(query, "model");
    if (!model_name) return reject("give model", "model");
    auto model = cost::find_model_preset(*model_name);
    if (!model) return reject(model.error().message(), "model");

    // gpus_per_node 0 (not given) takes the hardware's own: 8, or gb200's 72-GPU NVLink domain.
    std::int64_t world = 0, gpus_per_node = 0, seq = 4096, micro = 1, global = 0, show = 10;
    for (const auto& [name, value] :
         {std::pair{"world", &world}, std::pair{"gpus_per_node", &gpus_per_node}, std::pair{"seq", &seq},
          std::pair{"micro_batch", &micro}, std::pair{"global_batch", &global}, std::pair{"show", &show}}) {
        const auto text = query_value(query, name);
        if (!text) {
            if (std::string_view(name) == "world") return reject("give world", "world");
            continue;
        }
        if (auto error = parse_plan_integer(name, *text, *value)) return reject(*error, name);
        const bool zero_allowed = std::string_view(name) == "global_batch" || std::string_view(name) == "show";
        if (*value < (zero_allowed ? 0 : 1))
            return reject(
                std::string(name) + " must be " + (zero_allowed ? "at least 0" : "positive") + ", got " + *text + ".",
                name);
    }
    if (world > max_api_advise_world)
        return reject("The collector ranks at most " + std::to_string(max_api_advise_world) +
                          " ranks, got world_size " + std::to_string(world) + "; `meshscope advise` has no such limit.",
                      "world");
    const std::string recompute_text = query_value(query, "recompute").value_or("selective");
    const auto recompute = cost::read_recompute(recompute_text);
    if (!recompute) return reject(recompute.error().message() + ".", "recompute");
    const std::string overlap = query_value(query, "overlap_a2a").value_or("0");
    if (overlap != "0" && overlap != "1")
        return reject("overlap_a2a must be 0 or 1, got '" + overlap + "'.", "overlap_a2a");

    auto training = cost::TrainingSpec::make(seq, micro, 1, *recompute);
    if (!training) return reject(training.error().message(), "seq");
    auto spec = std::move(training).value();
    spec.global_batch = global;
    spec.overlap_a2a = overlap == "1";
    auto cluster = cost::make_cluster(query_value(query, "hardware").value_or("h100"),
                                      query_value(query, "network").value_or("ndr"), gpus_per_node);
    if (!cluster) return reject(cluster.error().message(), to_string(cluster.error().input()));
    const auto in = cost::CostInputs::make(std::move(model).value(), spec, std::move(cluster).value());
    const auto advice = cost::advise(in, world);
    if (!advice) return reject(advice.error().message(), "world");
    HttpReply reply;
    reply.body = cost::advice_json(in, *advice, static_cast<std::size_t>(show))
                     .dump(-1, ' ', false, json::error_handler_t::replace);
    return reply;
}

}  // namespace meshscope::server
