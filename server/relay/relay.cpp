// The relay's network side: its handler of the HTTP engine (net/http_engine.h: the rank connections, with the
// collector's limits and error texts), the batch queue and the kept-alive upstream connections. Everything here
// runs on the relay's one network thread, so the queue and the counters of waiting bodies need no lock.
#include "relay.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <deque>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "admission.h"
#include "batch_codec.h"
#include "browser_guard.h"
#include "http_client.h"
#include "http_engine.h"
#include "io_thread.h"
#include "meshscope/mesh/json_limits.h"
#include "seen_digest.h"

namespace meshscope::relay {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;

namespace {
constexpr std::string_view api_events = "/api/v1/events";
constexpr std::string_view api_batches = "/api/v1/batches";
constexpr std::string_view api_health = "/api/v1/health";
constexpr std::string_view relay_records_error =
    "a relay forwards events only: give meshscope import the collector's URL as --target";
constexpr std::string_view api_relay = "/api/v1/relay";  // the relay's counters (RelayStats), for operators and tests
constexpr int unreachable_retry_after_s = 2;
constexpr int busy_retry_after_s = 1;
constexpr std::size_t upstream_answer_limit = 64u << 20;
// Sent by the reporters (and by a relay to its upstream): seconds the sender waits for this answer.
constexpr std::string_view rank_timeout_header = "MeshScope-Timeout";
constexpr std::string_view wait_refusal = "relay busy: events would wait longer than the rank's timeout";
constexpr std::string_view expired_refusal = "relay busy: not sent before the rank's timeout";
constexpr std::string_view heartbeat_shed_refusal = "relay busy: heartbeat shed (the rank is still seen)";
constexpr int heartbeat_retry_after_s = 5;           // as the collector's own heartbeat shedding: the next one is due
constexpr std::size_t seen_ranks_per_batch = 16384;  // about 100 KB of "seen" in one batch at most

// The largest POST /api/v1/batches body taken from a lower relay: its batch_bytes of bodies (or one body of
// max_body_bytes), JSON-escaped (at most twice as long).
std::int64_t batch_body_limit(const RelayOptions& o) {
    return 2 * std::max(o.max_body_bytes, o.batch_bytes);
}

// One distinct body waiting for its result (queued or in flight), and whom to tell (ranks, or slots of a
// batch that came from a relay below). A rank that gave up and sent the same bytes again while the first copy
// still waits joins it as a second waiter: the body goes upstream once and both copies get its result.
struct Item {
    std::string body;
    std::vector<std::function<void(const BodyResult&)>> waiters;
    std::chrono::steady_clock::time_point deadline;  // answered 503 unsent after this (the latest waiter's)
    bool keyed = false;                              // in Impl::by_body
    bool counted = false;                            // in Impl::waiting_bodies / waiting_bytes
};
using ItemPtr = std::shared_ptr<Item>;

struct Batch {
    std::vector<ItemPtr> items;
    std::string request_body;
    std::int64_t bytes = 0;
    std::chrono::steady_clock::time_point sent;
    bool retried = false;    // sent once more on a fresh connection after a reused one failed
    SeenDigest::Named seen;  // the digest this batch carries ("seen" and "held"), if any
};
}  // namespace

class Upstream;

struct Relay::Impl {
    explicit Impl(RelayOptions o)
        : options(std::move(o)), admission(options.max_in_flight, options.max_retry_after_s) {}
    ~Impl();

    // The HTTP engine's handler (net/http_engine.h): the ranks' requests, on the network thread.
    using Reply = meshscope::net::Answer;
    struct Connection {
        Senders held_senders;  // the ranks of this connection's last body held back here
    };
    [[nodiscard]] static Reply error_reply(int status, std::string_view message, meshscope::net::Headers headers = {});
    void handle(meshscope::net::Request& request, meshscope::net::Respond<Reply> respond, Connection& connection);
    // A rank's body is refused past max_body_bytes from its Content-Length, before it is read; a lower relay's
    // batch may be larger.
    [[nodiscard]] std::uint64_t body_limit(const meshscope::net::Request& header) const;
    [[nodiscard]] static meshscope::net::EngineSettings engine_settings(const RelayOptions& o);

