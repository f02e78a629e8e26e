// Parsing and validating meshscope.event/1: the one place that decides what an acceptable event is.
#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "event_fields.h"
#include "meshscope/mesh/json_limits.h"
#include "meshscope/mesh/plan_json.h"
#include "meshscope/monitor/event.h"

namespace meshscope {

namespace {
using event_fields::as_int;
using event_fields::field_error;
using event_fields::json_error_text;
using event_fields::member;
using event_fields::one_of;
using event_fields::read_error;
using event_fields::read_int;
using event_fields::read_string;
using event_fields::read_topology;
using nlohmann::json;

// "ts" is seconds on the sender's clock (time.time(): 1.8e9 in 2027); a rank's newest ts orders its events, so one
// absurd value (1e300) would make every later event of the rank "late" and freeze its phase. The year 2286.
constexpr std::int64_t max_ts = 10'000'000'000;
// pid_t is a 32-bit int on every platform the reporters run on.
constexpr std::int64_t max_pid = 2'147'483'647;

bool is_job_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("._-:@+=").find(c) != std::string_view::npos;
}

// Nesting depth of a JSON value, stopping at `limit` so that hostile documents cost little.
std::size_t depth_of(const json& value, std::size_t limit) {
    if (limit == 0 || !value.is_structured()) return 0;
    std::size_t deepest = 0;
    for (const auto& child : value) deepest = std::max(deepest, depth_of(child, limit - 1));
    return deepest + 1;
}

Expected<ReportedMesh> read_mesh(const json& value, const EventLimits& limits) {
    if (!value.is_object()) return field_error("mesh", "must be an object");
    ReportedMesh mesh;
    const json* name = member(value, "name");
    if (!name) return field_error("mesh.name", "is required");
    auto n = read_string(*name, "mesh.name", limits.max_string_length);
    if (!n) return n.error();
    mesh.name = *n;
    const json* names = member(value, "dim_names");
    if (!names) return field_error("mesh.dim_names", "is required");
    if (!names->is_array() || !std::all_of(names->begin(), names->end(), [](const json& j) { return j.is_string(); }))
        return field_error("mesh.dim_names", "must be an array of strings");
    if (names->size() > limits.max_mesh_dims)
        return field_error("mesh.dim_names", "must have at most " + std::to_string(limits.max_mesh_dims) + " entries");
    for (const auto& dim : *names) {
        auto d = read_string(dim, "mesh.dim_names", limits.max_string_length);
        if (!d) return d.error();
        mesh.dim_names.push_back(*d);
    }
    const json* shape = member(value, "shape");
    if (!shape) return field_error("mesh.shape", "is required");
    if (!shape->is_array()) return field_error("mesh.shape", "must be an array of positive integers");
    std::int64_t ranks = 1;
    for (const auto& size : *shape) {
        const auto s = as_int(size);
        if (!s || *s < 1) return field_error("mesh.shape", "must be an array of positive integers");
        if (*s > limits.max_world_size || ranks > limits.max_world_size / *s)
            return field_error("mesh.shape",
                               "must not cover more than " + std::to_string(limits.max_world_size) + " ranks");
        ranks *= *s;
        mesh.shape.push_back(*s);
    }
    if (mesh.shape.size() != mesh.dim_names.size())
        return field_error("mesh.shape", "must have as many entries as \"mesh.dim_names\"");
    return mesh;
}

// One group: a list of distinct ranks, or {"first", "step", "count"} (an evenly spaced group, as every group along
// one dim of a device mesh is: a 16,384-rank model mesh group is three numbers instead of 100 KB of JSON).
Expected<Group> read_group(const json& members, const std::string& name, std::int64_t world_size) {
    const std::string world = "world_size (" + std::to_string(world_size) + ")";
    const std::string too_many = "must have at most " + world + " members";
    if (members.is_object()) {
        if (members.size() != 3 || !members.contains("first") || !members.contains("step") ||
            !members.contains("count"))
            return field_error(name, R"(must have exactly "first", "step" and "count")");
        const auto first = as_int(members["first"]);
        if (!first || *first < 0 || *first >= world_size)
            return field_error(name + ".first", "must be a rank below " + world);
        const auto step = as_int(members["step"]);
        if (!step || *step < 1) return field_error(name + ".step", "must be a positive integer");
        const auto count = as_int(members["count"]);
        if (!count || *count < 1) return field_error(name + ".count", "must be a positive integer");
        if (*count > world_size) return field_error(name, too_many);
        // first < world_size <= 2^20 and count <= world_size, so only step can overflow the product.
        if (*count > 1 && *step > (world_size - 1 - *first) / (*count - 1))
            return field_error(name, "must end below " + world + ": its last member would be " +
                                         std::to_string(*first) + " + " + std::to_string(*count - 1) + " * " +
                                         std::to_string(*step));
        return Group::progression(*first, *step, *count);
    }
    if (!members.is_array())
        return field_error(name, "must be an array of ranks below " + world + R"( or {"first", "step", "count"})");
    const auto ranks = event_fields::read_ranks(members, name, world_size);
    if (!ranks) return ranks.error();
    return Group::from(*ranks);
}

Expected<std::map<std::string, Group>> read_groups(const json& value, std::int64_t world_size,
                                                   const EventLimits& limits) {
    if (!value.is_object()) return field_error("groups", "must be an object");
    if (value.size() > limits.max_group_dims)
        return field_error("groups", "must have at most " + std::to_string(limits.max_group_dims) + " dims");
    std::map<std::string, Group> groups;
    for (const auto& [dim, members] : value.items()) {
        if (dim.empty() || dim.size() > limits.max_string_length)
            return field_error("groups",
                               "must use dim names of 1 to " + std::to_string(limits.max_string_length) + " bytes");
        auto group = read_group(members, "groups." + dim, world_size);
        if (!group) return group.error();
        groups.emplace(dim, std::move(group).value());
    }
    return groups;
}

// Every dim must be one of the event's groups: the index says where that group comes in its dim's creation order.
// A dim has at most world_size groups (communicators[].index has the same bound and text).
Expected<std::map<std::string, std::int64_t>> read_creation_index(const json& value,
                                                                  const std::map<std::string, Group>& groups,
                                                                  std::int64_t world_size) {
    if (!value.is_object()) return field_error("creation_index", "must be an object");
    std::map<std::string, std::int64_t> indices;
    for (const auto& [dim, index] : value.items()) {
        const std::string name = "creation_index." + dim;
        if (groups.find(dim) == groups.end())
            return field_error(name, "needs the rank's " + dim + " group in \"groups\"");
        const auto n = as_int(index);
        if (!n || *n < 0 || *n >= world_size)
            return field_error(name, "must be a group index below world_size (" + std::to_string(world_size) + ")");
        indices.emplace(dim, *n);
    }
    return indices;
}

Expected<json> read_plan(const json& value) {
    if (!value.is_object()) return field_error("plan", "must be an object");
    if (depth_of(value, 33) > 32) return field_error("plan", "must not nest deeper than 32 levels");
    auto plan = plan_from_json(value);
    if (!plan) {
        std::string why = plan.error().message();
        constexpr std::string_view prefix = "invalid plan: ";
        if (why.starts_with(prefix)) why.erase(0, prefix.size());
        return field_error("plan", "must be a meshscope.plan/1 document: " + why);
    }
    return value;
}

Error indexed(std::size_t index, const Error& error) {
    return ValueError("event " + std::to_string(index) + ": " + error.message());
}

bool is_blank(std::string_view line) {
    return line.find_first_not_of(" \t\r\n") == std::string_view::npos;
}
}  // namespace

