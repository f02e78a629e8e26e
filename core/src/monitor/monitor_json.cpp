// The readers of what the monitor writes (finding.h, rank_state.h, monitor.h): a Finding, a RankState and a Change
// read back from the JSON their to_json writes, for a front end that reads a collector's API (the desktop's Live
// page). They check shapes and names, not the collector's input bounds: the JSON is what a collector wrote.
#include <string_view>

#include "event_fields.h"
#include "meshscope/monitor/finding.h"
#include "meshscope/monitor/monitor.h"
#include "meshscope/monitor/rank_state.h"

namespace meshscope {

namespace {
using event_fields::as_int;
using event_fields::field_error;
using event_fields::member;
using event_fields::names_of;
using event_fields::one_of;
using nlohmann::json;

// A field's name for messages (prefix + key: "finding." + "id"), spelled out only when a message is written: a
// 16,384-rank snapshot reads each field of every rank, and almost never refuses one.
struct Field {
    std::string_view prefix;
    std::string_view key;
    [[nodiscard]] std::string name() const { return std::string(prefix) + std::string(key); }
};

// The rules of the names, spelled out only for a message.
std::string finding_kind_rule() {
    return "must be a finding kind (" + names_of<FindingKind>(finding_kind_count) + ")";
}
std::string finding_kinds_rule() {
    return "must be an array of finding kinds (" + names_of<FindingKind>(finding_kind_count) + ")";
}
std::string state_rule() {
    return one_of<RankStateKind>(rank_state_kind_count);
}
std::string phase_rule() {
    return one_of<Phase>(phase_count);
}
std::string status_rule() {
    return one_of<Status>(3);
}
std::string change_rule() {
    return one_of<ChangeKind>(change_kind_count);
}

// A name of `Enum` read by `parse`. Not a string: the rule's error. A string this build does not know: the rule's
// error without `unknown`, else nullopt with the name written to *slot.
template <typename Enum, typename Parse>
Expected<std::optional<Enum>> read_name(const json& value, const Field& field, std::string (*rule)(), Parse parse,
                                        std::string* slot) {
    if (!value.is_string()) return field_error(field.name(), rule());
    const auto& text = value.get_ref<const std::string&>();
    if (const std::optional<Enum> known = parse(text)) return known;
    if (!slot) return field_error(field.name(), rule());
    *slot = text;
    return std::optional<Enum>();
}

Expected<std::int64_t> read_count(const json& value, const Field& field) {
    const auto n = as_int(value);
    if (!n || *n < 0) return field_error(field.name(), "must be a non-negative integer");
    return *n;
}

Expected<std::int64_t> read_positive(const json& value, const Field& field) {
    const auto n = as_int(value);
    if (!n || *n < 1) return field_error(field.name(), "must be a positive integer");
    return *n;
}

Expected<std::string> read_text(const json& value, const Field& field) {
    if (!value.is_string()) return field_error(field.name(), "must be a string");
    return value.get<std::string>();
}

Expected<double> read_number(const json& value, const Field& field) {
    if (!value.is_number()) return field_error(field.name(), "must be a number");
    return value.get<double>();
}

Expected<std::vector<std::int64_t>> read_rank_list(const json& value, const Field& field) {
    constexpr std::string_view rule = "must be an array of non-negative integers";
    if (!value.is_array()) return field_error(field.name(), rule);
    std::vector<std::int64_t> ranks;
    ranks.reserve(value.size());
    for (const json& item : value) {
        const auto r = as_int(item);
        if (!r || *r < 0) return field_error(field.name(), rule);
        ranks.push_back(*r);
    }
    return ranks;
}

Expected<std::vector<std::string>> read_text_list(const json& value, const Field& field) {
    if (!value.is_array()) return field_error(field.name(), "must be an array of strings");
    std::vector<std::string> out;
    out.reserve(value.size());
    for (const json& item : value) {
        if (!item.is_string()) return field_error(field.name(), "must be an array of strings");
        out.push_back(item.get<std::string>());
    }
    return out;
}

// Reads the optional member `key` into `slot` with `read(value, field)`; an error is returned, absence leaves `slot`.
template <typename T, typename Read>
std::optional<Error> optional_field(const json& object, std::string_view prefix, const char* key,
                                    std::optional<T>& slot, Read read) {
    const json* v = member(object, key);
    if (!v) return std::nullopt;
    auto value = read(*v, Field{prefix, key});
    if (!value) return value.error();
    slot = std::move(value).value();
    return std::nullopt;
}

// The finding's fields, named prefix + key (prefix "finding." inside a change).
Expected<Finding> read_finding(const json& value, std::string_view prefix, UnknownNames* unknown) {
    Finding f;
    const json* id = member(value, "id");
    if (!id) return field_error(Field{prefix, "id"}.name(), "is required");
    auto id_text = read_text(*id, Field{prefix, "id"});
    if (!id_text) return id_text.error();
    f.id = std::move(id_text).value();
    const json* kind = member(value, "kind");
    if (!kind) return field_error(Field{prefix, "kind"}.name(), "is required");
    auto k = read_name<FindingKind>(*kind, Field{prefix, "kind"}, finding_kind_rule, parse_finding_kind,
                                    unknown ? &unknown->kind : nullptr);
    if (!k) return k.error();
    if (*k) f.kind = **k;
    if (const json* ranks = member(value, "ranks")) {
        auto r = read_rank_list(*ranks, Field{prefix, "ranks"});
        if (!r) return r.error();
        f.ranks = std::move(r).value();
    }
    for (auto [key, slot] : {std::pair{"message", &f.message}, std::pair{"fix", &f.fix}}) {
        if (const json* text = member(value, key)) {
            auto t = read_text(*text, Field{prefix, key});
            if (!t) return t.error();
            *slot = std::move(t).value();
        }
    }
    if (const json* sources = member(value, "sources")) {
        auto s = read_text_list(*sources, Field{prefix, "sources"});
        if (!s) return s.error();
        f.sources = std::move(s).value();
    }
    return f;
}

Expected<std::map<std::string, ReportedMesh>> read_meshes(const json& value) {
    if (!value.is_array()) return field_error("meshes", "must be an array of objects");
    std::map<std::string, ReportedMesh> meshes;
    for (std::size_t i = 0; i < value.size(); ++i) {
        const json& m = value[i];
        const std::string at = "meshes[" + std::to_string(i) + "].";
        if (!m.is_object()) return field_error("meshes", "must be an array of objects");
        ReportedMesh mesh;
        const json* name = member(m, "name");
        if (!name) return field_error(at + "name", "is required");
        auto n = read_text(*name, Field{at, "name"});
        if (!n) return n.error();
        mesh.name = std::move(n).value();
        if (const json* dims = member(m, "dim_names")) {
            auto d = read_text_list(*dims, Field{at, "dim_names"});
            if (!d) return d.error();
            mesh.dim_names = std::move(d).value();
        }
        if (const json* shape = member(m, "shape")) {
            if (!shape->is_array()) return field_error(at + "shape", "must be an array of positive integers");
            for (const json& size : *shape) {
                const auto s = as_int(size);
                if (!s || *s < 1) return field_error(at + "shape", "must be an array of positive integers");
                mesh.shape.push_back(*s);
            }
        }
        meshes[mesh.name] = std::move(mesh);
    }
    return meshes;
}

Expected<std::map<std::string, std::vector<std::int64_t>>> read_groups(const json& value) {
    if (!value.is_object()) return field_error("groups", "must be an object");
    std::map<std::string, std::vector<std::int64_t>> groups;
    for (const auto& [dim, members] : value.items()) {
        auto ranks = read_rank_list(members, Field{"groups.", dim});
        if (!ranks) return ranks.error();
        groups.emplace(dim, std::move(ranks).value());
    }
    return groups;
}

std::optional<Error> read_timings(const json& value, RankState& s, UnknownNames* unknown) {
    if (!value.is_object()) return field_error("timings", "must be an object");
    for (const auto& [key, entry] : value.items()) {
        const std::optional<Phase> phase = parse_phase(key);
        if (!phase) {
            if (!unknown)
                return field_error("timings", "must have phases as keys (" + names_of<Phase>(phase_count) + ")");
            unknown->timings.push_back(key);
            continue;
        }
        if (!entry.is_object()) return field_error(Field{"timings.", key}.name(), "must be an object");
        PhaseTiming& t = s.timings[index_of(*phase)];
        for (auto [field, slot] :
             {std::pair{"started", &t.started}, std::pair{"done", &t.done}, std::pair{"failed", &t.failed}}) {
            const json* v = member(entry, field);
            if (!v) continue;
            if (!v->is_number()) return field_error("timings." + key + "." + field, "must be a number");
            *slot = v->get<double>();
        }
    }
    return std::nullopt;
}

// Every optional field of a rank state but its names (phase, status, findings, timings).
std::optional<Error> read_rank_fields(const json& value, RankState& s) {
    for (auto [key, slot] :
         {std::pair{"host", &s.host}, std::pair{"device", &s.device}, std::pair{"device_uuid", &s.device_uuid}})
        if (auto error = optional_field(value, "", key, *slot, read_text)) return error;
    for (auto [key, slot] : {std::pair{"pid", &s.pid}, std::pair{"local_rank", &s.local_rank}})
        if (auto error = optional_field(value, "", key, *slot, read_count)) return error;
    if (auto error = optional_field(value, "", "world_size", s.world_size, read_positive)) return error;
    const auto topology = [](const json& v, const Field&) { return event_fields::read_topology(v, {}); };
    if (auto error = optional_field(value, "", "topology", s.topology, topology)) return error;
    if (const json* meshes = member(value, "meshes")) {
        auto m = read_meshes(*meshes);
        if (!m) return m.error();
        s.meshes = std::move(m).value();
    }
    if (const json* groups = member(value, "groups")) {
        auto g = read_groups(*groups);
        if (!g) return g.error();
        s.groups = std::move(g).value();
    }
    const auto error_of = [](const json& v, const Field&) { return event_fields::read_error(v, {}); };
    if (auto error = optional_field(value, "", "error", s.error, error_of)) return error;
    for (auto [key, slot] : {std::pair{"first_seen", &s.first_seen}, std::pair{"last_seen", &s.last_seen},
                             std::pair{"last_ts", &s.last_ts}})
        if (auto error = optional_field(value, "", key, *slot, read_number)) return error;
    std::optional<std::int64_t> events;
    if (auto error = optional_field(value, "", "events", events, read_count)) return error;
    s.events = events.value_or(0);
    return std::nullopt;
}

std::optional<Error> read_rank_findings(const json& value, RankState& s, UnknownNames* unknown) {
    if (!value.is_array()) return field_error("findings", finding_kinds_rule());
    for (const json& item : value) {
        if (!item.is_string()) return field_error("findings", finding_kinds_rule());
        const auto& text = item.get_ref<const std::string&>();
        if (const auto kind = parse_finding_kind(text)) {
            s.findings.push_back(*kind);
        } else {
            if (!unknown) return field_error("findings", finding_kinds_rule());
            unknown->findings.push_back(text);
        }
    }
    return std::nullopt;
}

Expected<RankStateKind> read_state(const json& value, UnknownNames* unknown) {
    const json* state = member(value, "state");
    if (!state) return field_error("state", "is required");
    auto s = read_name<RankStateKind>(*state, Field{"", "state"}, state_rule, parse_rank_state_kind,
                                      unknown ? &unknown->state : nullptr);
    if (!s) return s.error();
    return s->value_or(RankStateKind::pending);
}

Expected<std::optional<Phase>> read_phase(const json& value, UnknownNames* unknown) {
    const json* phase = member(value, "phase");
    if (!phase) return std::optional<Phase>();
    return read_name<Phase>(*phase, Field{"", "phase"}, phase_rule, parse_phase, unknown ? &unknown->phase : nullptr);
}

Expected<std::int64_t> read_rank(const json& value) {
    const json* rank = member(value, "rank");
    if (!rank) return field_error("rank", "is required");
    return read_count(*rank, Field{"", "rank"});
}
}  // namespace

Expected<Finding> finding_from_json(const json& value, UnknownNames* unknown) {
    if (!value.is_object()) return ValueError("a finding must be a JSON object");
    return read_finding(value, "", unknown);
}

Expected<RankState> rank_state_from_json(const json& value, UnknownNames* unknown) {
    if (!value.is_object()) return ValueError("a rank state must be a JSON object");
    RankState s;
    auto rank = read_rank(value);
    if (!rank) return rank.error();
    s.rank = *rank;
    auto state = read_state(value, unknown);
    if (!state) return state.error();
    s.state = *state;
    auto phase = read_phase(value, unknown);
    if (!phase) return phase.error();
    s.phase = *phase;
    if (const json* status = member(value, "status")) {
        auto st = read_name<Status>(*status, Field{"", "status"}, status_rule, parse_status,
                                    unknown ? &unknown->status : nullptr);
        if (!st) return st.error();
        s.status = *st;
    }
    if (auto error = read_rank_fields(value, s)) return *error;
    if (const json* timings = member(value, "timings"))
        if (auto error = read_timings(*timings, s, unknown)) return *error;
    if (const json* findings = member(value, "findings"))
        if (auto error = read_rank_findings(*findings, s, unknown)) return *error;
    if (const json* position = member(value, "position")) {
        auto p = hang_position_from_json(*position, "position");
        if (!p) return p.error();
        s.position = std::move(p).value();
    }
    return s;
}

Expected<Change> change_from_json(const json& value, UnknownNames* unknown) {
    if (!value.is_object()) return ValueError("a change must be a JSON object");
    Change c;
    const json* type = member(value, "type");
    if (!type) return field_error("type", "is required");
    auto kind = read_name<ChangeKind>(*type, Field{"", "type"}, change_rule, parse_change_kind,
                                      unknown ? &unknown->type : nullptr);
    if (!kind) return kind.error();
    const json* job = member(value, "job");
    if (!job && *kind) return field_error("job", "is required");
    if (job) {
        auto job_name = read_text(*job, Field{"", "job"});
        if (!job_name) return job_name.error();
        c.job = std::move(job_name).value();
    }
    if (!*kind) return c;
    c.kind = **kind;
    switch (c.kind) {
        case ChangeKind::job_added: break;
        case ChangeKind::rank_changed: {
            auto rank = read_rank(value);
            if (!rank) return rank.error();
            c.rank = *rank;
            auto state = read_state(value, unknown);
            if (!state) return state.error();
            c.state = *state;
            auto phase = read_phase(value, unknown);
            if (!phase) return phase.error();
            c.phase = *phase;
            break;
        }
        case ChangeKind::finding_added:
        case ChangeKind::finding_updated:
            if (const json* finding = member(value, "finding")) {
                if (!finding->is_object()) return field_error("finding", "must be an object");
                auto f = read_finding(*finding, "finding.", unknown);
                if (!f) return f.error();
                c.finding = std::move(f).value();
            }
            break;
        case ChangeKind::finding_removed:
            if (member(value, "id") || member(value, "kind")) {
                auto f = read_finding(value, "", unknown);
                if (!f) return f.error();
                Finding read = std::move(f).value();
                c.finding = Finding{};
                c.finding->id = std::move(read.id);
                c.finding->kind = read.kind;
            }
            break;
    }
    return c;
}

}  // namespace meshscope