    // Called on the network thread.
    // `timeout_s`: how long the sender waits for this answer (its MeshScope-Timeout, else --rank-timeout).
    // `senders`: the rank connection's cache of the ranks it last had held back (see held_back).
    void submit(std::string body, double timeout_s, std::function<void(const BodyResult&)> done,
                Senders* senders = nullptr);
    void submit_batch(std::vector<std::string> bodies, double timeout_s, std::function<void(std::string)> finish);
    void send_due_batches();
    void send(Batch batch);
    void finished(Batch batch, int status, const std::string& body, std::optional<int> retry_after,
                  const std::string& failure);
    void deliver(Batch& batch, const std::function<BodyResult(std::size_t)>& result_of);
    void answer(Item& item, const BodyResult& result);
    void expire_queued();
    void arm_expiry();
    void arm_seen_digest();
    // A body answered here with `result` (503 + retry_after), not by the upstream: its ranks are alive and
    // vouched for until they are due back, `held` when lifecycle events of theirs wait in their reporters. The
    // ranks go to `senders` too (a rank connection's cache: the rank is forgotten when it is taken again).
    void held_back(std::string_view body, const BodyResult& result, double timeout_s, bool held,
                   Senders* senders = nullptr);
    // Vouches for `ranks` until they are due back: after `retry_after_s`, which the reporters stretch by up to
    // 1.5, and one more timeout.
    void vouch(const Senders& ranks, int retry_after_s, double timeout_s, bool held);
    void taken_again(Senders* senders);
    [[nodiscard]] double expected_wait() const;
    [[nodiscard]] RelayStats stats() const;
    [[nodiscard]] BodyResult busy_result(const std::string& message, double wait);
    void begin_stop();
    void watch_stop(std::chrono::steady_clock::time_point deadline);
    [[nodiscard]] bool over_bounds(std::int64_t bodies, std::int64_t bytes) const {
        return waiting_bodies + bodies > options.max_waiting_bodies ||
               waiting_bytes + bytes > options.max_waiting_bytes;
    }

    RelayOptions options;
    std::uint16_t port = 0;

    // Read from any thread (stats()).
    std::atomic<std::int64_t> bodies_received{0}, batches_sent{0}, bodies_refused_busy{0}, upstream_failures{0};
    std::atomic<std::int64_t> bodies_refused_wait{0}, bodies_expired{0}, bodies_deduplicated{0}, heartbeats_shed{0},
        seen_ranks_forwarded{0};
    std::atomic<std::int64_t> waiting_bodies_seen{0};

    // Network thread only.
    Admission admission;
    std::deque<ItemPtr> queue;
    std::unordered_map<std::string_view, Item*> by_body;  // queued and in flight, by their bytes
    std::int64_t queued_bytes = 0;
    std::int64_t waiting_bodies = 0;  // queued + in flight (distinct bodies with waiters)
    std::int64_t waiting_bytes = 0;
    std::int64_t in_flight_bodies = 0;
    // The ranks vouched for, and whether a digest round is under way (every seen_every_ms).
    SeenDigest seen;
    bool seen_due = false;
    std::int64_t learned_batch_bytes = 0;  // 0: none; else the upstream refused a larger batch with 413
    bool due = false;                      // the oldest queued body has waited batch_ms
    bool timer_armed = false;
    bool expiry_armed = false;
    std::uint64_t expiry_generation = 0;
    std::chrono::steady_clock::time_point expiry_at;
    // No queued body expires before this (max: none queued); lowered on submit, recomputed on a sweep.
    std::chrono::steady_clock::time_point earliest_deadline = std::chrono::steady_clock::time_point::max();
    bool stopping = false;
    int in_flight = 0;

    // Declared last: destroyed first, with the handlers (and sessions) they still hold.
    meshscope::net::IoThread loop{"ms-relay"};
    meshscope::net::HttpEngine<Impl> engine{loop.context(), *this, engine_settings(options)};
    net::steady_timer batch_timer{loop.context()};
    net::steady_timer expiry_timer{loop.context()};
    net::steady_timer stop_timer{loop.context()};
    net::steady_timer seen_timer{loop.context()};
    std::vector<std::unique_ptr<Upstream>> upstreams;
};

// One kept-alive connection to the upstream (collector or relay), carrying one batch at a time (net::HttpClient:
// the deadline, reconnecting, closing it when idle). A batch that fails on a reused connection goes once more on a
// fresh one: the upstream may have closed it while it was idle.
class Upstream {
public:
    explicit Upstream(Relay::Impl& relay)
        : relay_(relay),
          client_(relay.loop.context(), {.host = relay.options.upstream.host, .port = relay.options.upstream.port},
                  {.timeout = std::chrono::milliseconds(relay.options.upstream_timeout_ms),
                   .idle_close = std::chrono::milliseconds(relay.options.upstream_idle_close_ms),
                   .body_limit = upstream_answer_limit}) {}