// long: every field of meshscope.event/1 read and checked in schema order, each with its exact message
Expected<Event> event_from_json(const json& value, const EventLimits& limits) {
    if (!value.is_object()) return ValueError("must be a JSON object");
    Event e;
    if (const json* schema = member(value, "schema")) {
        if (!schema->is_string() || schema->get<std::string>() != event_schema)
            return field_error("schema", "must be \"" + std::string(event_schema) + "\"");
    }

    const json* job = member(value, "job");
    if (!job) return field_error("job", "is required");
    if (!job->is_string()) return field_error("job", "must be a string");
    e.job = job->get<std::string>();
    if (e.job.empty() || e.job.size() > limits.max_job_length || !std::all_of(e.job.begin(), e.job.end(), is_job_char))
        return field_error("job", "must be 1 to " + std::to_string(limits.max_job_length) +
                                      " characters of A-Z, a-z, 0-9 and ._-:@+=");

    const json* rank = member(value, "rank");
    if (!rank) return field_error("rank", "is required");
    auto r = read_int(*rank, "rank", 0, limits.max_world_size - 1);
    if (!r) return r.error();
    const json* world = member(value, "world_size");
    if (!world) return field_error("world_size", "is required");
    auto w = read_int(*world, "world_size", 1, limits.max_world_size);
    if (!w) return w.error();
    if (*r >= *w)
        return field_error("rank",
                           "must be less than world_size (" + std::to_string(*w) + "), got " + std::to_string(*r));
    e.rank = *r;
    e.world_size = *w;

    const json* phase = member(value, "phase");
    if (!phase) return field_error("phase", "is required");
    const auto p = phase->is_string() ? parse_phase(phase->get_ref<const std::string&>()) : std::nullopt;
    if (!p) return field_error("phase", one_of<Phase>(phase_count));
    e.phase = *p;
    const json* status = member(value, "status");
    if (!status) return field_error("status", "is required");
    const auto s = status->is_string() ? parse_status(status->get_ref<const std::string&>()) : std::nullopt;
    if (!s) return field_error("status", one_of<Status>(3));
    e.status = *s;

    if (const json* ts = member(value, "ts")) {
        if (!ts->is_number() || !std::isfinite(ts->get<double>()) || ts->get<double>() < 0)
            return field_error("ts", "must be a non-negative number");
        if (ts->get<double>() > static_cast<double>(max_ts))
            return field_error("ts", "must be at most " + std::to_string(max_ts));
        e.ts = ts->get<double>();
    }
    for (auto [key, slot] :
         {std::pair{"host", &e.host}, std::pair{"device", &e.device}, std::pair{"device_uuid", &e.device_uuid}}) {
        if (const json* v = member(value, key)) {
            auto text = read_string(*v, key, limits.max_string_length);
            if (!text) return text.error();
            *slot = std::move(*text);
        }
    }
    // A local rank is a rank on one node: below the largest world.
    for (auto [key, slot, max] :
         {std::tuple{"pid", &e.pid, max_pid}, std::tuple{"local_rank", &e.local_rank, limits.max_world_size - 1}}) {
        if (const json* v = member(value, key)) {
            auto n = read_int(*v, key, 0, max);
            if (!n) return n.error();
            *slot = *n;
        }
    }
    if (const json* v = member(value, "topology")) {
        auto t = read_topology(*v, limits);
        if (!t) return t.error();
        e.topology = *t;
    }
    if (const json* v = member(value, "mesh")) {
        auto m = read_mesh(*v, limits);
        if (!m) return m.error();
        e.mesh = std::move(*m);
    }
    if (const json* v = member(value, "groups")) {
        auto g = read_groups(*v, e.world_size, limits);
        if (!g) return g.error();
        e.groups = std::move(*g);
    }
    if (const json* v = member(value, "creation_index")) {
        auto c = read_creation_index(*v, e.groups, e.world_size);
        if (!c) return c.error();
        e.creation_index = std::move(*c);
    }
    if (const json* v = member(value, "error")) {
        auto err = read_error(*v, limits);
        if (!err) return err.error();
        e.error = std::move(*err);
    }
    if (const json* v = member(value, "plan")) {
        auto plan = read_plan(*v);
        if (!plan) return plan.error();
        e.plan = std::move(*plan);
    }
    if (const json* v = member(value, "communicators")) {
        auto c = read_communicators(*v, e.world_size, limits);
        if (!c) return c.error();
        e.communicators = std::move(*c);
    }
    return e;
}

