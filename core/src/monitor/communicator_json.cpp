// The "communicators" field of meshscope.event/1 (docs/protocol.md): what meshscope-probe measured on each of
// the rank's groups. Bounded like the rest of the event: a bad entry refuses the event with a named field.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "event_fields.h"
#include "meshscope/mesh/dim_collectives.h"
#include "meshscope/monitor/event.h"

namespace meshscope {

namespace {
using event_fields::as_int;
using event_fields::field_error;
using event_fields::member;
using event_fields::read_ranks;
using nlohmann::json;

constexpr std::array<std::string_view, 4> state_names = {"formed", "not_formed", "wrong_result", "failed"};

std::optional<double> as_seconds(const json& value) {
    if (!value.is_number()) return std::nullopt;
    const double v = value.get<double>();
    if (!std::isfinite(v) || v < 0) return std::nullopt;
    return v;
}

Expected<CollectiveResult> read_result(const json& value, const std::string& name) {
    if (!value.is_object()) return field_error(name, "must be an object");
    CollectiveResult result;
    const json* collective = member(value, "collective");
    if (!collective) return field_error(name + ".collective", "is required");
    static constexpr std::string_view known = "must be one of all_reduce, all_gather, reduce_scatter, all_to_all";
    if (!collective->is_string()) return field_error(name + ".collective", known);
    result.collective = collective->get<std::string>();
    const bool listed = std::any_of(std::begin(dim_collectives), std::end(dim_collectives), [&](const auto& entry) {
        for (std::size_t i = 0; i < entry.count; ++i)
            if (to_string(entry.collectives[i]) == result.collective) return true;
        return false;
    });
    if (!listed) return field_error(name + ".collective", known);
    const json* bytes = member(value, "bytes");
    if (!bytes) return field_error(name + ".bytes", "is required");
    const auto b = as_int(*bytes);
    if (!b || *b < 1) return field_error(name + ".bytes", "must be a positive integer");
    result.bytes = *b;
    for (auto [key, slot] : {std::pair{"seconds", &result.seconds}, std::pair{"algbw", &result.algbw},
                             std::pair{"busbw", &result.busbw}}) {
        const json* v = member(value, key);
        if (!v) return field_error(name + "." + key, "is required");
        const auto d = as_seconds(*v);
        if (!d) return field_error(name + "." + key, "must be a non-negative number");
        *slot = *d;
    }
    return result;
}

Expected<ReportedCommunicator> read_one(const json& value, const std::string& name, std::int64_t world_size,
                                        const EventLimits& limits) {
    if (!value.is_object()) return field_error(name, "must be an object");
    ReportedCommunicator c;
    const json* dim = member(value, "dim");
    if (!dim) return field_error(name + ".dim", "is required");
    if (!dim->is_string() || dim->get_ref<const std::string&>().empty() ||
        dim->get_ref<const std::string&>().size() > limits.max_string_length)
        return field_error(name + ".dim",
                           "must be a string of 1 to " + std::to_string(limits.max_string_length) + " bytes");
    c.dim = dim->get<std::string>();
    const json* index = member(value, "index");
    if (!index) return field_error(name + ".index", "is required");
    const auto i = as_int(*index);
    if (!i || *i < 0 || *i >= world_size)
        return field_error(name + ".index",
                           "must be a group index below world_size (" + std::to_string(world_size) + ")");
    c.index = *i;
    const json* members = member(value, "members");
    if (!members) return field_error(name + ".members", "is required");
    auto m = read_ranks(*members, name + ".members", world_size);
    if (!m) return m.error();
    if (m->empty()) return field_error(name + ".members", "must not be empty");
    c.members = std::move(*m);
    const json* state = member(value, "state");
    if (!state) return field_error(name + ".state", "is required");
    const auto s = state->is_string() ? parse_communicator_state(state->get_ref<const std::string&>()) : std::nullopt;
    if (!s) return field_error(name + ".state", "must be one of formed, not_formed, wrong_result, failed");
    c.state = *s;
    if (const json* v = member(value, "create_seconds")) {
        const auto d = as_seconds(*v);
        if (!d) return field_error(name + ".create_seconds", "must be a non-negative number");
        c.create_seconds = *d;
    }
    if (const json* v = member(value, "results")) {
        if (!v->is_array()) return field_error(name + ".results", "must be an array");
        if (v->size() > limits.max_results)
            return field_error(name + ".results",
                               "must have at most " + std::to_string(limits.max_results) + " entries");
        for (std::size_t k = 0; k < v->size(); ++k) {
            auto r = read_result((*v)[k], name + ".results[" + std::to_string(k) + "]");
            if (!r) return r.error();
            c.results.push_back(std::move(*r));
        }
    }
    if (const json* v = member(value, "missing")) {
        auto missing = read_ranks(*v, name + ".missing", world_size);
        if (!missing) return missing.error();
        c.missing = std::move(*missing);
    }
    if (const json* v = member(value, "error")) {
        if (!v->is_string()) return field_error(name + ".error", "must be a string");
        if (v->get_ref<const std::string&>().size() > limits.max_message_length)
            return field_error(name + ".error",
                               "must be at most " + std::to_string(limits.max_message_length) + " bytes");
        c.error = v->get<std::string>();
    }
    return c;
}
}  // namespace

std::string_view to_string(CommunicatorState state) noexcept {
    return state_names[static_cast<std::size_t>(state)];
}

std::optional<CommunicatorState> parse_communicator_state(std::string_view text) noexcept {
    for (std::size_t i = 0; i < state_names.size(); ++i)
        if (state_names[i] == text) return static_cast<CommunicatorState>(i);
    return std::nullopt;
}

Expected<std::vector<ReportedCommunicator>> read_communicators(const json& value, std::int64_t world_size,
                                                               const EventLimits& limits) {
    if (!value.is_array()) return field_error("communicators", "must be an array");
    if (value.size() > limits.max_communicators)
        return field_error("communicators",
                           "must have at most " + std::to_string(limits.max_communicators) + " entries");
    std::vector<ReportedCommunicator> out;
    out.reserve(value.size());
    for (std::size_t k = 0; k < value.size(); ++k) {
        auto c = read_one(value[k], "communicators[" + std::to_string(k) + "]", world_size, limits);
        if (!c) return c.error();
        out.push_back(std::move(*c));
    }
    return out;
}

json to_json(const ReportedCommunicator& c) {
    json j = {{"dim", c.dim}, {"index", c.index}, {"members", c.members}, {"state", to_string(c.state)}};
    if (c.create_seconds) j["create_seconds"] = *c.create_seconds;
    if (!c.results.empty()) {
        j["results"] = json::array();
        for (const auto& r : c.results)
            j["results"].push_back({{"collective", r.collective},
                                    {"bytes", r.bytes},
                                    {"seconds", r.seconds},
                                    {"algbw", r.algbw},
                                    {"busbw", r.busbw}});
    }
    if (!c.missing.empty()) j["missing"] = c.missing;
    if (c.error) j["error"] = *c.error;
    return j;
}

}  // namespace meshscope