    [[nodiscard]] bool busy() const { return busy_; }
    [[nodiscard]] std::chrono::steady_clock::time_point sent() const { return batch_.sent; }

    void run(Batch batch) {
        busy_ = true;
        batch_ = std::move(batch);
        const auto& o = relay_.options;
        meshscope::net::HttpRequest request{http::verb::post, o.upstream.prefix + std::string(api_batches), 11};
        request.set(http::field::host, o.upstream.host + ":" + o.upstream.port);
        request.set(http::field::content_type, "application/json");
        if (!o.upstream_token.empty()) request.set(http::field::authorization, "Bearer " + o.upstream_token);
        // A relay above this one sees how long the earliest of these ranks still waits (the collector ignores it).
        auto earliest = std::chrono::steady_clock::time_point::max();
        for (const auto& item : batch_.items)
            if (!item->waiters.empty()) earliest = std::min(earliest, item->deadline);
        if (earliest != std::chrono::steady_clock::time_point::max()) {
            const double left = std::chrono::duration<double>(earliest - std::chrono::steady_clock::now()).count();
            char text[32];
            std::snprintf(text, sizeof text, "%.3f", std::max(left, 0.001));
            request.set(rank_timeout_header, text);
        }
        request.keep_alive(true);
        request.body() = batch_.request_body;
        request.prepare_payload();
        ++relay_.batches_sent;
        client_.request(std::move(request), [this](meshscope::net::HttpResult result) { on_result(result); });
    }

    void close() { client_.close(); }

private:
    void on_result(const meshscope::net::HttpResult& result) {
        using Kind = meshscope::net::HttpError::Kind;
        if (result.error) {
            if (result.reused && !batch_.retried && result.error->kind != Kind::timeout) {
                Batch batch = std::move(batch_);
                batch.retried = true;
                return run(std::move(batch));
            }
            const std::string why =
                result.error->kind == Kind::timeout
                    ? "no answer within " + std::to_string(relay_.options.upstream_timeout_ms) + " ms"
                    : result.error->code.message();
            return done(0, {}, {}, why);
        }
        const auto& response = result.response;
        std::optional<int> retry_after;
        if (const auto it = response.find(http::field::retry_after); it != response.end()) {
            int seconds = 0;
            const auto value = it->value();
            if (std::from_chars(value.data(), value.data() + value.size(), seconds).ec == std::errc{})
                retry_after = seconds;
        }
        done(response.result_int(), response.body(), retry_after, {});
    }

    void done(int status, const std::string& body, std::optional<int> retry_after, const std::string& failure) {
        busy_ = false;
        relay_.finished(std::move(batch_), status, body, retry_after, failure);
    }

