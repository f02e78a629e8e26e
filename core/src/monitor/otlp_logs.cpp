// OTLP/HTTP JSON logs read as meshscope.event/1 events (meshscope/monitor/otlp_logs.h): the request's shape is
// checked here, each log record becomes the JSON object an event would be, and event_from_json judges it.
#include "meshscope/monitor/otlp_logs.h"

#include <array>
#include <charconv>
#include <limits>
#include <optional>

#include "monitor/event_fields.h"

namespace meshscope {

namespace {
using nlohmann::json;

constexpr std::string_view request_shape =
    R"(the body must be an OTLP ExportLogsServiceRequest: {"resourceLogs": [...]})";
constexpr std::array<std::string_view, 7> any_value_kinds = {"stringValue", "boolValue",   "intValue",  "doubleValue",
                                                             "arrayValue",  "kvlistValue", "bytesValue"};

struct ShapeError {
    std::string message;
};

[[noreturn]] void refuse(const std::string& field, std::string_view what) {
    throw ShapeError{"field \"" + field + "\" " + std::string(what)};
}

// A message field: absent and null are the default (proto3 JSON).
const json* member(const json& object, std::string_view name) {
    const auto it = object.find(name);
    return it == object.end() || it->is_null() ? nullptr : &*it;
}

// A repeated field: absent or null is empty; else an array.
const json* repeated(const json& object, std::string_view name, const std::string& field) {
    const json* value = member(object, name);
    if (value && !value->is_array()) refuse(field, "must be an array");
    return value;
}

// int64 and uint64 travel as decimal strings in OTLP's JSON (numbers are accepted too).
std::optional<std::int64_t> int64_of(const json& value) {
    if (value.is_number_integer() && !value.is_number_unsigned()) return value.get<std::int64_t>();
    if (value.is_number_unsigned()) {
        const auto n = value.get<std::uint64_t>();
        if (n > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
        return static_cast<std::int64_t>(n);
    }
    if (!value.is_string()) return std::nullopt;
    const auto& text = value.get_ref<const std::string&>();
    std::int64_t n = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return n;
}

std::optional<std::uint64_t> uint64_of(const json& value) {
    if (value.is_number_unsigned()) return value.get<std::uint64_t>();
    if (value.is_number_integer()) {
        const auto n = value.get<std::int64_t>();
        return n < 0 ? std::nullopt : std::optional<std::uint64_t>(static_cast<std::uint64_t>(n));
    }
    if (!value.is_string()) return std::nullopt;
    const auto& text = value.get_ref<const std::string&>();
    std::uint64_t n = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return n;
}

json any_value(const json& value, const std::string& field);

// [{"key": string, "value": AnyValue}, ...] (attributes, a kvlistValue's values) -> fn(key, value as JSON).
template <typename F>
void key_values(const json* list, const std::string& field, F&& fn) {
    if (!list) return;
    for (std::size_t i = 0; i < list->size(); ++i) {
        const json& kv = (*list)[i];
        const std::string name = field + "[" + std::to_string(i) + "]";
        const json* key = kv.is_object() ? member(kv, "key") : nullptr;
        if (!key || !key->is_string()) refuse(name, R"(must be {"key": string, "value": AnyValue})");
        const json* v = member(kv, "value");
        fn(key->get_ref<const std::string&>(), v ? any_value(*v, name + ".value") : json());
    }
}

// An AnyValue as the JSON value it carries; an empty AnyValue is null (absent).
json any_value(const json& value, const std::string& field) {
    if (!value.is_object())
        refuse(field,
               "must be an AnyValue: an object with one of stringValue, boolValue, intValue, doubleValue, "
               "arrayValue, kvlistValue, bytesValue");
    const json* found = nullptr;
    std::string_view kind;
    for (const std::string_view k : any_value_kinds) {
        const json* v = member(value, k);
        if (!v) continue;
        if (found)
            refuse(field,
                   "must be an AnyValue with one value: it has both " + std::string(kind) + " and " + std::string(k));
        found = v;
        kind = k;
    }
    if (!found) return json();
    const std::string name = field + "." + std::string(kind);
    if (kind == "stringValue" || kind == "bytesValue") {
        if (!found->is_string()) refuse(name, "must be a string");
        return *found;
    }
    if (kind == "boolValue") {
        if (!found->is_boolean()) refuse(name, "must be true or false");
        return *found;
    }
    if (kind == "intValue") {
        const auto n = int64_of(*found);
        if (!n) refuse(name, "must be a 64-bit integer: a string of digits or a number");
        return *n;
    }
    if (kind == "doubleValue") {
        if (!found->is_number()) refuse(name, "must be a number");
        return *found;
    }
    if (!found->is_object()) refuse(name, R"(must be {"values": [...]})");
    const json* values = repeated(*found, "values", name + ".values");
    if (kind == "arrayValue") {
        json out = json::array();
        if (values)
            for (std::size_t i = 0; i < values->size(); ++i)
                out.push_back(any_value((*values)[i], name + ".values[" + std::to_string(i) + "]"));
        return out;
    }
    json out = json::object();
    key_values(values, name + ".values", [&](const std::string& key, json v) { out[key] = std::move(v); });
    return out;
}

// An attribute's place in the event: its field, or for exception.* a field of "error"; empty: not the event's.
void put_attribute(json& event, const std::string& key, json value) {
    if (value.is_null()) return;
    constexpr std::string_view prefix = "meshscope.";
    if (key == "host.name") {
        event["host"] = std::move(value);
    } else if (key == "process.pid") {
        event["pid"] = std::move(value);
    } else if (key == "exception.type" || key == "exception.message") {
        json& error = event["error"];
        if (error.is_null()) error = json::object();
        if (error.is_object()) error[key.substr(std::string_view("exception.").size())] = std::move(value);
    } else if (key.size() > prefix.size() && key.compare(0, prefix.size(), prefix) == 0) {
        event[key.substr(prefix.size())] = std::move(value);
    }
}

double seconds_of(std::uint64_t nanos) {
    return static_cast<double>(nanos / 1'000'000'000) + static_cast<double>(nanos % 1'000'000'000) / 1e9;
}
}  // namespace

Expected<OtlpLogs> parse_otlp_logs(std::string_view body, const EventLimits& limits) {
    json request;
    try {
        if (auto refused = event_fields::parse_unique_keys(body, request)) return ValueError(*refused);
    } catch (const json::exception& e) {
        return ValueError("invalid JSON: " + event_fields::json_error_text(e));
    }
    if (!request.is_object()) return ValueError(std::string(request_shape));
    OtlpLogs logs;
    try {
        // The shape first, and the number of records, before any record costs more.
        const json* resources = repeated(request, "resourceLogs", "resourceLogs");
        if (!resources) return logs;
        std::int64_t records = 0;
        for (std::size_t r = 0; r < resources->size(); ++r) {
            const json& resource_logs = (*resources)[r];
            const std::string rname = "resourceLogs[" + std::to_string(r) + "]";
            if (!resource_logs.is_object()) refuse(rname, "must be an object");
            const json* scopes = repeated(resource_logs, "scopeLogs", rname + ".scopeLogs");
            if (!scopes) continue;
            for (std::size_t s = 0; s < scopes->size(); ++s) {
                const std::string sname = rname + ".scopeLogs[" + std::to_string(s) + "]";
                if (!(*scopes)[s].is_object()) refuse(sname, "must be an object");
                const json* list = repeated((*scopes)[s], "logRecords", sname + ".logRecords");
                records += list ? static_cast<std::int64_t>(list->size()) : 0;
            }
        }
        if (records > static_cast<std::int64_t>(limits.max_events))
            return ValueError("the body holds more than " + std::to_string(limits.max_events) + " log records");
        logs.records = records;
        logs.events.reserve(static_cast<std::size_t>(records));

        std::int64_t index = 0;
        for (std::size_t r = 0; r < resources->size(); ++r) {
            const json& resource_logs = (*resources)[r];
            const std::string rname = "resourceLogs[" + std::to_string(r) + "]";
            json from_resource = json::object();
            if (const json* resource = member(resource_logs, "resource")) {
                if (!resource->is_object()) refuse(rname + ".resource", "must be an object");
                const std::string aname = rname + ".resource.attributes";
                key_values(repeated(*resource, "attributes", aname), aname,
                           [&](const std::string& key, json v) { put_attribute(from_resource, key, std::move(v)); });
            }
            const json* scopes = member(resource_logs, "scopeLogs");
            if (!scopes) continue;
            for (std::size_t s = 0; s < scopes->size(); ++s) {
                const std::string sname = rname + ".scopeLogs[" + std::to_string(s) + "]";
                const json* list = member((*scopes)[s], "logRecords");
                if (!list) continue;
                for (std::size_t l = 0; l < list->size(); ++l, ++index) {
                    const json& record = (*list)[l];
                    const std::string lname = sname + ".logRecords[" + std::to_string(l) + "]";
                    if (!record.is_object()) refuse(lname, "must be an object");
                    json event = from_resource;
                    const std::string aname = lname + ".attributes";
                    key_values(repeated(record, "attributes", aname), aname,
                               [&](const std::string& key, json v) { put_attribute(event, key, std::move(v)); });
                    if (const json* time = member(record, "timeUnixNano")) {
                        const auto nanos = uint64_of(*time);
                        if (!nanos)
                            refuse(lname + ".timeUnixNano",
                                   "must be an unsigned 64-bit integer: a string of digits or a number");
                        if (*nanos != 0 && !event.contains("ts")) event["ts"] = seconds_of(*nanos);
                    }
                    auto e = event_from_json(event, limits);
                    if (!e) {
                        if (logs.rejected++ == 0)
                            logs.rejected_error = "event " + std::to_string(index) + ": " + e.error().message();
                        continue;
                    }
                    logs.events.push_back(std::move(e).value());
                }
            }
        }
    } catch (const ShapeError& e) {
        return ValueError(e.message);
    }
    return logs;
}

}  // namespace meshscope