namespace {
// json::parse that also refuses an object with a repeated key: {"rank": 1, "rank": 2} means rank 2 to
// nlohmann and rank 1 to other parsers, so a collector must not guess. Returns the repeated key, if any
// (the value is then incomplete and must not be used); a syntax error throws json::parse_error, as json::parse.
//
// A SAX handler that builds the value itself: nlohmann's callback parser calls a std::function per token and
// the key check copied every key, which made parsing the collector's largest cost in a start-up storm
// (docs/benchmarks.md). Here a key is checked against the object being built, without a copy.
class UniqueKeyBuilder {
public:
    explicit UniqueKeyBuilder(json& root) : root_(root) {}
    std::optional<std::string> repeated;
    bool too_deep = false;  // nested deeper than max_json_depth (json_limits.h): stopped there

    bool null() { return put(nullptr); }
    bool boolean(bool v) { return put(v); }
    bool number_integer(json::number_integer_t v) { return put(v); }
    bool number_unsigned(json::number_unsigned_t v) { return put(v); }
    bool number_float(json::number_float_t v, const json::string_t&) { return put(v); }
    bool string(json::string_t& v) { return put(std::move(v)); }
    bool binary(json::binary_t& v) { return put(json::binary(std::move(v))); }
    bool start_object(std::size_t) {
        if (!enter()) return false;
        stack_.push_back(place(json::object()));
        return true;
    }
    bool key(json::string_t& k) {
        json& object = *stack_.back();
        if (object.contains(k)) {
            repeated = std::move(k);
            return false;  // stops the parse
        }
        slot_ = &object[std::move(k)];
        return true;
    }
    bool end_object() {
        stack_.pop_back();
        return true;
    }
    bool start_array(std::size_t) {
        if (!enter()) return false;
        stack_.push_back(place(json::array()));
        return true;
    }
    bool end_array() {
        stack_.pop_back();
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const json::exception& e) {
        // The same exception json::parse throws, so messages do not depend on which parser ran.
        switch (e.id / 100) {
            case 1: throw static_cast<const json::parse_error&>(e);
            case 4: throw static_cast<const json::out_of_range&>(e);
            default: throw static_cast<const json::other_error&>(e);
        }
    }

private:
    bool enter() {
        if (stack_.size() < max_json_depth) return true;
        too_deep = true;
        return false;  // stops the parse
    }
    // Where the next value goes: the root, the array being built, or the member named by the last key.
    json* place(json&& value) {
        if (stack_.empty()) {
            root_ = std::move(value);
            return &root_;
        }
        json& parent = *stack_.back();
        if (parent.is_array()) {
            parent.push_back(std::move(value));
            return &parent.back();
        }
        *slot_ = std::move(value);
        return slot_;
    }
    template <typename T>
    bool put(T&& value) {
        place(json(std::forward<T>(value)));
        return true;
    }