    Relay::Impl& relay_;
    meshscope::net::HttpClient client_;
    Batch batch_;
    bool busy_ = false;
};

Relay::Impl::~Impl() {
    // Drop what still holds sockets while the io_context that made them is alive.
    queue.clear();
    for (auto& upstream : upstreams) upstream->close();
    upstreams.clear();
}

Relay::Impl::Reply Relay::Impl::error_reply(int status, std::string_view message, meshscope::net::Headers headers) {
    Reply reply;
    reply.status = status;
    reply.body = error_json(message);
    reply.headers = std::move(headers);
    return reply;
}

// The rank connections' limits: the collector's header bound and error texts; the request line and headers fill
// at most the read buffer.
meshscope::net::EngineSettings Relay::Impl::engine_settings(const RelayOptions& o) {
    meshscope::net::EngineSettings settings;
    settings.max_connections = static_cast<std::size_t>(std::max(0, o.max_connections));
    settings.max_header_bytes = meshscope::net::read_buffer_bytes;
    settings.max_body_bytes = static_cast<std::size_t>(std::max(o.max_body_bytes, batch_body_limit(o)));
    settings.read_buffer_bytes = meshscope::net::read_buffer_bytes;
    settings.read_timeout = std::chrono::milliseconds(o.read_timeout_ms);
    settings.idle_timeout = std::chrono::milliseconds(o.idle_timeout_ms);
    settings.write_timeout = std::chrono::milliseconds(o.read_timeout_ms);
    // Deadlines are seconds long (idle 60 s, request 10 s) except a refused request's drain reads (300 ms), which
    // this may stretch to 550 ms.
    settings.sweep_every = 250ms;
    return settings;
}

std::uint64_t Relay::Impl::body_limit(const meshscope::net::Request& header) const {
    const bool batch = header.target().starts_with(api_batches);
    return static_cast<std::uint64_t>(batch ? batch_body_limit(options) : options.max_body_bytes);
}

namespace {
// An answer with the headers the relay's answers carry.
Relay::Impl::Reply relay_answer(int status, std::string body, std::optional<int> retry_after = {},
                                std::string_view authenticate = {}, std::string_view allow = {}) {
    Relay::Impl::Reply reply;
    reply.status = status;
    reply.body = std::move(body);
    if (retry_after) reply.headers.emplace_back("Retry-After", std::to_string(*retry_after));
    if (!authenticate.empty()) reply.headers.emplace_back("WWW-Authenticate", std::string(authenticate));
    if (!allow.empty()) reply.headers.emplace_back("Allow", std::string(allow));
    return reply;
}
}  // namespace

void Relay::Impl::handle(meshscope::net::Request& request, meshscope::net::Respond<Reply> respond,
                         Connection& connection) {
    const bool head = request.method() == http::verb::head;  // answered as GET, without the body
    const std::string& token = options.token;
    if (!token.empty() && request[http::field::authorization] != "Bearer " + token)
        return respond(relay_answer(401, error_json("missing or wrong bearer token"), {}, "Bearer"));
    if (token.empty()) {
        // A web page must not post through the relay what the collector would refuse from it.
        const auto header = [&](http::field name) -> std::optional<std::string> {
            const auto it = request.find(name);
            return it == request.end() ? std::nullopt : std::optional<std::string>(std::string(it->value()));
        };
        if (auto refused = meshscope::net::browser_refusal(header(http::field::host), header(http::field::origin),
                                                           options.listen_host, options.allowed_hosts))
            return respond(relay_answer(403, error_json(*refused)));
    }
    std::string_view path = request.target();
    if (const auto q = path.find('?'); q != std::string_view::npos) path = path.substr(0, q);
    const bool post = request.method() == http::verb::post;
    if (path == api_events || path == api_batches) {
        if (!post) return respond(relay_answer(405, error_json("use POST"), {}, {}, "POST"));
        const auto given = parse_rank_timeout(request[rank_timeout_header]);
        const double timeout_s = given.value_or(options.rank_timeout_ms / 1000.0);
        if (path == api_events) {
            submit(
                std::move(request.body()), timeout_s,
                [respond = std::move(respond)](const BodyResult& result) {
                    const RankAnswer a = rank_answer(result);
                    respond(relay_answer(a.status, a.body, a.retry_after));
                },
                &connection.held_senders);
            return;
        }
        auto batch = decode_batch(request.body());
        if (!batch) return respond(relay_answer(400, error_json(batch.error().message())));
        // A relay below names the ranks it vouches for: this one names them in its next round.
        seen.add(batch->seen, batch->held,
                 std::chrono::steady_clock::now() + std::chrono::milliseconds(options.seen_every_ms));
        submit_batch(std::move(batch).value().bodies, timeout_s, [respond = std::move(respond)](std::string results) {
            respond(relay_answer(200, std::move(results)));
        });
        return;
    }
    // Records are imported once per job, not per rank: they go to the collector itself (docs/live-at-scale.md).
    if (path.starts_with("/api/v1/jobs/") && path.ends_with("/records"))
        return respond(relay_answer(404, error_json(std::string(relay_records_error))));
    if (request.method() != http::verb::get && !head)
        return respond(relay_answer(405, error_json("use GET"), {}, {}, "GET"));
    if (path == api_health) return respond(relay_answer(200, R"({"status":"ok"})"));
    if (path == api_relay) return respond(relay_answer(200, stats_json(stats())));
    respond(relay_answer(404, error_json("no such endpoint: " + std::string(path))));
}

void Relay::Impl::submit(std::string body, double timeout_s, std::function<void(const BodyResult&)> done,
                         Senders* senders) {
    ++bodies_received;
    const auto size = static_cast<std::int64_t>(body.size());
    if (stopping) return done(make_result(503, "relay stopping", busy_retry_after_s));
    const auto now = std::chrono::steady_clock::now();
    const auto deadline = now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                    std::chrono::duration<double>(queued_wait_share * timeout_s));
    if (const auto it = by_body.find(body); it != by_body.end()) {
        // The same bytes while the first copy still waits here: its rank gave up on the first request and
        // sent it again. One copy goes upstream; both requests get its result (acknowledged = stored once).
        ++bodies_deduplicated;
        taken_again(senders);
        it->second->waiters.push_back(std::move(done));
        it->second->deadline = std::max(it->second->deadline, deadline);
        return;
    }
    if (over_bounds(1, size)) {
        ++bodies_refused_busy;
        auto result = make_result(503, "relay busy: too many events waiting for the collector", busy_retry_after_s);
        held_back(body, result, timeout_s, true, senders);
        return done(result);
    }
    const double wait = expected_wait();
    if (wait > heartbeat_wait_share * timeout_s && may_be_heartbeats(body)) {
        if (auto from = body_senders(body); from.heartbeats_only) {
            // Heartbeats go first, but the rank stays alive at the collector: it is named in the next "seen"
            // digest, as the collector's own shedding marks a shed rank seen.
            ++heartbeats_shed;
            vouch(from.ranks, heartbeat_retry_after_s, timeout_s, false);
            return done(make_result(503, std::string(heartbeat_shed_refusal), heartbeat_retry_after_s));
        }
    }
    if (wait > lifecycle_wait_share * timeout_s) {
        // Queued, it would be answered after its rank stopped waiting, and then sent again by that rank:
        // refuse it now, with a time to come back, instead of doing the work twice.
        ++bodies_refused_wait;
        auto result = busy_result(std::string(wait_refusal), wait);
        held_back(body, result, timeout_s, true, senders);
        return done(result);
    }
    taken_again(senders);
    auto item = std::make_shared<Item>();
    item->body = std::move(body);
    item->waiters.push_back(std::move(done));
    item->deadline = deadline;
    item->keyed = true;
    item->counted = true;
    by_body.emplace(std::string_view(item->body), item.get());  // the Item never moves its string
    waiting_bodies += 1;
    waiting_bytes += size;
    waiting_bodies_seen = waiting_bodies;
    queued_bytes += size;
    earliest_deadline = std::min(earliest_deadline, item->deadline);
    queue.push_back(std::move(item));
    arm_expiry();
    send_due_batches();
}

