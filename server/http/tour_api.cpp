#include "tour_api.h"

#include <charconv>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "collector/collector.h"
#include "meshscope/mesh/json_limits.h"
#include "meshscope/monitor/finding.h"
#include "meshscope/tour/tour.h"
#include "shipped_tours.h"

namespace meshscope::server {

namespace {
using nlohmann::json;

std::string dump(const json& value) {
    return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

HttpReply json_reply(const json& value) {
    HttpReply reply;
    reply.body = dump(value);
    return reply;
}

std::string in_quotes(std::string_view text) {
    return "\"" + std::string(text) + "\"";
}

// A shipped tour as core read it.
struct CatalogEntry {
    Tour tour;
};

// Parsed once; the test command parses every shipped tour, so a refused one here is a build that skipped it:
// it is left out rather than taking the collector down.
const std::vector<CatalogEntry>& catalog() {
    static const std::vector<CatalogEntry> entries = [] {
        std::vector<CatalogEntry> out;
        for (const ShippedTour& shipped : shipped_tours()) {
            auto tour = parse_tour(shipped.json);
            if (tour) out.push_back({std::move(tour).value()});
        }
        return out;
    }();
    return entries;
}

const CatalogEntry* find_tour(std::string_view name) {
    for (const auto& entry : catalog())
        if (entry.tour.name == name) return &entry;
    return nullptr;
}

HttpReply no_tour(std::string_view name) {
    return error_reply(404, "no tour named " + in_quotes(name));
}

HttpReply method_not_allowed(std::string_view allowed) {
    return error_reply(405, "use " + std::string(allowed), {{"Allow", std::string(allowed)}});
}

// K of .../steps/K (from 1), or the 404 that names the tour's steps.
std::optional<std::size_t> step_index(const Tour& tour, std::string_view text, HttpReply& refusal) {
    std::size_t k = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), k);
    const bool number = !text.empty() && text.size() <= 9 && error == std::errc() && end == text.data() + text.size();
    if (number && k >= 1 && k <= tour.steps.size()) return k - 1;
    refusal = error_reply(404, "tour " + in_quotes(tour.name) + " has no step " +
                                   (number ? std::string(text) : in_quotes(text)) + " (steps 1 to " +
                                   std::to_string(tour.steps.size()) + ")");
    return std::nullopt;
}

std::string tour_job_name(const Tour& tour) {
    return "tour-" + tour.name;
}

// The job a finding_rank check or a quoted finding reads: the body's "job", else the tour's own.
std::string context_job(const Tour& tour, const json& body) {
    if (body.is_object() && body.contains("job") && body["job"].is_string()) return body["job"].get<std::string>();
    return tour_job_name(tour);
}

json tour_list() {
    json tours = json::array();
    for (const auto& entry : catalog())
        tours.push_back({{"name", entry.tour.name},
                         {"title", entry.tour.title},
                         {"summary", entry.tour.summary},
                         {"steps", entry.tour.steps.size()}});
    return {{"tours", std::move(tours)}};
}

// Step k (from 1) of the resolved tour (core's to_json(tour): the state the views so far add up to) with the
// finding it quotes read from the tour's job when that has one of the kind (tour_finding), else core's example.
json resolved_step(const Tour& tour, const TourStep& step, std::size_t k, const TourContext& context) {
    json out = to_json(tour)["steps"][k - 1];
    out["tour"] = tour.name;
    out["step"] = k;
    if (out.contains("job")) out["job"]["job"] = tour_job_name(tour);
    const auto finding = tour_finding(step, context);
    out["finding"] = finding ? to_json(*finding) : json(nullptr);
    return out;
}

HttpReply answer_sandbox(const std::string& body) {
    static constexpr std::string_view shape = R"(the body must be {"calls": [{"op": "initialize", ...}, ...]})";
    bool too_deep = false;
    const json parsed = parse_json_bounded(body, &too_deep);
    if (too_deep) return error_reply(400, json_depth_text());
    if (!parsed.is_object() || !parsed.contains("calls") || !parsed["calls"].is_array()) return error_reply(400, shape);
    const auto calls = read_sandbox_calls(parsed);
    if (!calls) return error_reply(400, calls.error().message());
    return json_reply(to_json(*calls, run_sandbox(*calls)));
}
}  // namespace

TourApi::TourApi(Collector& collector, std::unique_ptr<TourJobRunner> jobs)
    : collector_(collector), jobs_(std::move(jobs)) {}

TourApi::~TourApi() = default;

bool TourApi::handles(const std::vector<std::string>& segments) noexcept {
    return segments.size() >= 3 && segments[0] == "api" && segments[1] == "v1" &&
           (segments[2] == "tours" || (segments[2] == "sandbox" && segments.size() == 3));
}

