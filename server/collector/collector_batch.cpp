// The collector's load shedding, POST /api/v1/batches and POST /api/v1/jobs/{job}/records (docs/live-at-scale.md): a
// relay sends the bodies of many ranks at once; each is judged exactly as POST /api/v1/events would judge it, and every
// accepted one is stored in a single commit.
#include <algorithm>

#include "collector.h"
#include "meshscope/monitor/otlp_logs.h"

namespace meshscope::server {

std::optional<SubmitResult> Collector::shed_all() {
    if (events_pending_.load(std::memory_order_relaxed) < options_.shedding.shed_all_at) return std::nullopt;
    ++bodies_shed_;
    return SubmitResult::refused(503, std::string(all_shed_error), 1);
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
    return SubmitResult::refused(503, std::string(heartbeat_shed_error), 5);
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
            std::vector<SubmitResult> busy(bodies.size(),
                                           SubmitResult::refused(503, std::string("collector busy: ") + e.what(), 1));
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
            (*results)[i] = SubmitResult::refused(400, parsed.error().message());
            continue;
        }
        if (auto shed = shed_heartbeats(*parsed, received)) {
            (*results)[i] = std::move(*shed);
            continue;
        }
        if (auto refused = admit_jobs(*parsed)) {
            (*results)[i] = std::move(*refused);
            continue;
        }
        const auto n = static_cast<std::int64_t>(parsed->size());
        (*results)[i] = SubmitResult::stored(n);
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
    for (const Event& e : events) stored.push_back(stored_event(e, received));
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

void Collector::submit_records(std::string job, std::string body, Done done) {
    if (auto shed = shed_all()) return done(std::move(*shed));
    ++events_pending_;  // as a body: counted until it is parsed
    parser_->post([this, job = std::move(job), body = std::move(body), done = std::move(done)]() mutable {
        --events_pending_;
        try {
            judge_records(std::move(job), body, std::move(done));
        } catch (const std::exception& e) {
            done(SubmitResult::refused(503, std::string("collector busy: ") + e.what(), 1));
        }
    });
}

void Collector::judge_records(std::string job, std::string_view body, Done done) {
    auto records = parse_records_import(body);
    if (!records) {
        ++bodies_refused_;
        return done(SubmitResult::refused(400, records.error().message()));
    }
    // What the import costs is the ranks it lists (each joins the rank list); the world it names costs nothing.
    std::vector<std::int64_t> listed;
    listed.reserve(records->ranks.size());
    for (const RecordsRank& r : records->ranks) listed.push_back(r.rank);
    if (auto refused = admit_records(job, std::move(listed))) return done(std::move(*refused));
    const double received = now();
    // Stored as received once it is valid: a restart reads it back with the same reader.
    StoredRecords stored{job, received, std::string(body)};
    auto shared = std::make_shared<RecordsImport>(std::move(records).value());
    writer_->submit(
        std::move(stored), [this, shared, job, received, done = std::move(done)](const std::optional<Error>& error) {
            if (error) {
                log_store_failure(*error);
                done(SubmitResult::refused(503, error->message(), store_failure_retry_after));
                return;
            }
            monitor_->post([shared, job, received, done](Monitor& monitor) {
                monitor.import_records(job, *shared, received);
                SubmitResult answer = SubmitResult::stored(static_cast<std::int64_t>(shared->findings.size()));
                answer.records = SubmitResult::Records{job, static_cast<std::int64_t>(shared->ranks.size())};
                done(std::move(answer));
            });
        });
}

void Collector::submit_otlp(std::string body, Done done) {
    if (auto shed = shed_all()) return done(std::move(*shed));
    ++events_pending_;  // as a body: counted until it is parsed
    parser_->post([this, body = std::move(body), done = std::move(done)]() mutable {
        --events_pending_;
        try {
            judge_otlp(body, std::move(done));
        } catch (const std::exception& e) {
            done(SubmitResult::refused(503, std::string("collector busy: ") + e.what(), 1));
        }
    });
}

void Collector::judge_otlp(std::string_view body, Done done) {
    auto logs = parse_otlp_logs(body, options_.limits);
    if (!logs) {
        ++bodies_refused_;
        return done(SubmitResult::refused(400, logs.error().message()));
    }
    if (logs->events.empty() && logs->rejected > 0) {
        ++bodies_refused_;
        return done(SubmitResult::refused(400, logs->rejected_error));
    }
    if (auto shed = shed_heartbeats(logs->events, now())) return done(std::move(*shed));
    if (auto refused = admit_jobs(logs->events)) return done(std::move(*refused));
    std::optional<SubmitResult::Rejected> rejected;
    if (logs->rejected > 0) rejected = SubmitResult::Rejected{logs->rejected, std::move(logs->rejected_error)};
    submit(std::move(logs->events), [rejected = std::move(rejected), done = std::move(done)](SubmitResult result) {
        if (result.status == 200) result.rejected = rejected;
        done(std::move(result));
    });
}

std::string too_many_jobs_error(std::size_t max_jobs) {
    return "collector busy: " + std::to_string(max_jobs) + " jobs are live and none has finished (--max-jobs)";
}

std::string too_many_ranks_error(std::int64_t max_ranks) {
    return "collector busy: the live jobs' reporting ranks would pass " + std::to_string(max_ranks) +
           " and none has finished (--max-ranks)";
}

std::vector<std::string> forget_finished_jobs(Monitor& monitor, std::size_t jobs, std::int64_t ranks,
                                              const std::function<std::int64_t(const std::string&)>& world_of) {
    std::vector<std::pair<double, std::string>> finished;  // (last event, name)
    for (const JobSummary& job : monitor.jobs()) {
        const auto running = job.states[static_cast<std::size_t>(RankStateKind::initializing)] +
                             job.states[static_cast<std::size_t>(RankStateKind::ready)];
        if (running == 0) finished.emplace_back(job.last_event.value_or(0), job.job);
    }
    std::sort(finished.begin(), finished.end());
    std::vector<std::string> names;
    std::int64_t freed = 0;
    for (auto& [when, name] : finished) {
        if (names.size() >= jobs && freed >= ranks) break;
        freed += world_of(name);
        monitor.remove_job(name);
        names.push_back(std::move(name));
    }
    return names;
}

std::optional<SubmitResult> Collector::admit_jobs(const std::vector<Event>& events) {
    // The ranks the body names per job; what counts is those new to their jobs (a heartbeat adds nothing).
    RanksByJob named;
    const Event* last = nullptr;  // most bodies name one rank of one job: look it up once
    std::vector<std::int64_t>* ranks = nullptr;
    for (const Event& e : events) {
        if (last && last->rank == e.rank && last->job == e.job) continue;
        if (!last || last->job != e.job) ranks = &named[e.job];
        last = &e;
        ranks->push_back(e.rank);
    }
    for (auto& [job, list] : named) {
        std::sort(list.begin(), list.end());
        list.erase(std::unique(list.begin(), list.end()), list.end());
    }
    return admit_grown(std::move(named));
}

std::optional<SubmitResult> Collector::admit_records(const std::string& job, std::vector<std::int64_t> ranks) {
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    RanksByJob named;
    named.emplace(job, std::move(ranks));
    return admit_grown(std::move(named));
}

std::optional<SubmitResult> Collector::admit_grown(RanksByJob named) {
    // New jobs, and ranks new to the jobs they report in.
    std::size_t fresh = 0;
    std::int64_t more_ranks = 0;
    const auto count = [&] {
        fresh = 0;
        more_ranks = 0;
        for (const auto& [job, ranks] : named) {
            const auto known = admitted_jobs_.find(std::string(job));
            if (known == admitted_jobs_.end()) {
                ++fresh;
                more_ranks += static_cast<std::int64_t>(ranks.size());
                continue;
            }
            for (const std::int64_t rank : ranks) more_ranks += known->second.contains(rank) ? 0 : 1;
        }
    };
    count();
    if (fresh == 0 && more_ranks == 0) return std::nullopt;
    const std::size_t cap = options_.max_jobs;
    const auto jobs_over = [&] { return admitted_jobs_.size() + fresh > cap; };
    const auto ranks_over = [&] { return admitted_ranks_ + more_ranks > options_.max_ranks; };
    if ((jobs_over() || ranks_over()) && fresh <= cap && more_ranks <= options_.max_ranks) {
        // Rare (only at a bound): the parse thread waits for the monitor thread to forget finished jobs. The map
        // is read there meanwhile, never written.
        const std::size_t jobs = jobs_over() ? admitted_jobs_.size() + fresh - cap : 0;
        const std::int64_t ranks = ranks_over() ? admitted_ranks_ + more_ranks - options_.max_ranks : 0;
        const auto reported = [this](const std::string& name) {
            const auto it = admitted_jobs_.find(name);
            return it == admitted_jobs_.end() ? std::int64_t{0} : static_cast<std::int64_t>(it->second.size());
        };
        for (const auto& name :
             monitor_->call([&](Monitor& m) { return forget_finished_jobs(m, jobs, ranks, reported); })) {
            const auto it = admitted_jobs_.find(name);
            if (it == admitted_jobs_.end()) continue;
            admitted_ranks_ -= static_cast<std::int64_t>(it->second.size());
            admitted_jobs_.erase(it);
        }
        count();  // a forgotten job this body names is new again
    }
    if (jobs_over() || ranks_over()) {
        ++bodies_shed_;
        const std::string error = jobs_over() ? too_many_jobs_error(cap) : too_many_ranks_error(options_.max_ranks);
        return SubmitResult::refused(503, error, too_many_jobs_retry_after);
    }
    for (const auto& [job, ranks] : named) {
        RankIndex& index = admitted_jobs_[std::string(job)];
        for (const std::int64_t rank : ranks) index.set(rank, 1);
    }
    admitted_ranks_ += more_ranks;
    return std::nullopt;
}

}  // namespace meshscope::server