void Relay::Impl::submit_batch(std::vector<std::string> bodies, double timeout_s,
                               std::function<void(std::string)> finish) {
    if (bodies.empty()) return finish(encode_results({}));
    std::int64_t bytes = 0;
    for (const auto& b : bodies) bytes += static_cast<std::int64_t>(b.size());
    // All or none: a lower relay gets one answer for its whole batch.
    if (stopping || over_bounds(static_cast<std::int64_t>(bodies.size()), bytes)) {
        bodies_received += static_cast<std::int64_t>(bodies.size());
        bodies_refused_busy += static_cast<std::int64_t>(bodies.size());
        const auto refused =
            make_result(503, stopping ? "relay stopping" : "relay busy: too many events waiting for the collector",
                        busy_retry_after_s);
        if (!stopping)
            for (const auto& body : bodies) held_back(body, refused, timeout_s, true);
        return finish(encode_results(std::vector<BodyResult>(bodies.size(), refused)));
    }
    struct Gather {
        std::vector<BodyResult> results;
        std::size_t remaining;
        std::function<void(std::string)> finish;
    };
    auto gather =
        std::make_shared<Gather>(Gather{std::vector<BodyResult>(bodies.size()), bodies.size(), std::move(finish)});
    for (std::size_t i = 0; i < bodies.size(); ++i) {
        submit(std::move(bodies[i]), timeout_s, [gather, i](const BodyResult& result) {
            gather->results[i] = result;
            if (--gather->remaining == 0) gather->finish(encode_results(gather->results));
        });
    }
}

double Relay::Impl::expected_wait() const {
    double stalled = 0;
    if (in_flight >= options.max_in_flight) {
        auto oldest = std::chrono::steady_clock::time_point::max();
        for (const auto& upstream : upstreams)
            if (upstream->busy()) oldest = std::min(oldest, upstream->sent());
        if (oldest != std::chrono::steady_clock::time_point::max())
            stalled = std::chrono::duration<double>(std::chrono::steady_clock::now() - oldest).count();
    }
    return admission.expected_wait(static_cast<std::int64_t>(queue.size()) + in_flight_bodies, stalled);
}

BodyResult Relay::Impl::busy_result(const std::string& message, double wait) {
    const double now = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    return make_result(503, message, admission.retry_after(wait, now));
}

