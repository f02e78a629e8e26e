// meshscope.records/1: written by `meshscope import`, read by the collector (the one reader of it).
#include "meshscope/monitor/records_import.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "event_fields.h"
#include "meshscope/mesh/json_limits.h"

namespace meshscope {

namespace {
using event_fields::as_int;
using event_fields::field_error;
using event_fields::member;
using nlohmann::json;

// pid_t is a 32-bit int on every platform NCCL runs on (as an event's pid).
constexpr std::int64_t max_pid = 2'147'483'647;

std::string at(std::string_view list, std::size_t i, std::string_view field = {}) {
    std::string name = std::string(list) + "[" + std::to_string(i) + "]";
    if (!field.empty()) name += "." + std::string(field);
    return name;
}

Expected<std::string> read_text(const json& object, const std::string& name, const char* key, std::size_t max,
                                bool required) {
    const json* value = member(object, key);
    if (!value) {
        if (required) return field_error(name, "is required");
        return std::string();
    }
    if (!value->is_string() || value->get_ref<const std::string&>().size() > max)
        return field_error(name, "must be a string of at most " + std::to_string(max) + " bytes");
    return value->get<std::string>();
}

Expected<Finding> read_finding(const json& value, std::size_t i, const RecordsLimits& limits) {
    if (!value.is_object()) return field_error(at("findings", i), "must be an object");
    Finding f;
    const json* kind = member(value, "kind");
    if (!kind) return field_error(at("findings", i, "kind"), "is required");
    const auto parsed = kind->is_string() ? parse_finding_kind(kind->get_ref<const std::string&>()) : std::nullopt;
    if (!parsed)
        return field_error(at("findings", i, "kind"),
                           "must be a finding kind (" + event_fields::names_of<FindingKind>(finding_kind_count) + ")");
    f.kind = *parsed;
    auto message = read_text(value, at("findings", i, "message"), "message", limits.max_text, true);
    if (!message) return message.error();
    f.message = std::move(message).value();
    auto fix = read_text(value, at("findings", i, "fix"), "fix", limits.max_text, false);
    if (!fix) return fix.error();
    f.fix = std::move(fix).value();
    const std::string ranks_name = at("findings", i, "ranks");
    const std::string ranks_rule =
        "must be an array of distinct ranks from 0 to " + std::to_string(limits.max_ranks - 1);
    if (const json* ranks = member(value, "ranks")) {
        if (!ranks->is_array() || ranks->size() > limits.max_ranks) return field_error(ranks_name, ranks_rule);
        f.ranks.reserve(ranks->size());
        for (const auto& r : *ranks) {
            const auto n = as_int(r);
            if (!n || *n < 0 || *n >= static_cast<std::int64_t>(limits.max_ranks))
                return field_error(ranks_name, ranks_rule);
            f.ranks.push_back(*n);
        }
        std::sort(f.ranks.begin(), f.ranks.end());
        if (std::adjacent_find(f.ranks.begin(), f.ranks.end()) != f.ranks.end())
            return field_error(ranks_name, ranks_rule);
    }
    const std::string sources_rule = "must be an array of at most " + std::to_string(limits.max_sources) +
                                     " strings of at most " + std::to_string(limits.max_text) + " bytes";
    if (const json* sources = member(value, "sources")) {
        if (!sources->is_array() || sources->size() > limits.max_sources)
            return field_error(at("findings", i, "sources"), sources_rule);
        for (const auto& s : *sources) {
            if (!s.is_string() || s.get_ref<const std::string&>().size() > limits.max_text)
                return field_error(at("findings", i, "sources"), sources_rule);
            f.sources.push_back(s.get<std::string>());
        }
    }
    return f;
}

Expected<RecordsRank> read_rank(const json& value, std::size_t i, const RecordsLimits& limits) {
    if (!value.is_object()) return field_error(at("ranks", i), "must be an object");
    RecordsRank r;
    const json* rank = member(value, "rank");
    if (!rank) return field_error(at("ranks", i, "rank"), "is required");
    const auto n = as_int(*rank);
    if (!n || *n < 0 || *n >= static_cast<std::int64_t>(limits.max_ranks))
        return field_error(at("ranks", i, "rank"),
                           "must be an integer from 0 to " + std::to_string(limits.max_ranks - 1));
    r.rank = *n;
    if (const json* host = member(value, "host")) {
        if (!host->is_string() || host->get_ref<const std::string&>().size() > limits.max_host)
            return field_error(at("ranks", i, "host"),
                               "must be a string of at most " + std::to_string(limits.max_host) + " bytes");
        r.host = host->get<std::string>();
    }
    if (const json* pid = member(value, "pid")) {
        const auto p = as_int(*pid);
        if (!p || *p < 0 || *p > max_pid)
            return field_error(at("ranks", i, "pid"), "must be an integer from 0 to " + std::to_string(max_pid));
        r.pid = *p;
    }
    if (const json* position = member(value, "position")) {
        auto p = hang_position_from_json(*position, at("ranks", i, "position"));
        if (!p) return p.error();
        r.position = std::move(p).value();
    }
    return r;
}
}  // namespace

json to_json(const RecordsImport& records) {
    json j = {{"format", records_format}, {"findings", json::array()}, {"ranks", json::array()}};
    for (const Finding& f : records.findings)
        j["findings"].push_back({{"kind", to_string(f.kind)},
                                 {"ranks", f.ranks},
                                 {"message", f.message},
                                 {"fix", f.fix},
                                 {"sources", f.sources}});
    for (const RecordsRank& r : records.ranks) {
        json o = {{"rank", r.rank}};
        if (r.host) o["host"] = *r.host;
        if (r.pid) o["pid"] = *r.pid;
        if (r.position) o["position"] = to_json(*r.position);
        j["ranks"].push_back(std::move(o));
    }
    if (records.world_size > 0) j["world_size"] = records.world_size;
    if (records.topology) {
        j["topology"] = {{"dp", records.topology->dp}, {"cp", records.topology->cp}, {"ep", records.topology->ep}};
        j["topology_proposed"] = records.topology_proposed;
    }
    return j;
}

Expected<RecordsImport> records_import_from_json(const json& document, const RecordsLimits& limits) {
    if (!document.is_object())
        return ValueError("the body must be a JSON object: a " + std::string(records_format) + " document");
    const json* format = member(document, "format");
    if (!format || !format->is_string() || format->get_ref<const std::string&>() != records_format)
        return field_error("format", "must be \"" + std::string(records_format) + "\"");
    RecordsImport out;
    const json* findings = member(document, "findings");
    if (!findings) return field_error("findings", "is required");
    if (!findings->is_array() || findings->size() > limits.max_findings)
        return field_error("findings",
                           "must be an array of at most " + std::to_string(limits.max_findings) + " findings");
    out.findings.reserve(findings->size());
    for (std::size_t i = 0; i < findings->size(); ++i) {
        auto f = read_finding((*findings)[i], i, limits);
        if (!f) return f.error();
        out.findings.push_back(std::move(f).value());
    }
    if (const json* ranks = member(document, "ranks")) {
        if (!ranks->is_array() || ranks->size() > limits.max_ranks)
            return field_error("ranks", "must be an array of at most " + std::to_string(limits.max_ranks) + " ranks");
        out.ranks.reserve(ranks->size());
        for (std::size_t i = 0; i < ranks->size(); ++i) {
            auto r = read_rank((*ranks)[i], i, limits);
            if (!r) return r.error();
            out.ranks.push_back(std::move(r).value());
        }
    }
    if (const json* world = member(document, "world_size")) {
        const auto n = as_int(*world);
        if (!n || *n < 1 || *n > static_cast<std::int64_t>(limits.max_ranks))
            return field_error("world_size", "must be an integer from 1 to " + std::to_string(limits.max_ranks));
        out.world_size = *n;
    }
    if (const json* topology = member(document, "topology")) {
        EventLimits bounds;
        bounds.max_world_size = static_cast<std::int64_t>(limits.max_ranks);
        auto t = event_fields::read_topology(*topology, bounds);
        if (!t) return t.error();
        out.topology = std::move(t).value();
    }
    if (const json* proposed = member(document, "topology_proposed")) {
        if (!proposed->is_boolean()) return field_error("topology_proposed", "must be true or false");
        out.topology_proposed = proposed->get<bool>();
    }
    return out;
}

Expected<RecordsImport> parse_records_import(std::string_view body, const RecordsLimits& limits) {
    bool too_deep = false;
    const json document = parse_json_bounded(body, &too_deep);
    if (too_deep) return ValueError(json_depth_text());
    if (document.is_discarded()) {
        try {
            const json again = json::parse(body);
            (void)again;
        } catch (const json::exception& e) {
            return ValueError("invalid JSON: " + event_fields::json_error_text(e));
        }
        return ValueError("invalid JSON");
    }
    return records_import_from_json(document, limits);
}

}  // namespace meshscope