    json& root_;
    std::vector<json*> stack_;  // the objects and arrays being built, innermost last
    json* slot_ = nullptr;      // the member the last key made
};

std::string repeated_key_text(const std::string& key) {
    std::string text = "invalid JSON: the key \"";
    for (const char c : key) {
        const auto byte = static_cast<unsigned char>(c);
        text += (byte >= 0x20 && byte < 0x7f) ? std::string(1, c) : std::string("?");
    }
    return text + "\" appears twice in one object";
}

// Parses `text` into `out`; the message when it holds a repeated key or nests deeper than max_json_depth (the
// value is then incomplete and must not be used). A syntax error throws json::parse_error, as json::parse, and so
// does a NUL byte (refuse_nul_byte).
std::optional<std::string> parse_json_unique_keys(std::string_view text, json& out) {
    out = json();
    refuse_nul_byte(text);
    UniqueKeyBuilder builder(out);
    json::sax_parse(text.begin(), text.end(), &builder);
    if (builder.repeated) return repeated_key_text(*builder.repeated);
    if (builder.too_deep) return json_depth_text();
    return std::nullopt;
}
}  // namespace

std::optional<std::string> event_fields::parse_unique_keys(std::string_view text, json& out) {
    return parse_json_unique_keys(text, out);
}

bool valid_job_name(std::string_view job, const EventLimits& limits) noexcept {
    return !job.empty() && job.size() <= limits.max_job_length && std::all_of(job.begin(), job.end(), is_job_char);
}

std::string job_name_from(std::string text, const EventLimits& limits) {
    if (text.size() > limits.max_job_length) text.resize(limits.max_job_length);
    for (char& c : text)
        if (!is_job_char(c)) c = '-';
    return text;
}

namespace {
// Whether text is one complete JSON value (the bounded parser: a hostile line cannot nest deeper than the limit).
bool is_one_json_value(std::string_view text) {
    json value;
    try {
        return !parse_json_unique_keys(text, value).has_value();
    } catch (const json::exception&) {
        return false;
    }
}
}  // namespace