void Relay::Impl::answer(Item& item, const BodyResult& result) {
    if (item.keyed) by_body.erase(std::string_view(item.body));
    item.keyed = false;
    if (item.counted) {
        waiting_bodies -= 1;
        waiting_bytes -= static_cast<std::int64_t>(item.body.size());
        item.counted = false;
    }
    waiting_bodies_seen = waiting_bodies;
    auto waiters = std::move(item.waiters);
    item.waiters.clear();
    for (auto& waiter : waiters) waiter(result);
}

// Queued bodies whose ranks are about to give up are answered now (503 + Retry-After: the rank reads a
// time to come back instead of timing out) and never sent: nobody would read the collector's answer.
// Ranks may state different timeouts, so the whole queue is looked at, at most every 10 ms.
void Relay::Impl::expire_queued() {
    const auto now = std::chrono::steady_clock::now();
    if (queue.empty()) earliest_deadline = std::chrono::steady_clock::time_point::max();
    if (earliest_deadline > now) return;
    std::deque<ItemPtr> kept;
    std::vector<ItemPtr> expired;
    earliest_deadline = std::chrono::steady_clock::time_point::max();
    for (auto& item : queue) {
        if (item->deadline <= now) {
            queued_bytes -= static_cast<std::int64_t>(item->body.size());
            expired.push_back(std::move(item));
        } else {
            earliest_deadline = std::min(earliest_deadline, item->deadline);
            kept.push_back(std::move(item));
        }
    }
    queue = std::move(kept);
    for (auto& item : expired) {
        ++bodies_expired;
        const auto result = busy_result(std::string(expired_refusal), expected_wait());
        held_back(item->body, result, options.rank_timeout_ms / 1000.0, true);
        answer(*item, result);
    }
}

void Relay::Impl::held_back(std::string_view body, const BodyResult& result, double timeout_s, bool held,
                            Senders* senders) {
    const int retry_after = result.retry_after.value_or(busy_retry_after_s);
    auto from = body_senders(body);
    vouch(from.ranks, retry_after, timeout_s, held);
    if (senders) *senders = std::move(from.ranks);
}

void Relay::Impl::vouch(const Senders& ranks, int retry_after_s, double timeout_s, bool held) {
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                               std::chrono::duration<double>(retry_after_s * 1.5 + timeout_s));
    for (const auto& [job, rank] : ranks) seen.add(job, rank, until, held);
}

void Relay::Impl::taken_again(Senders* senders) {
    if (!senders || senders->empty()) return;
    for (const auto& [job, rank] : *senders) seen.forget(job, rank);
    senders->clear();
}

// Every seen_every_ms a digest round names every rank vouched for, with the next batches.
void Relay::Impl::arm_seen_digest() {
    seen_timer.expires_after(std::chrono::milliseconds(std::max(1, options.seen_every_ms)));
    seen_timer.async_wait([this](beast::error_code ec) {
        if (ec || stopping) return;
        seen.start_round(std::chrono::steady_clock::now());
        if (seen.due()) {
            seen_due = true;
            send_due_batches();
        }
        arm_seen_digest();
    });
}

void Relay::Impl::arm_expiry() {
    if (queue.empty()) return;
    const auto at = std::max(earliest_deadline, std::chrono::steady_clock::now() + 10ms);
    if (expiry_armed && expiry_at <= at) return;
    expiry_armed = true;
    expiry_at = at;
    const std::uint64_t generation = ++expiry_generation;
    expiry_timer.expires_at(at);
    expiry_timer.async_wait([this, generation](beast::error_code ec) {
        if (ec || generation != expiry_generation) return;  // re-armed earlier meanwhile
        expiry_armed = false;
        expire_queued();
        arm_expiry();
    });
}

