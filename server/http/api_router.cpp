#include "api_router.h"

#include <charconv>

#include <nlohmann/json.hpp>

#include "advise_api.h"
#include "browser_guard.h"
#include "collector/collector.h"
#include "job_kv.h"
#include "meshscope/mesh/json_limits.h"
#include "meshscope/monitor/seen_ranks.h"
#include "peers_api.h"
#include "plan_api.h"
#include "plan_worker.h"
#include "ranks_cache.h"
#include "static_assets.h"
#include "stream_protocol.h"
#include "tour_api.h"
#include "url_parts.h"

namespace meshscope::server {

namespace {
constexpr std::string_view api_events = "/api/v1/events";
constexpr std::string_view api_batches = "/api/v1/batches";
constexpr std::string_view api_stream = "/api/v1/stream";
constexpr std::string_view otlp_logs = "/v1/logs";

std::string dump(const nlohmann::json& value) {
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

HttpReply json_reply(std::string body) {
    HttpReply reply;
    reply.body = std::move(body);
    return reply;
}

// Whole numbers >= 0 only ("10", not "+10", "1e3" or "-1").
std::optional<std::size_t> whole_number(std::string_view text) {
    std::size_t value = 0;
    if (text.empty() || text.size() > 15) return std::nullopt;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

// OTLP/HTTP answers (docs/collector.md, "OTLP logs"): an ExportLogsServiceResponse, `{}` or with its partialSuccess
// (rejectedLogRecords an int64, hence a string in OTLP's JSON); a failure is a google.rpc.Status,
// {"code": <gRPC code>, "message": "<the same text /api/v1/events gives>"}.
HttpReply otlp_status(int status, std::string_view message,
                      std::vector<std::pair<std::string, std::string>> headers = {}) {
    const int code = status == 503 ? 14 : status == 405 || status == 415 ? 12 : status == 413 ? 8 : 3;
    HttpReply reply = json_reply(dump(nlohmann::json{{"code", code}, {"message", message}}));
    reply.status = status;
    reply.headers = std::move(headers);
    return reply;
}

HttpReply otlp_reply(const SubmitResult& result) {
    if (result.status != 200) {
        std::vector<std::pair<std::string, std::string>> headers;
        if (result.retry_after) headers.emplace_back("Retry-After", std::to_string(*result.retry_after));
        return otlp_status(result.status, result.error, std::move(headers));
    }
    if (!result.rejected) return json_reply("{}");
    return json_reply(dump(nlohmann::json{{"partialSuccess",
                                           {{"rejectedLogRecords", std::to_string(result.rejected->records)},
                                            {"errorMessage", result.rejected->error}}}}));
}

// The media type of a Content-Type, lower case, without parameters: "application/json; charset=utf-8" ->
// "application/json".
std::string media_type(std::string_view value) {
    value = value.substr(0, value.find(';'));
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    std::string out(value);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
}

HttpReply submit_reply(const SubmitResult& result) {
    HttpReply reply = json_reply(answer_body(result));
    reply.status = result.status;
    if (result.retry_after) reply.headers.emplace_back("Retry-After", std::to_string(*result.retry_after));
    return reply;
}
}  // namespace

HttpReply error_reply(int status, std::string_view message, std::vector<std::pair<std::string, std::string>> headers) {
    HttpReply reply;
    reply.status = status;
    reply.body = error_body(message);
    reply.headers = std::move(headers);
    return reply;
}

ApiRouter::ApiRouter(Collector& collector, HttpOptions options)
    : collector_(collector),
      options_(std::move(options)),
      ranks_cache_(std::make_shared<RanksCache>()),
      plan_worker_(std::make_unique<PlanWorker>(16, options_.cluster_profile)),
      kv_(std::make_unique<JobKv>()),
      tours_(std::make_unique<TourApi>(collector, options_.tour_jobs ? options_.tour_jobs(collector) : nullptr)) {}

ApiRouter::~ApiRouter() = default;

bool ApiRouter::authorized(const HttpRequest& request, std::string_view path, std::string_view query) const {
    if (options_.token.empty()) return true;
    if (request.authorization == "Bearer " + options_.token) return true;
    // Browsers cannot set headers on a WebSocket: the stream also takes ?token=.
    return path == api_stream && query_value(query, "token") == options_.token;
}

void ApiRouter::handle(HttpRequest request, Reply reply) {
    // Without a token, web pages of other sites must not use the collector (browser_guard.h).
    if (options_.token.empty())
        if (auto refused = net::browser_refusal(request.host, request.origin, options_.address, options_.allowed_hosts))
            return reply(error_reply(403, *refused));
    const UrlParts url = split_target(request.target);
    const std::string& path = url.path;
    // The web dashboard's files hold no data: served without a token, so a browser can load the page that
    // then asks for the token (docs/collector.md, "The web dashboard").
    if (is_page_path(path)) {
        if (request.method != "GET") return reply(error_reply(405, "use GET", {{"Allow", "GET"}}));
        return reply(page_reply(path));
    }
    // A browser's WebSocket carries no Authorization (it cannot set headers and must not put the token in a
    // URL): it offers the token as the subprotocol meshscope.bearer.<base64url> (judged here; a wrong one is
    // upgraded and refused with 1008, as a browser sees no HTTP status), or else the upgrade is accepted and
    // its first message must be {"type":"auth","token":...} (stream_session.cpp).
    const bool browser_stream = !options_.token.empty() && path == api_stream && request.upgrade_websocket &&
                                request.method == "GET" && request.authorization.empty() &&
                                !query_value(url.query, "token");
    const SubprotocolOffer offer = path == api_stream && request.upgrade_websocket
                                       ? parse_subprotocols(request.websocket_protocols)
                                       : SubprotocolOffer{};
    const bool bearer_offered = browser_stream && offer.bearer;
    const bool authenticate_first = browser_stream && !offer.bearer;
    if (!browser_stream && !authorized(request, path, url.query))
        return reply(error_reply(401, "missing or wrong bearer token", {{"WWW-Authenticate", "Bearer"}}));
    const bool post = request.method == "POST";
    if (url.segments.size() == 6 && url.segments[0] == "api" && url.segments[1] == "v1" && url.segments[2] == "jobs" &&
        url.segments[4] == "kv")
        return reply(kv_->answer(request.method, url.segments[3], url.segments[5], std::move(request.body)));
    if (TourApi::handles(url.segments))
        return tours_->handle(request.method, url.segments, url.query, request.body, std::move(reply));
    if (path == api_events || path == api_batches) {
        if (!post) return reply(error_reply(405, "use POST", {{"Allow", "POST"}}));
        if (path == api_events) return answer_events(std::move(request.body), std::move(reply));
        return answer_batches(request.body, std::move(reply));
    }
    if (path == otlp_logs) return answer_otlp(std::move(request), std::move(reply));
    if (url.segments.size() == 5 && url.segments[0] == "api" && url.segments[1] == "v1" && url.segments[2] == "jobs" &&
        url.segments[4] == "records") {
        if (!post) return reply(error_reply(405, "use POST", {{"Allow", "POST"}}));
        if (!valid_job_name(url.segments[3]))
            return reply(error_reply(400, "the job name must be 1 to " + std::to_string(EventLimits{}.max_job_length) +
                                              " characters of A-Z, a-z, 0-9 and ._-:@+="));
        return collector_.submit_records(
            url.segments[3], std::move(request.body),
            [reply = std::move(reply)](SubmitResult result) { reply(submit_reply(result)); });
    }
    if (request.method != "GET") return reply(error_reply(405, "use GET", {{"Allow", "GET"}}));
    if (path == api_stream) {
        if (!request.upgrade_websocket)
            return reply(error_reply(400, "/api/v1/stream is a WebSocket: send an upgrade request"));
        if (offer.bearer && !offer.v1)
            return reply(error_reply(400, "offer the subprotocol meshscope.v1 beside meshscope.bearer.<token>"));
        HttpReply accept;
        accept.accept_stream = true;
        accept.stream.authenticate_first = authenticate_first;
        accept.stream.refuse = bearer_offered && !(offer.token && tokens_equal(*offer.token, options_.token));
        if (offer.v1) accept.stream.protocol = stream_subprotocol;
        accept.stream.since = query_value(url.query, "since");
        accept.stream.epoch = query_value(url.query, "epoch").value_or("");
        return reply(std::move(accept));
    }
    if (path == "/metrics") {
        HttpReply metrics;
        metrics.body = collector_.metrics_text();
        metrics.content_type = "text/plain; version=0.0.4";
        return reply(std::move(metrics));
    }
    if (path == "/api/v1/health") return reply(json_reply(R"({"status":"ok"})"));
    if (is_plan_path(path) || is_peers_path(path) || is_advise_path(path))
        return plan_worker_->submit(path, url.query, std::move(reply));
    if (path == "/api/v1/jobs")
        return collector_.query([](const Monitor& m) { return dump(m.jobs_json()); },
                                [reply = std::move(reply)](std::string body) { reply(json_reply(std::move(body))); });
    if (url.segments.size() >= 4 && url.segments[0] == "api" && url.segments[1] == "v1" && url.segments[2] == "jobs")
        return answer_job(url.segments, url.query, std::move(reply));
    reply(error_reply(404, "no such endpoint: " + path));
}

void ApiRouter::answer_job(const std::vector<std::string>& segments, std::string_view query, Reply reply) {
    // segments: api v1 jobs {job} [ranks [{rank}] | findings | communicators]
    const std::string job = segments[3];
    const std::string what = segments.size() >= 5 ? segments[4] : std::string();
    const bool one_rank = segments.size() == 6 && what == "ranks";
    if (job.empty() || segments.size() > 6 || (segments.size() == 6 && !one_rank) ||
        (segments.size() == 5 && what != "ranks" && what != "findings" && what != "communicators"))
        return reply(error_reply(404, "no such endpoint"));
    const auto no_job = [job] { return error_reply(404, "no job named \"" + job + "\""); };

    if (one_rank) {
        const auto rank = whole_number(segments[5]);
        if (!rank) return reply(error_reply(400, "rank must be a whole number >= 0, got \"" + segments[5] + "\""));
        return collector_.query(
            [job, rank = static_cast<std::int64_t>(*rank)](const Monitor& m) -> HttpReply {
                if (!m.job(job)) return error_reply(404, "no job named \"" + job + "\"");
                const auto state = m.rank(job, rank);
                if (!state) return error_reply(404, "no rank " + std::to_string(rank) + " in job \"" + job + "\"");
                return json_reply(dump(to_json(*state)));
            },
            std::move(reply));
    }
    if (what == "ranks") {
        std::size_t offset = 0;
        std::optional<std::size_t> limit;
        if (const auto text = query_value(query, "offset")) {
            const auto value = whole_number(*text);
            if (!value) return reply(error_reply(400, "offset must be a whole number >= 0, got \"" + *text + "\""));
            offset = *value;
        }
        if (const auto text = query_value(query, "limit")) {
            limit = whole_number(*text);
            if (!limit) return reply(error_reply(400, "limit must be a whole number >= 0, got \"" + *text + "\""));
        }
        return collector_.query(
            [cache = ranks_cache_, job, offset, limit](const Monitor& m) { return cache->page(m, job, offset, limit); },
            [reply = std::move(reply), no_job](std::optional<std::string> body) {
                reply(body ? json_reply(std::move(*body)) : no_job());
            });
    }
    collector_.query(
        [job, what](const Monitor& m) -> std::optional<std::string> {
            const auto answer = what == "findings"        ? m.findings_json(job)
                                : what == "communicators" ? m.communicators_json(job)
                                                          : m.job_json(job);
            if (!answer) return std::nullopt;
            return dump(*answer);
        },
        [reply = std::move(reply), no_job](std::optional<std::string> body) {
            reply(body ? json_reply(std::move(*body)) : no_job());
        });
}

void ApiRouter::answer_events(std::string body, Reply reply) {
    collector_.submit(std::move(body),
                      [reply = std::move(reply)](SubmitResult result) { reply(submit_reply(result)); });
}

void ApiRouter::answer_otlp(HttpRequest request, Reply reply) {
    if (request.method != "POST") return reply(otlp_status(405, "use POST", {{"Allow", "POST"}}));
    const std::string type = media_type(request.content_type);
    if (type == "application/x-protobuf")
        return reply(otlp_status(415,
                                 "OTLP/HTTP protobuf is not supported: send OTLP/HTTP JSON with Content-Type: "
                                 "application/json (the OpenTelemetry Collector's otlphttp exporter: encoding: "
                                 "json)"));
    if (type != "application/json")
        return reply(otlp_status(
            415, "Content-Type must be application/json (OTLP/HTTP JSON), got " +
                     (request.content_type.empty() ? std::string("none") : "\"" + request.content_type + "\"")));
    if (const std::string coding = media_type(request.content_encoding); !coding.empty() && coding != "identity")
        return reply(otlp_status(415, "Content-Encoding \"" + request.content_encoding +
                                          "\" is not supported: send the body uncompressed (the otlphttp "
                                          "exporter: compression: none)"));
    collector_.submit_otlp(std::move(request.body),
                           [reply = std::move(reply)](SubmitResult result) { reply(otlp_reply(result)); });
}

void ApiRouter::answer_batches(const std::string& body, Reply reply) {
    static constexpr std::string_view shape = R"(the body must be {"bodies": ["<request body>", ...]})";
    bool too_deep = false;
    const auto parsed = parse_json_bounded(body, &too_deep);
    if (too_deep) return reply(error_reply(400, json_depth_text()));
    if (!parsed.is_object() || !parsed.contains("bodies") || !parsed["bodies"].is_array())
        return reply(error_reply(400, shape));
    std::vector<std::string> bodies;
    bodies.reserve(parsed["bodies"].size());
    for (const auto& item : parsed["bodies"]) {
        if (!item.is_string()) return reply(error_reply(400, shape));
        bodies.push_back(item.get<std::string>());
    }
    // A relay's proof of life for the ranks whose events it held back, and which of them wait with lifecycle
    // events (meshscope/seen_ranks.h).
    SeenRanks named[2];
    for (int i = 0; i < 2; ++i) {
        const char* field = i == 0 ? "seen" : "held";
        if (const auto it = parsed.find(field); it != parsed.end()) {
            auto ranks = seen_ranks_from_json(*it, field);
            if (!ranks) return reply(error_reply(400, ranks.error().message()));
            named[i] = std::move(ranks).value();
        }
    }
    collector_.seen(std::move(named[0]), std::move(named[1]));
    collector_.submit_bodies(std::move(bodies), [reply = std::move(reply)](std::vector<SubmitResult> results) {
        auto list = nlohmann::json::array();
        for (const SubmitResult& r : results) list.push_back(to_json(r));  // the entry of one body: its BodyResult
        reply(json_reply(dump(nlohmann::json{{"results", std::move(list)}})));
    });
}

}  // namespace meshscope::server
