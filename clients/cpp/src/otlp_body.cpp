#include "meshscope/client/otlp_body.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <utility>

#include <nlohmann/json.hpp>

namespace meshscope::client {

namespace {
using nlohmann::json;

// The event fields that are the rank's identity: its log records' resource.
constexpr std::array<std::pair<std::string_view, std::string_view>, 6> resource_fields = {
    {{"job", "meshscope.job"},
     {"rank", "meshscope.rank"},
     {"world_size", "meshscope.world_size"},
     {"local_rank", "meshscope.local_rank"},
     {"host", "host.name"},
     {"pid", "process.pid"}}};

bool is_resource_field(const std::string& key) {
    for (const auto& [field, attribute] : resource_fields)
        if (key == field) return true;
    return false;
}

// int64 as a decimal string, as OTLP's JSON writes it.
json any_value(const json& value) {
    switch (value.type()) {
        case json::value_t::boolean: return {{"boolValue", value}};
        case json::value_t::number_integer: return {{"intValue", std::to_string(value.get<std::int64_t>())}};
        case json::value_t::number_unsigned: return {{"intValue", std::to_string(value.get<std::uint64_t>())}};
        case json::value_t::number_float: return {{"doubleValue", value}};
        case json::value_t::string: return {{"stringValue", value}};
        case json::value_t::object: {
            json values = json::array();
            for (const auto& [key, v] : value.items()) values.push_back({{"key", key}, {"value", any_value(v)}});
            return {{"kvlistValue", {{"values", std::move(values)}}}};
        }
        case json::value_t::array: {
            json values = json::array();
            for (const auto& v : value) values.push_back(any_value(v));
            return {{"arrayValue", {{"values", std::move(values)}}}};
        }
        default: return json::object();
    }
}

// Seconds as nanoseconds (a decimal string), exact enough that the collector reads back the same double.
std::string time_unix_nano(double ts) {
    const double whole = std::floor(ts);
    const auto nanos = static_cast<std::uint64_t>(whole) * 1'000'000'000u +
                       static_cast<std::uint64_t>(std::llround((ts - whole) * 1e9));
    return std::to_string(nanos);
}

json log_record(const json& event) {
    json attributes = json::array();
    std::string ts;
    for (const auto& [key, value] : event.items()) {
        if (is_resource_field(key) || value.is_null()) continue;
        if (key == "ts" && value.is_number() && !value.is_boolean() && value.get<double>() >= 0 &&
            value.get<double>() < 1e11) {
            ts = time_unix_nano(value.get<double>());
            continue;
        }
        if (key == "error" && value.is_object()) {
            bool plain = true;
            for (const auto& [k, v] : value.items()) plain = plain && (k == "type" || k == "message");
            if (plain) {
                for (const auto& [k, v] : value.items())
                    if (!v.is_null()) attributes.push_back({{"key", "exception." + k}, {"value", any_value(v)}});
                continue;
            }
        }
        attributes.push_back({{"key", "meshscope." + key}, {"value", any_value(value)}});
    }
    const auto text = [&](const char* name) {
        const auto it = event.find(name);
        return it != event.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    const bool failed = text("status") == "failed" || text("phase") == "error";
    json record = {{"severityNumber", failed ? 17 : 9},
                   {"severityText", failed ? "ERROR" : "INFO"},
                   {"body", {{"stringValue", text("phase") + " " + text("status")}}},
                   {"attributes", std::move(attributes)}};
    if (!ts.empty()) record["timeUnixNano"] = ts;
    return record;
}
}  // namespace

OtlpBody otlp_logs_body(const std::vector<std::string>& events) {
    OtlpBody out;
    // One resourceLogs per identity, in the order they first appear (a batch is one rank's: usually one).
    std::vector<std::pair<json, json>> resources;  // (resource attributes, log records)
    for (const std::string& text : events) {
        json event = json::parse(text, nullptr, false);
        if (!event.is_object()) {
            ++out.invalid;
            continue;
        }
        json identity = json::array({{{"key", "service.name"}, {"value", {{"stringValue", "meshscope-client"}}}}});
        for (const auto& [field, attribute] : resource_fields) {
            const auto it = event.find(field);
            if (it != event.end() && !it->is_null())
                identity.push_back({{"key", attribute}, {"value", any_value(*it)}});
        }
        auto found =
            std::find_if(resources.begin(), resources.end(), [&](const auto& r) { return r.first == identity; });
        if (found == resources.end()) {
            resources.emplace_back(std::move(identity), json::array());
            found = std::prev(resources.end());
        }
        found->second.push_back(log_record(event));
    }
    json list = json::array();
    for (auto& [identity, records] : resources)
        list.push_back({{"resource", {{"attributes", std::move(identity)}}},
                        {"scopeLogs", json::array({{{"scope", {{"name", "meshscope_client"}}},
                                                    {"logRecords", std::move(records)}}})}});
    out.json = json{{"resourceLogs", std::move(list)}}.dump(-1, ' ', false, json::error_handler_t::replace);
    return out;
}

std::int64_t otlp_rejected(std::string_view answer, std::string* message) {
    const json parsed = json::parse(answer, nullptr, false);
    if (!parsed.is_object()) return 0;
    const auto partial = parsed.find("partialSuccess");
    if (partial == parsed.end() || !partial->is_object()) return 0;
    std::int64_t rejected = 0;
    if (const auto n = partial->find("rejectedLogRecords"); n != partial->end()) {
        if (n->is_number_integer()) rejected = n->get<std::int64_t>();
        if (n->is_string()) {
            try {
                rejected = std::stoll(n->get<std::string>());
            } catch (...) {
                rejected = 0;
            }
        }
    }
    if (message)
        if (const auto m = partial->find("errorMessage"); m != partial->end() && m->is_string()) *message = *m;
    return std::max<std::int64_t>(rejected, 0);
}

}  // namespace meshscope::client
