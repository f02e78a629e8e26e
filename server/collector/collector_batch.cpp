// The collector's load shedding and POST /api/v1/batches (docs/live-at-scale.md): a relay sends the bodies
// of many ranks at once; each is judged exactly as POST /api/v1/events would judge it, and every accepted
// one is stored in a single commit.
#include <algorithm>

#include "collector.h"

namespace meshscope::server {

std::optional<SubmitResult> Collector::shed_all() {
    if (events_pending_.load(std::memory_order_relaxed) < options_.shedding.shed_all_at) return std::nullopt;
    ++bodies_shed_;
    return SubmitResult{503, error_body(all_shed_error), 0, 1};
}

std::optional<SubmitResult> Collector::shed_heartbeats(const std::vector<Event>& events, double received) {
    if (events.empty() || events_pending_.load(std::memory_order_relaxed) < options_.shedding.heartbeat_shed_at)
        return std::nullopt;
    const bool heartbeats_only =
        std::all_of(events.begin(), events.end(), [](const Event& e) { return e.phase == Phase::heartbeat; });
    if (!heartbeats_only) return std::nullopt;
    // Not stored, but proof of life: the ranks stay alive in the monitor, so shedding makes no stale_rank.
    std::vector<std::pair<std::string, std::int64_t>> ranks;
    ranks.reserve(events.size());
    for (const Event& e : events) ranks.emplace_back(e.job, e.rank);
    monitor_->post([ranks = std::move(ranks), received](Monitor& monitor) {
        for (const auto& [job, rank] : ranks) monitor.seen(job, rank, received);
    });
    ++bodies_shed_;
    return SubmitResult{503, error_body(heartbeat_shed_error), 0, 5};
}

void Collector::seen(SeenRanks seen, SeenRanks held) {
    if (seen.empty() && held.empty()) return;
    monitor_->post([seen = std::move(seen), held = std::move(held), received = now()](Monitor& monitor) {
        for (const auto& [job, list] : seen)
            for (const std::int64_t rank : list) monitor.seen(job, rank, received);
        for (const auto& [job, list] : held)
            for (const std::int64_t rank : list) monitor.seen(job, rank, received, true);
    });
}

Collector::Done Collector::counted(std::int64_t events, Done done) {
    events_pending_ += events;
    return [this, events, done = std::move(done)](SubmitResult result) {
        events_pending_ -= events;
        done(std::move(result));
    };
}

void Collector::submit_bodies(std::vector<std::string> bodies, BatchDone done) {
    const auto queued = static_cast<std::int64_t>(bodies.size());
    events_pending_ += queued;  // as for submit(body): a queued body counts until it is parsed
    parser_->post([this, queued, bodies = std::move(bodies), done = std::move(done)]() mutable {
        events_pending_ -= queued;
        try {
            judge_bodies(std::move(bodies), std::move(done));
        } catch (const std::exception& e) {
            std::vector<SubmitResult> busy(
                bodies.size(), SubmitResult{503, error_body(std::string("collector busy: ") + e.what()), 0, 1});
            done(std::move(busy));
        }
    });
}

void Collector::judge_bodies(std::vector<std::string> bodies, BatchDone done) {
    const double received = now();
    auto results = std::make_shared<std::vector<SubmitResult>>(bodies.size());
    std::vector<std::size_t> accepted;  // indices of the bodies to store
    std::vector<Event> events;
    for (std::size_t i = 0; i < bodies.size(); ++i) {
        if (auto shed = shed_all()) {
            (*results)[i] = std::move(*shed);
            continue;
        }
        auto parsed = parse_events(bodies[i], options_.limits);
        if (!parsed) {
            ++bodies_refused_;
            (*results)[i] = {400, error_body(parsed.error().message()), 0};
            continue;
        }
        if (auto shed = shed_heartbeats(*parsed, received)) {
            (*results)[i] = std::move(*shed);
            continue;
        }
        const auto n = static_cast<std::int64_t>(parsed->size());
        (*results)[i] = {200, "{\"accepted\":" + std::to_string(n) + "}", n};
        if (n == 0) continue;
        accepted.push_back(i);
        events.insert(events.end(), std::make_move_iterator(parsed->begin()), std::make_move_iterator(parsed->end()));
    }
    if (events.empty()) {
        done(std::move(*results));
        return;
    }
    std::vector<StoredEvent> stored;
    stored.reserve(events.size());
    for (const Event& e : events) stored.push_back({e.job, e.rank, received, to_json(e).dump()});
    const auto total = static_cast<std::int64_t>(events.size());
    store_and_ingest(
        std::move(events), std::move(stored),
        counted(total, [results, accepted = std::move(accepted), done = std::move(done)](SubmitResult commit) mutable {
            // One commit: if it failed, every body in it failed the same way.
            if (commit.status != 200)
                for (const std::size_t i : accepted) (*results)[i] = commit;
            done(std::move(*results));
        }));
}

}  // namespace meshscope::server