// Sends batches while one is full or the oldest body has waited batch_ms, up to max_in_flight. When the "seen"
// digest is due it rides on the next batch, which then goes at once (alone if no event waits).
void Relay::Impl::send_due_batches() {
    const auto max_bodies = static_cast<std::size_t>(std::max(1, options.batch_bodies));
    const std::int64_t max_bytes =
        learned_batch_bytes > 0 ? std::min(learned_batch_bytes, options.batch_bytes) : options.batch_bytes;
    expire_queued();
    while ((!queue.empty() || (seen_due && !stopping)) && in_flight < options.max_in_flight) {
        const bool full = queue.size() >= max_bodies || queued_bytes >= max_bytes;
        if (!queue.empty() && !full && !due && !stopping && !seen_due) break;
        const auto now = std::chrono::steady_clock::now();
        Batch batch;
        while (
            !queue.empty() && batch.items.size() < max_bodies &&
            (batch.items.empty() || batch.bytes + static_cast<std::int64_t>(queue.front()->body.size()) <= max_bytes)) {
            ItemPtr item = std::move(queue.front());
            queue.pop_front();
            queued_bytes -= static_cast<std::int64_t>(item->body.size());
            if (item->deadline <= now) {  // a shorter timeout than the bodies before it
                ++bodies_expired;
                const auto result = busy_result(std::string(expired_refusal), expected_wait());
                held_back(item->body, result, options.rank_timeout_ms / 1000.0, true);
                answer(*item, result);
                continue;
            }
            batch.bytes += static_cast<std::int64_t>(item->body.size());
            batch.items.push_back(std::move(item));
        }
        if (seen_due && !stopping) {
            // A digest's share of a batch stays small next to the collector's 1 MiB body limit; what does not
            // fit goes with the batches right after.
            batch.seen = seen.take(seen_ranks_per_batch);
            seen_due = seen.due();
        }
        if (batch.items.empty() && batch.seen.seen.empty()) continue;  // every queued body had expired
        send(std::move(batch));
    }
    if (queue.empty()) {
        due = false;
        if (timer_armed) batch_timer.cancel();
        timer_armed = false;
    } else if (!timer_armed && !due) {
        timer_armed = true;
        batch_timer.expires_after(std::chrono::milliseconds(options.batch_ms));
        batch_timer.async_wait([this](beast::error_code ec) {
            if (ec) return;
            timer_armed = false;
            due = true;
            send_due_batches();
        });
    }
}

void Relay::Impl::send(Batch batch) {
    std::vector<const std::string*> bodies;
    bodies.reserve(batch.items.size());
    for (const auto& item : batch.items) bodies.push_back(&item->body);
    batch.request_body = encode_batch(bodies, batch.seen.seen, batch.seen.held);
    batch.sent = std::chrono::steady_clock::now();
    ++in_flight;
    in_flight_bodies += static_cast<std::int64_t>(batch.items.size());
    for (auto& upstream : upstreams)
        if (!upstream->busy()) return upstream->run(std::move(batch));
    upstreams.push_back(std::make_unique<Upstream>(*this));
    upstreams.back()->run(std::move(batch));
}

void Relay::Impl::finished(Batch batch, int status, const std::string& body, std::optional<int> retry_after,
                           const std::string& failure) {
    --in_flight;
    in_flight_bodies -= static_cast<std::int64_t>(batch.items.size());
    const auto same_for_all = [&](const BodyResult& result) { deliver(batch, [&](std::size_t) { return result; }); };
    // A digest the upstream did not take goes with the next one.
    const auto seen_again = std::chrono::steady_clock::now() + std::chrono::milliseconds(options.seen_every_ms);
    if (status != 200) seen.add(batch.seen.seen, batch.seen.held, seen_again);
    if (status == 0) {
        ++upstream_failures;
        same_for_all(make_result(503, "collector unreachable: " + failure, unreachable_retry_after_s));
    } else if (status == 200) {
        auto results = decode_results(body, batch.items.size());
        if (results) {
            seen_ranks_forwarded += static_cast<std::int64_t>(seen_count(batch.seen.seen));
            if (!batch.items.empty())
                admission.answered(
                    static_cast<std::int64_t>(batch.items.size()),
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - batch.sent).count());
            deliver(batch, [&](std::size_t i) { return (*results)[i]; });
        } else {
            ++upstream_failures;
            seen.add(batch.seen.seen, batch.seen.held, seen_again);
            same_for_all(
                make_result(503, "collector unreachable: " + results.error().message(), unreachable_retry_after_s));
        }
    } else if (status == 413 && batch.items.size() > 1) {
        // The upstream takes smaller batches than ours: learn its size and send these again, in halves.
        learned_batch_bytes = std::max<std::int64_t>(1, batch.bytes / 2);
        for (auto it = batch.items.rbegin(); it != batch.items.rend(); ++it) {
            queued_bytes += static_cast<std::int64_t>((*it)->body.size());
            earliest_deadline = std::min(earliest_deadline, (*it)->deadline);
            queue.push_front(std::move(*it));
        }
        due = true;
        arm_expiry();
    } else if (status == 413) {
        // One body the upstream finds too large: the collector's own answer, as if the rank had sent it there.
        deliver(batch, [&](std::size_t) { return make_result(413, error_text(body)); });
    } else {
        // The upstream's own refusal of the whole batch (503 shedding, 401, 404, ...): every rank keeps its
        // events and comes back later, because none of them is at fault.
        ++upstream_failures;
        const std::string message = error_text(body);
        if (status == 503 && !message.empty()) {
            same_for_all(make_result(503, message, retry_after.value_or(busy_retry_after_s)));
        } else {
            same_for_all(make_result(503,
                                     "collector unreachable: upstream answered " + std::to_string(status) +
                                         (message.empty() ? "" : " " + message),
                                     retry_after.value_or(unreachable_retry_after_s)));
        }
    }
    send_due_batches();
}

