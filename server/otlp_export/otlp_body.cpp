#include "otlp_body.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <utility>

#include <nlohmann/json.hpp>

#include "collector/collector.h"
#include "meshscope/mesh/model_mesh.h"
#include "meshscope/mesh/parallel_state.h"
#include "meshscope/monitor/rank_state.h"

namespace meshscope::server {

namespace {
using nlohmann::json;

// The meshes FSDPTurbo and LlamaFactory build and their dims (docs/domain.md): a dim's name says its mesh.
std::string_view mesh_of(std::string_view dim) {
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 8> dims = {{
        {mp_replicate_dim, model_mesh_name},
        {mp_shard_dim, model_mesh_name},
        {"dp", "data"},
        {"cp", "data"},
        {ParallelState::edp, ParallelState::expert_mesh_name},
        {ParallelState::efsdp, ParallelState::expert_mesh_name},
        {ParallelState::ep, ParallelState::expert_mesh_name},
        {ParallelState::expert_cp, ParallelState::expert_mesh_name},
    }};
    for (const auto& [name, mesh] : dims)
        if (name == dim) return mesh;
    return {};
}

std::optional<std::int64_t> whole_number(std::string_view text) {
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
    return value;
}

std::vector<std::string_view> split(std::string_view id) {
    std::vector<std::string_view> parts;
    for (std::size_t start = 0;;) {
        const auto slash = id.find('/', start);
        parts.push_back(id.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
        if (slash == std::string_view::npos) return parts;
        start = slash + 1;
    }
}

std::string nanos(double seconds) {
    // OTLP's fixed64 times are strings in its JSON.
    return std::to_string(static_cast<std::uint64_t>(std::llround(std::max(seconds, 0.0) * 1e6)) * 1000);
}

json string_attribute(std::string_view key, std::string_view value) {
    return {{"key", key}, {"value", {{"stringValue", value}}}};
}

json int_attribute(std::string_view key, std::int64_t value) {
    return {{"key", key}, {"value", {{"intValue", std::to_string(value)}}}};
}

json resource(std::string_view job) {
    return {{"attributes", json::array({string_attribute("service.name", otlp_service_name),
                                        string_attribute(otlp_job_attribute, job)})}};
}

const json& scope() {
    static const json value = {{"name", "meshscope"}};
    return value;
}

std::string dump(const json& value) {
    // Messages quote what ranks and records wrote: bytes that are not UTF-8 are replaced, never a throw.
    return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

json gauge(std::string_view name, std::string_view description, std::string_view unit, json points) {
    return {
        {"name", name}, {"description", description}, {"unit", unit}, {"gauge", {{"dataPoints", std::move(points)}}}};
}
}  // namespace

FindingPlace finding_place(const Finding& finding) {
    const auto parts = split(finding.id);
    FindingPlace place;
    // kind/dim[/...] for these kinds only (topology_mismatch/ep/4 names an aspect of the topology, not a group);
    // the straggler that stragglers.cpp reads from the Flight Recorder is straggler/flight_recorder/dim.
    std::size_t at = 1;
    switch (finding.kind) {
        case FindingKind::group_disagreement:
        case FindingKind::creation_order_mismatch:
        case FindingKind::slow_group:
        case FindingKind::communicator_not_formed:
        case FindingKind::collective_stuck:
        case FindingKind::collective_mismatch: break;
        case FindingKind::straggler:
            if (parts.size() != 3 || parts[1] != "flight_recorder") return place;
            at = 2;
            break;
        default: return place;
    }
    if (parts.size() <= at) return place;
    const auto mesh = mesh_of(parts[at]);
    if (mesh.empty()) return place;
    place.mesh = mesh;
    place.dim = parts[at];
    // kind/dim/index names a group for these; group_disagreement's third part is a rank.
    const bool indexed =
        finding.kind == FindingKind::slow_group || finding.kind == FindingKind::communicator_not_formed ||
        finding.kind == FindingKind::collective_stuck || finding.kind == FindingKind::collective_mismatch;
    if (indexed && parts.size() == at + 2) place.group = whole_number(parts[at + 1]);
    return place;
}

OtlpSeverity otlp_severity(FindingKind kind, ChangeKind change) {
    if (change == ChangeKind::finding_removed) return {9, "INFO"};
    switch (kind) {
        case FindingKind::verdict: return {21, "FATAL"};
        case FindingKind::straggler:
        case FindingKind::stale_rank:
        case FindingKind::slow_group: return {13, "WARN"};
        default: return {17, "ERROR"};
    }
}

std::string otlp_log_record(const FindingChange& change) {
    const Finding& f = change.finding;
    const auto severity = otlp_severity(f.kind, change.change);
    const bool removed = change.change == ChangeKind::finding_removed;
    json attributes = json::array();
    attributes.push_back(string_attribute("id", f.id));
    attributes.push_back(string_attribute("change", removed                                      ? "removed"
                                                    : change.change == ChangeKind::finding_added ? "added"
                                                                                                 : "updated"));
    attributes.push_back(string_attribute("kind", to_string(f.kind)));
    if (!removed) {
        json ranks = json::array();
        for (std::size_t i = 0; i < f.ranks.size() && i < otlp_max_ranks; ++i)
            ranks.push_back({{"intValue", std::to_string(f.ranks[i])}});
        attributes.push_back({{"key", "ranks"}, {"value", {{"arrayValue", {{"values", std::move(ranks)}}}}}});
        attributes.push_back(int_attribute("rank_count", static_cast<std::int64_t>(f.ranks.size())));
        const auto place = finding_place(f);
        if (!place.mesh.empty()) attributes.push_back(string_attribute("mesh", place.mesh));
        if (!place.dim.empty()) attributes.push_back(string_attribute("dim", place.dim));
        if (place.group) attributes.push_back(int_attribute("group", *place.group));
        attributes.push_back(string_attribute("message", f.message));
        if (!f.fix.empty()) attributes.push_back(string_attribute("fix", f.fix));
        if (!f.sources.empty()) {
            json sources = json::array();
            for (const auto& source : f.sources) sources.push_back({{"stringValue", source}});
            attributes.push_back({{"key", "source"}, {"value", {{"arrayValue", {{"values", std::move(sources)}}}}}});
        }
    }
    const std::string time = nanos(change.time);
    const json record = {
        {"timeUnixNano", time},
        {"observedTimeUnixNano", time},
        {"severityNumber", severity.number},
        {"severityText", severity.text},
        {"eventName", otlp_finding_event},
        {"body", {{"stringValue", removed ? "resolved: " + f.id : f.message}}},
        {"attributes", std::move(attributes)},
    };
    return dump(record);
}

std::string otlp_logs_body(std::span<const JobRecord> records) {
    // Written by hand around the records' ready text: each record is serialized once, when it is queued.
    std::vector<std::string_view> jobs;
    for (const auto& r : records)
        if (std::find(jobs.begin(), jobs.end(), r.job) == jobs.end()) jobs.push_back(r.job);
    std::string body = R"({"resourceLogs":[)";
    for (std::size_t j = 0; j < jobs.size(); ++j) {
        if (j) body += ',';
        body += R"({"resource":)" + dump(resource(jobs[j])) + R"(,"scopeLogs":[{"scope":)" + dump(scope()) +
                R"(,"logRecords":[)";
        bool first = true;
        for (const auto& r : records) {
            if (r.job != jobs[j]) continue;
            if (!first) body += ',';
            first = false;
            body += r.record;
        }
        body += "]}]}";
    }
    body += "]}";
    return body;
}

namespace {
// The per-communicator gauges of one job (GET /metrics' series of the same names and labels).
void add_communicator_gauges(json& metrics, const JobCommunicators& job, const std::string& at) {
    json ranks = json::array(), states = json::array();
    for (const CommunicatorSeries& c : job.series) {
        const json attributes =
            json::array({string_attribute(job_label, job.job), string_attribute("comm_name", c.comm_name),
                         string_attribute("nranks", c.nranks), string_attribute("dim", c.dim),
                         string_attribute("group", c.group), string_attribute("source", c.source)});
        ranks.push_back({{"timeUnixNano", at}, {"asInt", std::to_string(c.ranks)}, {"attributes", attributes}});
        for (const std::string_view state : communicator_states) {
            json with_state = attributes;
            with_state.push_back(string_attribute("state", state));
            states.push_back(
                {{"timeUnixNano", at}, {"asInt", c.state == state ? "1" : "0"}, {"attributes", std::move(with_state)}});
        }
    }
    if (!job.series.empty()) {
        metrics.push_back(gauge(communicator_ranks_metric,
                                "Ranks of each communicator of a job that reported it or that the records name "
                                "(nranks: its size).",
                                "{rank}", std::move(ranks)));
        metrics.push_back(gauge(communicator_state_metric,
                                "State of each communicator of a job: 1 for the state it is in, 0 for the others.", "1",
                                std::move(states)));
    }
    metrics.push_back(gauge(communicators_omitted_metric,
                            "Communicators of a job past the " + std::to_string(communicator_series_cap) +
                                " written (formed ones, the others first).",
                            "{communicator}",
                            json::array({{{"timeUnixNano", at},
                                          {"asInt", std::to_string(job.omitted)},
                                          {"attributes", json::array({string_attribute(job_label, job.job)})}}})));
}
}  // namespace

std::string otlp_metrics_body(std::span<const JobSummary> jobs, double time,
                              std::span<const JobCommunicators> communicators) {
    const std::string at = nanos(time);
    json resources = json::array();
    for (const JobSummary& job : jobs) {
        json ranks = json::array(), findings = json::array();
        for (std::size_t i = 0; i < rank_state_kind_count; ++i)
            ranks.push_back(
                {{"timeUnixNano", at},
                 {"asInt", std::to_string(job.states[i])},
                 {"attributes", json::array({string_attribute(job_label, job.job),
                                             string_attribute("state", to_string(static_cast<RankStateKind>(i)))})}});
        for (std::size_t i = 0; i < finding_kind_count; ++i)
            findings.push_back(
                {{"timeUnixNano", at},
                 {"asInt", std::to_string(job.findings_by_kind[i])},
                 {"attributes", json::array({string_attribute(job_label, job.job),
                                             string_attribute("kind", to_string(all_finding_kinds[i]))})}});
        json metrics =
            json::array({gauge(ranks_metric, "Ranks of each job by state.", "{rank}", std::move(ranks)),
                         gauge(findings_metric, "Findings of each job by kind.", "{finding}", std::move(findings))});
        for (const JobCommunicators& c : communicators)
            if (c.job == job.job) add_communicator_gauges(metrics, c, at);
        resources.push_back({{"resource", resource(job.job)},
                             {"scopeMetrics", json::array({{{"scope", scope()}, {"metrics", std::move(metrics)}}})}});
    }
    return dump({{"resourceMetrics", std::move(resources)}});
}

}  // namespace meshscope::server
