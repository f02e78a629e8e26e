// One storm worker: every rank a client with its own keep-alive connection (net::HttpClient), all on one Asio
// event loop. Each rank is a small state machine driven by one timer: wait for the next request's time, send it
// (the client connects first when the connection is gone), and either take the answer or give up at the request
// timeout (the client's deadline). Every asynchronous step carries the rank's `epoch`; a completion from an older
// epoch (a cancelled wait) is ignored, so exactly one path owns the rank at a time.
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>

#include "http_client.h"
#include "storm_worker.h"

#include "meshscope/client/otlp_body.h"
#include "meshscope/monitor/event.h"

namespace meshscope::sim::storm {

namespace {
namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;
using HttpKind = net::HttpError::Kind;
using HttpStage = net::HttpError::Stage;

enum class Sending { script, heartbeat, exit };

constexpr std::size_t batch_max = 512;  // events per request (the Python reporter's MESHSCOPE_BATCH_MAX)

struct Rank {
    Rank(asio::io_context& io, const RankPlan& p) : plan(&p), timer(io) {}
    const RankPlan* plan;
    RankRecord record;
    asio::steady_timer timer;
    std::optional<net::HttpClient> http;  // its keep-alive connection (Transport::attach)
    std::uint64_t epoch = 0;
    std::size_t next = 0;              // next script item not yet taken into a request
    std::vector<std::size_t> pending;  // script items of the request in flight or waiting to be retried
    double retry_at = -1;              // run clock: when the refused or failed item goes again
    double next_heartbeat = -1;        // run clock
    double quiet_until = -1;           // run clock: the last refusal's Retry-After; nothing is sent before it
    int failures = 0;                  // in a row, for the backoff
    bool ever_connected = false;
    bool in_flight = false;
    bool exit_sent = false;
    bool finished = false;
    Sending sending = Sending::script;
};

std::string format_number(double s) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", s);
    return text;
}

std::string format_seconds(double s) {
    char text[32];
    std::snprintf(text, sizeof text, "%g s", s);
    return text;
}

void set_error(RankRecord& record, const std::string& text) {
    const std::size_t n = std::min(text.size(), record.last_error.size() - 1);
    std::memcpy(record.last_error.data(), text.data(), n);
    record.last_error[n] = '\0';
}

// A lifecycle event of the rank (heartbeat, exit), done now, as one JSON object.
std::string lifecycle_body(const WorkerSettings& settings, const RankPlan& p, Phase phase) {
    Event e;
    e.job = settings.job;
    e.rank = p.rank;
    e.world_size = settings.world_size;
    e.phase = phase;
    e.status = Status::done;
    e.ts = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    e.host = p.host;
    e.pid = 10000 + p.rank;
    return to_json(e).dump();
}

// One request's body: the events (each one JSON object) as a JSON array, or with --protocol otlp as an OTLP/HTTP
// JSON ExportLogsServiceRequest, one log record each (the C++ client's encoding, as its reporter sends it).
std::string request_body(const WorkerSettings& settings, const std::vector<std::string>& events) {
    if (settings.protocol == StormProtocol::otlp) return client::otlp_logs_body(events).json;
    std::string body = "[";
    for (const std::string& e : events) {
        if (body.size() > 1) body += ',';
        body += e;
    }
    body += ']';
    return body;
}

// A POST of `body` to /api/v1/events (with --protocol otlp: /v1/logs) as the reporters send it (keep-alive, their
// timeout header).
net::HttpRequest events_post(const WorkerSettings& settings, const std::string& host, const std::string& timeout_header,
                             std::string body) {
    net::HttpRequest request{http::verb::post, settings.protocol == StormProtocol::otlp ? "/v1/logs" : "/api/v1/events",
                             11};
    request.set(http::field::host, host);
    request.set(http::field::content_type, "application/json");
    if (!settings.token.empty()) request.set(http::field::authorization, "Bearer " + settings.token);
    request.set("MeshScope-Timeout", timeout_header);
    request.keep_alive(true);
    request.body() = std::move(body);
    request.prepare_payload();
    return request;
}

// The ranks' HTTP: each rank's net::HttpClient to its target (one POST of events at a time, the request timeout
// covering connect, write and answer), and what the storm counts of it (connects, reconnects, timeouts). What
// becomes of a request is the subclass's: failed() (no answer, a closed connection, the timeout) or answered().
class Transport {
public:
    explicit Transport(const WorkerSettings& settings) : settings_(settings) {
        for (const StormTarget& t : settings.targets) {
            tcp::resolver resolver(io_);
            boost::system::error_code ec;
            auto results = resolver.resolve(t.host, t.port, ec);
            endpoints_.push_back(ec || results.empty() ? tcp::endpoint{} : results.begin()->endpoint());
            hosts_.push_back(t.host + ":" + t.port);
        }
    }
    Transport(const Transport&) = delete;
    Transport& operator=(const Transport&) = delete;

protected:
    ~Transport() = default;