void Relay::Impl::deliver(Batch& batch, const std::function<BodyResult(std::size_t)>& result_of) {
    for (std::size_t i = 0; i < batch.items.size(); ++i) answer(*batch.items[i], result_of(i));
}

void Relay::Impl::begin_stop() {
    if (stopping) return;
    stopping = true;
    seen.clear();
    seen_timer.cancel();
    engine.begin_drain();
    send_due_batches();
    watch_stop(std::chrono::steady_clock::now() + std::chrono::milliseconds(options.upstream_timeout_ms) + 2s);
}

// The network thread ends once every waiting body is answered and written, or at the deadline.
void Relay::Impl::watch_stop(std::chrono::steady_clock::time_point deadline) {
    send_due_batches();
    engine.close_idle();
    if ((queue.empty() && in_flight == 0 && engine.sessions() == 0) || std::chrono::steady_clock::now() >= deadline) {
        for (auto& upstream : upstreams) upstream->close();
        engine.close();
        loop.context().stop();
        return;
    }
    stop_timer.expires_after(10ms);
    stop_timer.async_wait([this, deadline](beast::error_code ec) {
        if (!ec) watch_stop(deadline);
    });
}

Relay::Relay(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Relay::~Relay() {
    stop();
}

Expected<std::unique_ptr<Relay>> Relay::start(RelayOptions options) {
    auto impl = std::make_unique<Impl>(std::move(options));
    const auto where = impl->options.listen_host + ":" + std::to_string(impl->options.listen_port);
    beast::error_code ec;
    const auto address = net::ip::make_address(impl->options.listen_host, ec);
    if (ec) return RuntimeError("cannot listen on " + where + ": " + ec.message());
    ec = impl->engine.listen(address, impl->options.listen_port);
    if (ec) return RuntimeError("cannot listen on " + where + ": " + ec.message());
    impl->port = impl->engine.port();
    impl->engine.start();
    impl->arm_seen_digest();
    impl->loop.start();
    return std::unique_ptr<Relay>(new Relay(std::move(impl)));
}

void Relay::stop() {
    if (!impl_ || !impl_->loop.running()) return;
    net::post(impl_->loop.context(), [impl = impl_.get()] { impl->begin_stop(); });
    impl_->loop.join();  // the drain ends the loop (watch_stop)
}

std::uint16_t Relay::port() const {
    return impl_->port;
}

std::string Relay::url() const {
    const auto& host = impl_->options.listen_host;
    const bool v6 = host.find(':') != std::string::npos;
    return "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(impl_->port);
}

RelayStats Relay::stats() const {
    return impl_->stats();
}

RelayStats Relay::Impl::stats() const {
    RelayStats s;
    s.bodies_received = bodies_received;
    s.batches_sent = batches_sent;
    s.bodies_refused_busy = bodies_refused_busy;
    s.upstream_failures = upstream_failures;
    s.bodies_refused_wait = bodies_refused_wait;
    s.bodies_expired = bodies_expired;
    s.bodies_deduplicated = bodies_deduplicated;
    s.heartbeats_shed = heartbeats_shed;
    s.seen_ranks_forwarded = seen_ranks_forwarded;
    s.waiting_bodies = waiting_bodies_seen;
    s.connections = static_cast<int>(engine.open_connections());
    return s;
}

std::string stats_json(const RelayStats& s) {
    return nlohmann::json{{"bodies_received", s.bodies_received},
                          {"batches_sent", s.batches_sent},
                          {"bodies_refused_busy", s.bodies_refused_busy},
                          {"bodies_refused_wait", s.bodies_refused_wait},
                          {"bodies_expired", s.bodies_expired},
                          {"bodies_deduplicated", s.bodies_deduplicated},
                          {"heartbeats_shed", s.heartbeats_shed},
                          {"seen_ranks_forwarded", s.seen_ranks_forwarded},
                          {"upstream_failures", s.upstream_failures},
                          {"waiting_bodies", s.waiting_bodies},
                          {"connections", s.connections}}
        .dump();
}

}  // namespace meshscope::relay
