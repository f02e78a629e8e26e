#include "meshscope/client/reporter.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "meshscope/client/event_kind.h"
#include "meshscope/client/http_post.h"
#include "meshscope/client/otlp_body.h"
#include "meshscope/client/rank_queue.h"

namespace meshscope::client {

namespace {
using Clock = std::chrono::steady_clock;

// "meshscope" or "otlp" (ReporterOptions::protocol, else $MESHSCOPE_PROTOCOL), lower case; anything else as given.
std::string protocol_of(const ReporterOptions& options) {
    std::string protocol = options.protocol;
    if (protocol.empty())
        if (const char* env = std::getenv("MESHSCOPE_PROTOCOL")) protocol = env;
    for (char& c : protocol)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return protocol.empty() ? std::string("meshscope") : protocol;
}

// The collector's count of events it already had, from its answer {"accepted": n, "duplicates": k}; 0 without one
// (an older collector, a dashboard).
std::uint64_t duplicates_in(const std::string& answer) {
    if (answer.find("\"duplicates\"") == std::string::npos) return 0;  // the usual answer: no parse
    const nlohmann::json parsed = nlohmann::json::parse(answer, nullptr, false);
    if (!parsed.is_object()) return 0;
    const auto k = parsed.find("duplicates");
    return k != parsed.end() && k->is_number_unsigned() ? k->get<std::uint64_t>() : 0;
}

std::string events_url(std::string url, bool otlp) {
    const std::string_view path = otlp ? "/v1/logs" : "/api/v1/events";
    while (!url.empty() && url.back() == '/') url.pop_back();
    if (url.size() < path.size() || url.compare(url.size() - path.size(), path.size(), path) != 0) url += path;
    return url;
}

// 408 and 429 say "later"; other 4xx say "never": the event itself is wrong.
bool retryable(long status) {
    return status == 0 || status == 408 || status == 429 || status >= 500;
}

// How long a sender waits before retrying, after `failures` failed requests in a row (>= 1): what the
// collector asked for, spread over half as much again, or jittered exponential backoff. The jitter keeps
// thousands of ranks refused at once from all coming back at once.
std::chrono::milliseconds retry_delay(const PostResult& result, int failures, const ReporterOptions& options,
                                      std::mt19937_64& random) {
    if ((result.status == 503 || result.status == 429) && result.retry_after >= 0) {
        std::uniform_real_distribution<double> spread(1.0, 1.5);
        return std::chrono::milliseconds(static_cast<long long>(result.retry_after * 1000.0 * spread(random)));
    }
    double base = static_cast<double>(options.initial_backoff.count());
    for (int i = 1; i < failures && base < static_cast<double>(options.max_backoff.count()); ++i) base *= 2;
    base = std::min(base, static_cast<double>(options.max_backoff.count()));
    std::uniform_real_distribution<double> jitter(0.5, 1.5);
    return std::chrono::milliseconds(static_cast<long long>(base * jitter(random)));
}
}  // namespace

struct Reporter::State {
    ReporterOptions options;
    std::string protocol;  // "meshscope" or "otlp" (else nothing is sent)
    bool otlp = false;
    std::string url;
    mutable std::mutex mutex;
    std::condition_variable work;      // senders wait for events
    std::condition_variable progress;  // flush()/shutdown() wait for deliveries
    RankQueue queue;
    ReporterStats stats;
    bool closing = false;            // enqueue refuses; senders exit when the queue is empty
    std::atomic<bool> abort{false};  // senders exit now; transfers in flight are cut
    std::vector<std::thread> senders;
    bool joined = false;

    explicit State(ReporterOptions o)
        : options(std::move(o)),
          protocol(protocol_of(options)),
          otlp(protocol == "otlp"),
          url(events_url(options.url, otlp)),
          queue(options.max_queue_events, options.max_queue_bytes) {}