    virtual void failed(Rank& r, const std::string& why, bool timed_out) = 0;
    virtual void answered(Rank& r, const net::HttpResponse& response) = 0;

    double now() const { return std::chrono::duration<double>(Clock::now() - settings_.origin).count(); }
    Clock::time_point at(double t) const {
        return settings_.origin + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(t));
    }

    // Gives the rank its client (the rank stays where it is for the worker's life).
    void attach(Rank& r) {
        r.http.emplace(io_, endpoints_[r.plan->target],
                       net::HttpClientOptions{.timeout = std::chrono::duration_cast<Clock::duration>(
                                                  std::chrono::duration<double>(settings_.request_timeout))});
        r.http->on_connect([this, &r] {
            if (r.record.first_connect < 0) r.record.first_connect = now();
            if (r.ever_connected) ++r.record.reconnects;
            r.ever_connected = true;
        });
    }

    // Sends `body` for the rank's request of `epoch` (the client connects first when its connection is gone).
    void post(Rank& r, std::uint64_t epoch, std::string body) {
        r.http->request(events_post(settings_, hosts_[r.plan->target], timeout_header_, std::move(body)),
                        [this, &r, epoch](net::HttpResult result) {
                            if (epoch != r.epoch) return;
                            if (!result.error) return answered(r, result.response);
                            if (result.error->kind != HttpKind::timeout) return failed(r, result.error->what(), false);
                            ++r.record.timeouts;
                            const bool connecting =
                                result.error->stage == HttpStage::resolve || result.error->stage == HttpStage::connect;
                            failed(r,
                                   "timed out after " + format_seconds(settings_.request_timeout) +
                                       (connecting ? " connecting" : " waiting for the answer"),
                                   true);
                        });
    }

    void drop_connection(Rank& r) { r.http->close(); }

    asio::io_context io_{1};
    const WorkerSettings& settings_;

private:
    std::vector<tcp::endpoint> endpoints_;
    std::vector<std::string> hosts_;
    const std::string timeout_header_ = format_number(settings_.request_timeout);
};

class Worker final : private Transport {
public:
    Worker(std::span<const RankPlan> plans, const WorkerSettings& settings, const std::atomic<bool>& stop)
        : Transport(settings), stop_(stop), rng_(settings.seed), watch_(io_), hard_stop_(io_) {
        ranks_.reserve(plans.size());
        for (const RankPlan& p : plans) {
            ranks_.emplace_back(io_, p);
            Rank& r = ranks_.back();
            attach(r);
            r.record.rank = p.rank;
            r.record.expects_ready = std::any_of(p.items.begin(), p.items.end(), [](auto& i) { return i.ready; });
            if (p.items.empty()) mark_script_done(r);
        }
    }

