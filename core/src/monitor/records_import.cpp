// meshscope.records/1: written by `meshscope import`, read by the collector (the one reader of it).
#include "meshscope/monitor/records_import.h"

#include <algorithm>
#include <iterator>
#include <utility>

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
// NCCL Inspector's spelling of a commHash: "0x" and 1 to 16 lowercase hex digits, the first not 0 (or "0x0").
bool inspector_hash(std::string_view text) {
    if (text.size() < 3 || text.size() > 18 || !text.starts_with("0x")) return false;
    const std::string_view digits = text.substr(2);
    if (digits.find_first_not_of("0123456789abcdef") != std::string_view::npos) return false;
    return digits.size() == 1 || digits.front() != '0';
}

Expected<RecordsCommunicator> read_communicator(const json& value, std::size_t i, const RecordsLimits& limits) {
    if (!value.is_object()) return field_error(at("communicators", i), "must be an object");
    RecordsCommunicator c;
    auto name = read_text(value, at("communicators", i, "name"), "name", limits.max_host, true);
    if (!name) return name.error();
    if (name->empty()) return field_error(at("communicators", i, "name"), "must not be empty");
    c.name = std::move(name).value();
    if (const json* id = member(value, "comm_id")) {
        if (!id->is_string() || !inspector_hash(id->get_ref<const std::string&>()))
            return field_error(at("communicators", i, "comm_id"),
                               "must be \"0x\" and 1 to 16 lowercase hex digits without leading zeros");
        c.comm_id = id->get<std::string>();
    }
    const auto max_ranks = static_cast<std::int64_t>(limits.max_ranks);
    const json* nranks = member(value, "nranks");
    if (!nranks) return field_error(at("communicators", i, "nranks"), "is required");
    const auto n = as_int(*nranks);
    if (!n || *n < 1 || *n > max_ranks)
        return field_error(at("communicators", i, "nranks"),
                           "must be an integer from 1 to " + std::to_string(max_ranks));
    c.nranks = *n;
    if (const json* seen = member(value, "seen")) {
        const auto k = as_int(*seen);
        if (!k || *k < 0 || *k > max_ranks)
            return field_error(at("communicators", i, "seen"),
                               "must be an integer from 0 to " + std::to_string(max_ranks));
        c.seen = *k;
    }
    if (const json* state = member(value, "state")) {
        const bool known = state->is_string() &&
                           std::find(std::begin(records_communicator_states), std::end(records_communicator_states),
                                     state->get_ref<const std::string&>()) != std::end(records_communicator_states);
        if (!known) return field_error(at("communicators", i, "state"), "must be formed, not_formed, stuck or failed");
        c.state = state->get<std::string>();
    }
    for (auto [key, into] : {std::pair{"source", &c.source}, std::pair{"dim", &c.dim}}) {
        auto text = read_text(value, at("communicators", i, key), key, limits.max_host, false);
        if (!text) return text.error();
        *into = std::move(text).value();
    }
    if (const json* index = member(value, "index")) {
        const auto k = as_int(*index);
        if (!k || *k < 0 || *k > max_ranks)
            return field_error(at("communicators", i, "index"),
                               "must be an integer from 0 to " + std::to_string(max_ranks));
        c.index = *k;
    }
    return c;
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
    if (!records.communicators.empty()) {
        json list = json::array();
        for (const RecordsCommunicator& c : records.communicators) {
            json o = {{"name", c.name}, {"nranks", c.nranks}, {"seen", c.seen}, {"state", c.state}};
            if (c.comm_id) o["comm_id"] = *c.comm_id;
            if (!c.source.empty()) o["source"] = c.source;
            if (!c.dim.empty()) o["dim"] = c.dim;
            if (c.index >= 0) o["index"] = c.index;
            list.push_back(std::move(o));
        }
        j["communicators"] = std::move(list);
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
    if (const json* communicators = member(document, "communicators")) {
        if (!communicators->is_array() || communicators->size() > limits.max_communicators)
            return field_error("communicators", "must be an array of at most " +
                                                    std::to_string(limits.max_communicators) + " communicators");
        out.communicators.reserve(communicators->size());
        for (std::size_t i = 0; i < communicators->size(); ++i) {
            auto c = read_communicator((*communicators)[i], i, limits);
            if (!c) return c.error();
            out.communicators.push_back(std::move(c).value());
        }
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