Expected<std::vector<Event>> parse_events(std::string_view body, const EventLimits& limits) {
    if (is_blank(body)) return ValueError("the body holds no events");
    std::vector<Event> events;
    auto add = [&](const json& value, std::size_t index) -> std::optional<Error> {
        if (events.size() >= limits.max_events)
            return ValueError("the body holds more than " + std::to_string(limits.max_events) + " events");
        auto e = event_from_json(value, limits);
        if (!e) return indexed(index, e.error());
        events.push_back(std::move(e).value());
        return std::nullopt;
    };

    json whole;
    std::string whole_error;
    try {
        if (auto refused = parse_json_unique_keys(body, whole)) return ValueError(*refused);
    } catch (const json::exception& e) {
        whole_error = json_error_text(e);
    }
    if (whole_error.empty()) {
        if (whole.is_array()) {
            if (whole.empty()) return ValueError("the body holds no events");
            if (whole.size() > limits.max_events)
                return ValueError("the body holds more than " + std::to_string(limits.max_events) + " events");
            events.reserve(whole.size());
            for (std::size_t i = 0; i < whole.size(); ++i)
                if (auto error = add(whole[i], i)) return *error;
            return events;
        }
        if (auto error = add(whole, 0)) return *error;
        return events;
    }

    // Not one JSON document. NDJSON when the body holds several non-blank lines and the first is a complete JSON
    // value of its own (told by its structure, not by the parser's message); any other error is the body's.
    std::vector<std::string_view> lines;
    for (std::size_t start = 0; start < body.size();) {
        const auto end = std::min(body.find('\n', start), body.size());
        const auto line = body.substr(start, end - start);
        if (!is_blank(line)) lines.push_back(line);
        start = end + 1;
    }
    // A NUL byte anywhere is the body's error at its byte (JSON text never holds one), NDJSON or not.
    if (lines.size() < 2 || body.find('\0') != std::string_view::npos || !is_one_json_value(lines.front()))
        return ValueError("invalid JSON: " + whole_error);
    if (lines.size() > limits.max_events)
        return ValueError("the body holds more than " + std::to_string(limits.max_events) + " events");
    events.reserve(lines.size());
    for (std::size_t i = 0; i < lines.size(); ++i) {
        json value;
        try {
            if (auto refused = parse_json_unique_keys(lines[i], value))
                return ValueError("event " + std::to_string(i) + ": " + *refused);
        } catch (const json::exception& e) {
            return ValueError("event " + std::to_string(i) + ": invalid JSON: " + json_error_text(e));
        }
        if (auto error = add(value, i)) return *error;
    }
    return events;
}

json to_json(const ReportedTopology& t) {
    json j = {{"dp", t.dp}, {"cp", t.cp}, {"ep", t.ep}};
    if (t.has_model_mesh()) {
        j["mp_replicate"] = *t.mp_replicate;
        j["mp_shard"] = *t.mp_shard;
    }
    return j;
}

json to_json(const Event& e) {
    json j = json::object();
    j["schema"] = event_schema;
    j["job"] = e.job;
    j["rank"] = e.rank;
    j["world_size"] = e.world_size;
    j["phase"] = to_string(e.phase);
    j["status"] = to_string(e.status);
    if (e.ts) j["ts"] = *e.ts;
    if (e.host) j["host"] = *e.host;
    if (e.pid) j["pid"] = *e.pid;
    if (e.local_rank) j["local_rank"] = *e.local_rank;
    if (e.device) j["device"] = *e.device;
    if (e.device_uuid) j["device_uuid"] = *e.device_uuid;
    if (e.topology) j["topology"] = to_json(*e.topology);
    if (e.mesh) j["mesh"] = {{"name", e.mesh->name}, {"dim_names", e.mesh->dim_names}, {"shape", e.mesh->shape}};
    if (!e.groups.empty()) j["groups"] = e.groups;
    if (!e.creation_index.empty()) j["creation_index"] = e.creation_index;
    if (e.error) j["error"] = {{"type", e.error->type}, {"message", e.error->message}};
    if (e.plan) j["plan"] = *e.plan;
    if (!e.communicators.empty()) {
        j["communicators"] = json::array();
        for (const auto& c : e.communicators) j["communicators"].push_back(to_json(c));
    }
    return j;
}

}  // namespace meshscope