    std::vector<RankRecord> run() {
        for (Rank& r : ranks_) schedule(r);
        watch();
        io_.run();
        std::vector<RankRecord> out;
        out.reserve(ranks_.size());
        for (Rank& r : ranks_) out.push_back(r.record);
        return out;
    }

private:
    double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng_); }

    // Every 50 ms: has the run ended (time, stop, every script done)?
    void watch() {
        watch_.expires_after(std::chrono::milliseconds(50));
        watch_.async_wait([this](boost::system::error_code ec) {
            if (ec || ending_) return;
            if (stop_.load() || now() >= settings_.end_at ||
                (settings_.end_when_done && scripts_done_ == ranks_.size()))
                end();
            else
                watch();
        });
    }

    // The run ends: healthy ranks still heartbeating post `exit` once; everything else stops. Requests in
    // flight finish or time out; whatever remains after that is cut off.
    void end() {
        ending_ = true;
        for (Rank& r : ranks_)
            if (!r.in_flight) {
                ++r.epoch;
                r.timer.cancel();
                schedule(r);
            }
        hard_stop_.expires_after(std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(2 * settings_.request_timeout + 1)));
        hard_stop_.async_wait([this](boost::system::error_code ec) {
            if (!ec) io_.stop();
        });
    }

    void finish(Rank& r) {
        r.finished = true;
        ++r.epoch;
        r.timer.cancel();
        drop_connection(r);
        if (++finished_ == ranks_.size()) {
            watch_.cancel();
            hard_stop_.cancel();
        }
    }

    void mark_script_done(Rank& r) {
        if (r.record.script_done) return;
        r.record.script_done = true;
        ++scripts_done_;
    }

    // Decides the rank's next request and waits for its time.
    void schedule(Rank& r) {
        if (r.finished) return;
        if (ending_) {
            if (r.plan->heartbeats && r.record.script_done && r.record.ready_ack >= 0 && !r.exit_sent) {
                r.exit_sent = true;
                send(r, Sending::exit, request_body(settings_, {lifecycle_body(settings_, *r.plan, Phase::exit)}));
            } else {
                finish(r);
            }
            return;
        }
        if (!r.pending.empty() || r.next < r.plan->items.size()) {
            const double due = r.retry_at >= 0                 ? r.retry_at
                               : r.next < r.plan->items.size() ? r.plan->items[r.next].at
                                                               : now();
            wait_until(r, std::max(due, r.quiet_until), [this, &r] { send_script(r); });
        } else if (r.plan->heartbeats && r.record.ready_ack >= 0) {
            wait_until(r, std::max(r.next_heartbeat, r.quiet_until), [this, &r] {
                send(r, Sending::heartbeat,
                     request_body(settings_, {lifecycle_body(settings_, *r.plan, Phase::heartbeat)}));
            });
        }
        // else: nothing more to say until the run ends
    }

    template <typename F>
    void wait_until(Rank& r, double t, F then) {
        const std::uint64_t epoch = ++r.epoch;
        r.timer.expires_at(at(t));
        r.timer.async_wait([&r, epoch, then](boost::system::error_code ec) {
            if (ec || epoch != r.epoch) return;
            then();
        });
    }

    // As the reporters do: one request carries every event that is due and not yet acknowledged (those of
    // a refused or unanswered request first, heartbeats among them dropped), up to batch_max, as a JSON array.
    void send_script(Rank& r) {
        const double t = now();
        while (r.next < r.plan->items.size() && r.pending.size() < batch_max &&
               (r.pending.empty() || r.plan->items[r.next].at <= t))
            r.pending.push_back(r.next++);
        std::vector<std::string> events;
        events.reserve(r.pending.size());
        for (const std::size_t i : r.pending) {
            const ScriptItem& item = r.plan->items[i];
            events.push_back(item.body);
            if (item.heartbeat) ++r.record.heartbeats_sent;
            if (item.ready) {
                if (r.record.ready_due < 0) r.record.ready_due = item.at;
                r.record.ready_sent = t;
            }
        }
        send(r, Sending::script, request_body(settings_, events));
    }

    void send(Rank& r, Sending what, std::string body) {
        const std::uint64_t epoch = ++r.epoch;
        r.in_flight = true;
        r.sending = what;
        ++r.record.requests;
        if (what == Sending::heartbeat) ++r.record.heartbeats_sent;
        post(r, epoch, std::move(body));
    }

    // A heartbeat thread ticks every interval; one that came late does not make the next ones bunch up.
    void advance_heartbeat(Rank& r) {
        r.next_heartbeat = std::max(r.next_heartbeat + settings_.heartbeat_interval, now());
    }

    // The request ends; this path owns the rank from here.
    void settle(Rank& r) {
        ++r.epoch;
        r.in_flight = false;
        r.timer.cancel();
    }

    // No answer, a reset, a refused connection, a timeout, or a 5xx / 408 without Retry-After.
    void failed(Rank& r, const std::string& why, bool timed_out) override {
        settle(r);  // the client closed the connection
        set_error(r.record, why);
        if (!timed_out) ++r.record.failures;
        retry_later(r, false, 0);
    }

    void answered(Rank& r, const net::HttpResponse& response) override {
        settle(r);
        const unsigned status = response.result_int();
        if (status >= 200 && status < 300) {
            acknowledged(r);
            return;
        }
        const auto retry_after = response.find(http::field::retry_after);
        const bool has_retry_after = retry_after != response.end();
        set_error(r.record, "HTTP " + std::to_string(status) + " " + std::string(response.body().substr(0, 60)));
        if ((status == 503 || status == 429) && has_retry_after) {
            ++r.record.refusals;
            retry_later(r, true, std::strtod(std::string(retry_after->value()).c_str(), nullptr));
            return;
        }
        if (status >= 400 && status < 500 && status != 408 && status != 429) {
            rejected(r);
            return;
        }
        ++r.record.failures;
        retry_later(r, false, 0);
    }

    // A final 4xx: these events are dropped, as the reporter drops them.
    void rejected(Rank& r) {
        ++r.record.rejected;
        r.failures = 0;
        r.retry_at = -1;
        if (r.sending == Sending::script) {
            r.pending.clear();
            if (r.next == r.plan->items.size()) mark_script_done(r);
        } else if (r.sending == Sending::heartbeat) {
            ++r.record.heartbeats_refused;
            advance_heartbeat(r);
        } else {
            finish(r);
            return;
        }
        schedule(r);
    }

    void acknowledged(Rank& r) {
        const double t = now();
        ++r.record.acknowledged;
        r.failures = 0;
        r.retry_at = -1;
        switch (r.sending) {
            case Sending::script:
                for (const std::size_t i : r.pending) {
                    if (i < max_recorded_acks) r.record.acks[i] = t;
                    if (r.plan->items[i].heartbeat)
                        ++r.record.heartbeats_acked;
                    else
                        ++r.record.lifecycle_acked;
                    if (r.plan->items[i].ready) {
                        r.record.ready_ack = t;
                        r.next_heartbeat = t + settings_.heartbeat_interval;
                    }
                }
                r.pending.clear();
                if (r.next == r.plan->items.size()) mark_script_done(r);
                break;
            case Sending::heartbeat:
                ++r.record.heartbeats_acked;
                advance_heartbeat(r);
                break;
            case Sending::exit:
                ++r.record.lifecycle_acked;
                r.record.exit_acked = true;
                finish(r);
                return;
        }
        schedule(r);
    }

    // A refused heartbeat is not retried (the next comes on time), but as in the Python reporter nothing is sent
    // before Retry-After x U(1, 1.5); an exit at the end is sent once. Lifecycle events go again: after
    // Retry-After x U(1, 1.5), else after the jittered backoff.
    void retry_later(Rank& r, bool refused, double retry_after) {
        const double refused_wait = refused ? std::max(retry_after, 0.0) * uniform(1.0, 1.5) : 0.0;
        if (refused && r.sending != Sending::exit) r.quiet_until = std::max(r.quiet_until, now() + refused_wait);
        if (r.sending == Sending::script && !drop_heartbeats(r, refused)) {  // only heartbeats: nothing to retry
            r.retry_at = -1;
            if (r.next == r.plan->items.size()) mark_script_done(r);
            schedule(r);
            return;
        }
        if (r.sending == Sending::heartbeat) {
            if (refused)
                ++r.record.heartbeats_refused;
            else
                ++r.record.heartbeats_failed;
            advance_heartbeat(r);
            schedule(r);
            return;
        }
        if (r.sending == Sending::exit || ending_) {
            finish(r);
            return;
        }
        ++r.record.retries;
        const double wait = refused ? refused_wait : backoff(r);
        r.retry_at = now() + wait;
        schedule(r);
    }

    // Drops the heartbeats of a script request that was refused or failed (counted as such); whether lifecycle
    // events remain to be sent again.
    bool drop_heartbeats(Rank& r, bool refused) {
        const auto heartbeat = [&](std::size_t i) { return r.plan->items[i].heartbeat; };
        const auto dropped = std::count_if(r.pending.begin(), r.pending.end(), heartbeat);
        (refused ? r.record.heartbeats_refused : r.record.heartbeats_failed) += static_cast<std::uint32_t>(dropped);
        std::erase_if(r.pending, heartbeat);
        return !r.pending.empty();
    }

    // The next failure's wait: the backoff doubled per failure in a row, capped, jittered by U(0.5, 1.5).
    double backoff(Rank& r) {
        ++r.failures;
        const double base =
            std::min(settings_.first_backoff * std::pow(2.0, std::min(r.failures - 1, 16)), settings_.backoff_max);
        return base * uniform(0.5, 1.5);
    }

    const std::atomic<bool>& stop_;
    std::mt19937_64 rng_;
    std::vector<Rank> ranks_;
    asio::steady_timer watch_;
    asio::steady_timer hard_stop_;
    std::size_t scripts_done_ = 0;
    std::size_t finished_ = 0;
    bool ending_ = false;
};
}  // namespace

std::vector<RankRecord> run_worker(std::span<const RankPlan> plans, const WorkerSettings& settings,
                                   const std::atomic<bool>& stop) {
    Worker worker(plans, settings, stop);
    return worker.run();
}

}  // namespace meshscope::sim::storm