// long: the routes of /api/v1/tours and /api/v1/sandbox, one branch per route
void TourApi::handle(const std::string& method, const std::vector<std::string>& segments, std::string_view query,
                     const std::string& body, Reply reply) {
    (void)query;
    if (segments[2] == "sandbox") {
        if (method != "POST") return reply(method_not_allowed("POST"));
        return reply(answer_sandbox(body));
    }
    // api v1 tours [NAME [job | steps K (check | finding)]]
    if (segments.size() == 3) {
        if (method != "GET") return reply(method_not_allowed("GET"));
        return reply(json_reply(tour_list()));
    }
    const std::string& name = segments[3];
    const bool job_route = segments.size() == 5 && segments[4] == "job";
    const bool step_route = segments.size() >= 6 && segments.size() <= 7 && segments[4] == "steps" &&
                            (segments.size() == 6 || segments[6] == "check");
    if (segments.size() != 4 && !job_route && !step_route) return reply(error_reply(404, "no such endpoint"));
    const CatalogEntry* entry = find_tour(name);
    if (!entry) return reply(no_tour(name));
    const Tour& tour = entry->tour;

    if (segments.size() == 4) {
        if (method != "GET") return reply(method_not_allowed("GET"));
        return reply(json_reply(to_json(tour)));  // the resolved tour (docs/tours.md): the page carries nothing over
    }

    if (job_route) {
        if (method != "POST") return reply(method_not_allowed("POST"));
        // {"step": K} names the live step; without it, the tour's first step that runs a job.
        bool too_deep = false;
        const json parsed = body.empty() ? json::object() : parse_json_bounded(body, &too_deep);
        if (too_deep) return reply(error_reply(400, json_depth_text()));
        if (!parsed.is_object() || (parsed.contains("step") && !parsed["step"].is_number_unsigned()))
            return reply(error_reply(400, R"(the body must be empty or {"step": K}, K from 1)"));
        const TourStep* step = nullptr;
        if (parsed.contains("step")) {
            HttpReply refusal;
            const auto index = step_index(tour, std::to_string(parsed["step"].get<std::uint64_t>()), refusal);
            if (!index) return reply(std::move(refusal));
            step = &tour.steps[*index];
            if (!step->job)
                return reply(error_reply(
                    400, "step " + std::to_string(*index + 1) + " of tour " + in_quotes(tour.name) + " runs no job"));
        } else {
            for (const TourStep& s : tour.steps)
                if (s.job && !step) step = &s;
            if (!step) return reply(error_reply(400, "tour " + in_quotes(tour.name) + " runs no job"));
        }
        if (!jobs_) return reply(error_reply(404, no_tour_jobs_error));
        auto started = jobs_->start(*step->job, tour_job_name(tour));
        if (!started) return reply(error_reply(400, started.error().message()));
        return reply(json_reply(*started));
    }

    HttpReply refusal;
    const auto index = step_index(tour, segments[5], refusal);
    if (!index) return reply(std::move(refusal));
    const TourStep& step = tour.steps[*index];
    const std::string where = "step " + std::to_string(*index + 1) + " of tour " + in_quotes(tour.name);

    if (segments.size() == 6) {
        if (method != "GET") return reply(method_not_allowed("GET"));
        // The step as core resolved it, and the finding it quotes: from the tour's job when that has one of the
        // kind, else core's example.
        const std::string job = tour_job_name(tour);
        return collector_.query(
            [job](const Monitor& m) { return m.findings(job); },
            [&tour, &step, k = *index + 1, reply = std::move(reply)](std::vector<Finding> findings) {
                reply(json_reply(resolved_step(tour, step, k, TourContext{std::move(findings)})));
            });
    }

    if (method != "POST") return reply(method_not_allowed("POST"));
    if (!step.task) return reply(error_reply(400, where + " has no task to check"));
    bool too_deep = false;
    // Shared, never copied: the answer travels to the monitor thread and back with the judge.
    const auto parsed = std::make_shared<const json>(parse_json_bounded(body, &too_deep));
    if (too_deep) return reply(error_reply(400, json_depth_text()));
    if (!parsed->is_object() || !parsed->contains("answer") || !(*parsed)["answer"].is_object() ||
        (parsed->contains("job") && !(*parsed)["job"].is_string()))
        return reply(error_reply(400, R"(the body must be {"answer": {...}} with an optional "job": "<name>")"));
    const auto judge = [&step, parsed](const TourContext& context) -> HttpReply {
        const auto verdict = check_answer(step, (*parsed)["answer"], context);
        if (!verdict) return error_reply(400, verdict.error().message());
        return json_reply(to_json(*verdict));
    };
    if (step.task->check.value("kind", "") != "finding_rank") return reply(judge({}));
    // finding_rank judges against the job's findings, read on the monitor thread.
    const std::string job = context_job(tour, *parsed);
    collector_.query(
        [job](const Monitor& m) -> std::optional<std::vector<Finding>> {
            if (!m.job(job)) return std::nullopt;
            return m.findings(job);
        },
        [job, judge, reply = std::move(reply)](std::optional<std::vector<Finding>> findings) {
            if (!findings) return reply(error_reply(404, "no job named " + in_quotes(job)));
            reply(judge(TourContext{std::move(*findings)}));
        });
}

}  // namespace meshscope::server
