#include "plan_api.h"

#include <algorithm>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "meshscope/mesh/plan_compact.h"
#include "meshscope/mesh/plan_export.h"
#include "meshscope/mesh/plan_json.h"
#include "meshscope/mesh/plan_request.h"
#include "url_parts.h"

namespace meshscope::server {

namespace {
using nlohmann::json;

constexpr std::string_view plan_path = "/api/v1/plan";
constexpr std::string_view export_path = "/api/v1/plan/export";
constexpr std::string_view rank_path = "/api/v1/plan/rank";
constexpr std::string_view general_hint = "hint: dp (or world), cp and ep are positive integers, and ep must divide dp";

std::string usage_hint(std::string_view path) {
    const std::string common =
        "?(dp=D | world=W)[&cp=C][&ep=E][&mp_replicate=R[&mp_shard=S]][&gpus_per_node=G][&order=torch29|torch28]";
    if (path == export_path) return "hint: GET /api/v1/plan/export" + common + "&format=json|yaml|torchrun";
    if (path == rank_path) return "hint: GET /api/v1/plan/rank" + common + "&rank=R";
    return "hint: GET /api/v1/plan" + common + "[&form=full|compact]";
}

// A rejected request: 400 and what a person (or the page) needs to fix it.
struct Rejection {
    std::string error;
    std::string hint;
    std::string field;
    json values = json::array();
};

HttpReply reject(const Rejection& r) {
    HttpReply reply;
    reply.status = 400;
    json suggestions = json::object();
    if (!r.values.empty()) suggestions[r.field] = r.values;
    reply.body = json{{"error", r.error}, {"hint", r.hint}, {"field", r.field}, {"suggestions", suggestions}}.dump(
        -1, ' ', false, json::error_handler_t::replace);
    return reply;
}

// Every name=value of the query, decoded; the first of a repeated name wins (as query_value reads it).
std::map<std::string, std::string, std::less<>> parameters(std::string_view query) {
    std::map<std::string, std::string, std::less<>> out;
    while (!query.empty()) {
        const auto amp = query.find('&');
        const std::string_view item = query.substr(0, amp);
        if (!item.empty()) {
            const auto eq = item.find('=');
            out.try_emplace(percent_decode(item.substr(0, eq), true),
                            eq == std::string_view::npos ? std::string() : percent_decode(item.substr(eq + 1), true));
        }
        if (amp == std::string_view::npos) break;
        query.remove_prefix(amp + 1);
    }
    return out;
}

// One route's request, parsed, or the rejection of its parameters.
struct Parsed {
    PlanRequest request;
    std::optional<std::string> form;
    std::optional<std::string> format;
    std::optional<std::int64_t> rank;
};

std::optional<Rejection> parse(std::string_view path, std::string_view query, Parsed& out) {
    const auto params = parameters(query);
    std::vector<std::string_view> allowed{"dp",       "world",         "cp",   "ep", "mp_replicate",
                                          "mp_shard", "gpus_per_node", "order"};
    allowed.push_back(path == export_path ? "format" : path == rank_path ? "rank" : "form");
    for (const auto& [name, value] : params)
        if (std::find(allowed.begin(), allowed.end(), name) == allowed.end())
            return Rejection{"unknown parameter \"" + name + "\"", usage_hint(path), name};
    const auto integer = [&](std::string_view name, auto setter) -> std::optional<Rejection> {
        const auto it = params.find(name);
        if (it == params.end()) return std::nullopt;
        std::int64_t value = 0;
        if (auto error = parse_plan_integer(name, it->second, value))
            return Rejection{*error, usage_hint(path), std::string(name)};
        setter(value);
        return std::nullopt;
    };
    PlanRequest& r = out.request;
    for (auto rejection :
         {integer("dp", [&](std::int64_t v) { r.dp = v; }), integer("world", [&](std::int64_t v) { r.world = v; }),
          integer("cp", [&](std::int64_t v) { r.cp = v; }), integer("ep", [&](std::int64_t v) { r.ep = v; }),
          integer("mp_replicate", [&](std::int64_t v) { r.mp_replicate = v; }),
          integer("mp_shard", [&](std::int64_t v) { r.mp_shard = v; }),
          integer("gpus_per_node", [&](std::int64_t v) { r.gpus_per_node = v; }),
          integer("rank", [&](std::int64_t v) { out.rank = v; })})
        if (rejection) return rejection;
    if (const auto it = params.find("order"); it != params.end()) {
        const auto order = parse_creation_order(it->second);
        if (!order)
            return Rejection{"order must be torch29 or torch28, got '" + it->second + "'.", usage_hint(path), "order",
                             json::array({"torch29", "torch28"})};
        r.order = *order;
    }
    if (const auto it = params.find("form"); it != params.end()) {
        if (it->second != "full" && it->second != "compact")
            return Rejection{"form must be full or compact, got '" + it->second + "'.", usage_hint(path), "form",
                             json::array({"full", "compact"})};
        out.form = it->second;
    }
    if (path == export_path) {
        const auto it = params.find("format");
        const std::string format = it == params.end() ? std::string() : it->second;
        if (!parse_plan_export_format(format))
            return Rejection{"format must be json, yaml or torchrun, got '" + format + "'.", usage_hint(path), "format",
                             json::array({"json", "yaml", "torchrun"})};
        out.format = format;
    }
    if (path == rank_path && !out.rank) return Rejection{"give rank", usage_hint(path), "rank"};
    return std::nullopt;
}

Rejection rejection_of(const PlanRejection& r) {
    return {r.error.message(), r.advice.hint, r.advice.field, json(r.advice.values)};
}

HttpReply text_reply(std::string body, std::string content_type) {
    HttpReply reply;
    reply.body = std::move(body);
    reply.content_type = std::move(content_type);
    return reply;
}
}  // namespace

bool is_plan_path(std::string_view path) noexcept {
    return path == plan_path || path == export_path || path == rank_path;
}

HttpReply answer_plan(std::string_view path, std::string_view query, PlanCache* cache) {
    Parsed parsed;
    if (auto rejection = parse(path, query, parsed)) return reject(*rejection);
    const PlanRequest& request = parsed.request;
    const std::string size_field = request.dp ? "dp" : "world";
    // Whether the answer lists every group and rank (the plan's form=full, the export's format=json).
    const auto full_form = [&](std::int64_t world) {
        return path == plan_path ? parsed.form.value_or(world > compact_plan_above ? "compact" : "full") == "full"
                                 : path == export_path && parsed.format == "json";
    };

    // The core's own checks first (cheap at any size), then this API's bounds, then the plan itself.
    const auto bounds = [&](const Topology& topology) -> std::optional<PlanRejection> {
        const std::int64_t world = topology.world();
        const auto refuse = [&](const std::string& error, std::string hint, std::string field) {
            return PlanRejection{ValueError(error), {std::move(field), std::move(hint), {}}};
        };
        if (world > max_api_plan_world)
            return refuse(
                "The collector plans at most " + std::to_string(max_api_plan_world) + " ranks, got world_size " +
                    std::to_string(world) + "; `meshscope plan --no-groups --no-ranks` handles larger worlds.",
                "hint: the largest world the collector plans is " + std::to_string(max_api_plan_world) + " ranks",
                size_field);
        if (full_form(world) && world > max_full_plan_world) {
            const std::string what = path == plan_path ? "form=full" : "format=json";
            return refuse(what + " lists every group and rank: at most " + std::to_string(max_full_plan_world) +
                              " ranks, got world_size " + std::to_string(world) + ".",
                          path == plan_path ? "hint: ask for form=compact"
                                            : "hint: `meshscope plan --format json` has no such limit",
                          size_field);
        }
        if (path == rank_path && (*parsed.rank < 0 || *parsed.rank >= world))
            return refuse(
                "rank " + std::to_string(*parsed.rank) + " is outside the plan's " + std::to_string(world) + " ranks",
                "hint: ranks are 0 to " + std::to_string(world - 1), "rank");
        return std::nullopt;
    };
    auto answer = plan_answer(request, bounds, cache != nullptr ? cache->plan : nullptr);
    if (answer.rejection) return reject(rejection_of(*answer.rejection));
    const std::shared_ptr<const Plan> plan = std::move(answer.plan);
    if (cache != nullptr) cache->plan = plan;
    const bool full = full_form(plan->topology().world());

    if (path == rank_path) return text_reply(rank_groups_json(*plan, *parsed.rank).dump(), "application/json");
    std::ostringstream out;
    if (path == export_path) {
        const auto format = *parse_plan_export_format(*parsed.format);
        write_plan_export(out, *plan, format);
        return text_reply(std::move(out).str(), format == PlanExportFormat::json   ? "application/json"
                                                : format == PlanExportFormat::yaml ? "application/yaml; charset=utf-8"
                                                                                   : "text/plain; charset=utf-8");
    }
    if (full)
        write_plan_json(out, *plan);
    else
        write_plan_compact(out, *plan);
    return text_reply(std::move(out).str(), "application/json");
}

}  // namespace meshscope::server