    void run_sender(unsigned index);
};

void Reporter::State::run_sender(unsigned index) {
    HttpPost http(url, options.token, options.ca_file, options.connect_timeout, options.request_timeout, abort);
    // Seeded per process and thread: simulated ranks in many processes must not share one jitter sequence.
    std::mt19937_64 random(static_cast<std::uint64_t>(Clock::now().time_since_epoch().count()) ^
                           (static_cast<std::uint64_t>(::getpid()) << 32) ^ (index * 0x9E3779B97F4A7C15ull));
    int failures = 0;  // in a row
    std::string body;
    for (;;) {
        std::optional<RankQueue::Batch> batch;
        {
            std::unique_lock lock(mutex);
            work.wait(lock, [&] { return abort.load() || queue.has_waiting() || (closing && queue.events() == 0); });
            if (abort.load()) return;
            batch = queue.take(options.max_batch_events, options.max_batch_bytes);
            if (!batch) {
                if (closing && queue.events() == 0) return;
                continue;  // the waiting ranks had only evicted heartbeats
            }
        }
        body.clear();
        std::size_t invalid = 0;  // OTLP: events that are not JSON objects, left out of the body
        if (otlp) {
            OtlpBody logs = otlp_logs_body(batch->events);
            body = std::move(logs.json);
            invalid = logs.invalid;
        } else {
            body.reserve(batch->bytes + batch->events.size() + 2);
            body += '[';
            for (std::size_t i = 0; i < batch->events.size(); ++i) {
                if (i) body += ',';
                body += batch->events[i];
            }
            body += ']';
        }
        const PostResult result = http.post(body);
        const bool delivered = !retryable(result.status);
        {
            std::lock_guard lock(mutex);
            const auto n = batch->events.size();
            if (result.status) ++stats.requests;
            if (result.status >= 200 && result.status < 300 && otlp) {
                // OTLP's partial success: the records it refused are counted as rejected, never retried.
                std::string message;
                const auto refused = std::min<std::uint64_t>(
                    n, invalid + static_cast<std::uint64_t>(otlp_rejected(result.body, &message)));
                stats.acknowledged += n - refused;
                stats.rejected += refused;
                if (refused)
                    stats.last_error = "partial success: " + std::to_string(refused) + " rejected" +
                                       (message.empty() ? std::string() : ": " + message);
            } else if (result.status >= 200 && result.status < 300) {
                stats.acknowledged += n;
                stats.duplicates += std::min<std::uint64_t>(n, duplicates_in(result.body));
            } else if (delivered) {
                stats.rejected += n;
                stats.last_error = "HTTP " + std::to_string(result.status) + ": " + result.error;
            } else {
                ++stats.failures;
                stats.last_error =
                    result.status ? "HTTP " + std::to_string(result.status) + ": " + result.error : result.error;
            }
            stats.heartbeats_refused += queue.complete(std::move(*batch), delivered);
        }
        progress.notify_all();
        work.notify_one();  // the rank may have more events waiting
        if (delivered) {
            failures = 0;
            continue;
        }
        // Shutdown cuts the wait.
        failures = std::min(failures + 1, 64);  // past the cap the backoff no longer grows anyway
        const auto wait = retry_delay(result, failures, options, random);
        std::unique_lock lock(mutex);
        work.wait_for(lock, wait, [&] { return abort.load(); });
    }
}

Reporter::Reporter(ReporterOptions options) {
    try {
        state_ = std::make_unique<State>(std::move(options));
        if (state_->protocol != "meshscope" && state_->protocol != "otlp") {
            state_->stats.last_error = "protocol \"" + state_->protocol +
                                       "\" is neither meshscope nor otlp (MESHSCOPE_PROTOCOL): nothing is sent";
            state_->closing = true;
            return;
        }
        const int n = std::max(1, state_->options.connections);
        state_->options.initial_backoff = std::max(state_->options.initial_backoff, std::chrono::milliseconds(2));
        state_->options.max_backoff = std::max(state_->options.max_backoff, state_->options.initial_backoff);
        for (int i = 0; i < n; ++i)
            state_->senders.emplace_back([s = state_.get(), i] { s->run_sender(static_cast<unsigned>(i)); });
    } catch (...) {
        // No threads (or no memory): the reporter stays usable and drops everything, as promised.
        if (state_) {
            state_->abort = true;
            state_->work.notify_all();
            for (auto& t : state_->senders)
                if (t.joinable()) t.join();
            state_->senders.clear();
            state_->closing = true;
        }
    }
}

Reporter::~Reporter() {
    if (state_) shutdown(state_->options.shutdown_timeout);
}

bool Reporter::enqueue(std::int64_t rank, std::string event_json) noexcept {
    if (!state_) return false;
    try {
        std::lock_guard lock(state_->mutex);
        const EventKind kind = event_kind(event_json);
        if (state_->closing || !state_->queue.push(rank, std::move(event_json), kind)) {
            ++state_->stats.dropped;
            return false;
        }
        ++state_->stats.enqueued;
    } catch (...) {
        std::lock_guard lock(state_->mutex);
        ++state_->stats.dropped;
        return false;
    }
    state_->work.notify_one();
    return true;
}

bool Reporter::flush(std::chrono::milliseconds timeout) noexcept {
    if (!state_) return true;
    std::unique_lock lock(state_->mutex);
    return state_->progress.wait_for(lock, timeout, [&] { return state_->queue.events() == 0; });
}

void Reporter::shutdown(std::chrono::milliseconds timeout) noexcept {
    if (!state_) return;
    const auto deadline = Clock::now() + timeout;
    {
        std::unique_lock lock(state_->mutex);
        if (state_->joined) return;
        state_->closing = true;
        state_->work.notify_all();
        state_->progress.wait_until(lock, deadline, [&] { return state_->queue.events() == 0; });
        state_->abort = true;
        state_->work.notify_all();
    }
    for (auto& t : state_->senders)
        if (t.joinable()) t.join();
    std::lock_guard lock(state_->mutex);
    state_->stats.abandoned += state_->queue.clear_waiting();
    state_->joined = true;
}

ReporterStats Reporter::stats() const noexcept {
    if (!state_) return {};
    std::lock_guard lock(state_->mutex);
    ReporterStats copy;
    try {
        copy = state_->stats;
    } catch (...) {
    }
    copy.pending = state_->queue.events();
    copy.heartbeats_evicted = state_->queue.heartbeats_evicted();
    copy.over_bound = state_->queue.over_bound();
    return copy;
}

}  // namespace meshscope::client
