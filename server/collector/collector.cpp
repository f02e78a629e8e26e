#include "collector.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <sstream>
#include <thread>
#include <tuple>
#include <utility>

#include <nlohmann/json.hpp>

#include "communicator_series.h"
#include "meshscope/mesh/json_limits.h"
#include "meshscope/mesh/parallel_for.h"

namespace meshscope::server {

namespace {
// Prometheus label values escape backslash, double quote and newline.
std::string label(std::string_view value) {
    std::string out;
    out.reserve(value.size());
    for (char c : value) {
        if (c == '\\' || c == '"') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out;
}
}  // namespace

std::string error_body(std::string_view message) {
    return nlohmann::json{{"error", message}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

SubmitResult SubmitResult::stored(std::int64_t events, std::int64_t duplicates) {
    SubmitResult result;
    result.accepted = events;
    result.duplicates = duplicates;
    return result;
}

SubmitResult SubmitResult::refused(int status, std::string message, int retry_after) {
    SubmitResult result;
    result.status = status;
    result.error = std::move(message);
    if (retry_after > 0) result.retry_after = retry_after;
    return result;
}

std::string answer_body(const SubmitResult& result) {
    if (result.status != 200) return error_body(result.error);
    if (result.records)
        return nlohmann::json{
            {"job", result.records->job}, {"findings", result.accepted}, {"ranks", result.records->ranks}}
            .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::string body = "{\"accepted\":" + std::to_string(result.accepted);
    if (result.duplicates > 0) body += ",\"duplicates\":" + std::to_string(result.duplicates);
    return body + "}";
}

StoredEvent stored_event(const Event& event, double received) {
    return {
        event.job, event.rank, received, to_json(event).dump(), event.phase == Phase::heartbeat, event_identity(event)};
}

double Collector::now() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

namespace {
// Replays the history into the monitor (docs/collector.md, "History"): the events in store order, then each
// rank's last heartbeat at its last receive time. Parsing the stored JSON is most of the cost, so each
// window of rows is parsed on several threads, then ingested in order on this one; consecutive events
// received together (one request, or one group commit) are ingested as one batch, as they were live.
// Returns how many events were ingested (each rank's heartbeat summary counts once).
class HistoryReplay {
public:
    HistoryReplay(Monitor& monitor, const EventLimits& limits) : monitor_(monitor), limits_(limits) {}

    void add(const std::string& json, double received) {
        window_.push_back({json, received, std::nullopt});
        if (window_.size() == window_rows) flush();
    }

    std::int64_t finish() {
        flush();
        return rebuilt_;
    }

private:
    static constexpr std::size_t window_rows = 32768;
    struct Row {
        std::string json;
        double received = 0;
        std::optional<Event> event;
    };

    void flush() {
        // Up to 8 threads, each with at least 1,024 rows.
        parallel_for(window_.size(), parallel_threads(window_.size() / 1024, 8), [this](std::size_t i) {
            const auto json = parse_json_bounded(window_[i].json);
            if (json.is_discarded()) return;
            if (auto event = event_from_json(json, limits_)) window_[i].event = std::move(event).value();
        });

        std::vector<Event> batch;
        double batch_received = 0;
        auto ingest = [&] {
            monitor_.ingest(batch, batch_received);
            rebuilt_ += static_cast<std::int64_t>(batch.size());
            batch.clear();
        };
        for (Row& row : window_) {
            if (!row.event) continue;  // a row that no longer parses is skipped, as before
            if (!batch.empty() && row.received != batch_received) ingest();
            batch_received = row.received;
            batch.push_back(std::move(*row.event));
        }
        if (!batch.empty()) ingest();
        window_.clear();
    }

    Monitor& monitor_;
    const EventLimits& limits_;
    std::vector<Row> window_;
    std::int64_t rebuilt_ = 0;
};

// The events rebuilt, or the error that stopped the read (a damaged file): the collector then does not start,
// rather than show part of the history as if it were all of it.
// `reported`: each job's ranks that reported (an event or imported records), what admission counts.
Expected<std::int64_t> rebuild(const EventStore& store, Monitor& monitor, const EventLimits& limits,
                               std::unordered_map<std::string, RankIndex>& reported) {
    HistoryReplay replay(monitor, limits);
    auto error = store.for_each("", [&](const StoredEvent& stored) {
        replay.add(stored.json, stored.received);
        reported[stored.job].set(stored.rank, 1);
        return true;
    });
    if (!error)
        error = store.for_each_heartbeat("", [&](const StoredHeartbeat& heartbeat) {
            replay.add(heartbeat.json, heartbeat.last_received);
            return true;
        });
    if (error) return *error;
    const auto rebuilt = replay.finish();
    // Then each job's imported records, as the last import left them (a row that no longer parses is skipped,
    // as an event's is).
    error = store.for_each_records("", [&](const StoredRecords& stored) {
        if (auto records = parse_records_import(stored.json)) {
            monitor.import_records(stored.job, *records, stored.received);
            auto& ranks = reported[stored.job];
            for (const RecordsRank& r : records->ranks) ranks.set(r.rank, 1);
        }
        return true;
    });
    if (error) return *error;
    return rebuilt;
}
}  // namespace

Expected<std::unique_ptr<Collector>> Collector::open(CollectorOptions options) {
    std::unique_ptr<Collector> collector(new Collector());
    collector->options_ = std::move(options);
    collector->path_ = collector->options_.database.empty() ? default_database_path() : collector->options_.database;
    auto store = EventStore::open(collector->path_, collector->options_.durability);
    if (!store) return store.error();

    // Rebuild every job from the history before anything new arrives: the events in store order with their
    // stored receive times, then each rank's last heartbeat at its last receive time, then let the first
    // tick judge missing and stale ranks against the present.
    (void)(*store)->fold_heartbeats();  // a tidy start; on failure the log stays and is read as it is
    Monitor monitor(collector->options_.monitor);
    std::unordered_map<std::string, RankIndex> reported;
    auto rebuilt = rebuild(**store, monitor, collector->options_.limits, reported);
    if (!rebuilt) return rebuilt.error();
    collector->events_rebuilt_ = *rebuilt;
    monitor.tick(now());
    // A history of more jobs (or reporting ranks) than the collector keeps live: the finished ones beyond the bounds
    // stay in the database only.
    const auto names = monitor.job_names();
    const auto size_of = [&](const std::string& name) {
        const auto it = reported.find(name);
        return it == reported.end() ? std::int64_t{0} : static_cast<std::int64_t>(it->second.size());
    };
    std::int64_t ranks = 0;
    for (const std::string& name : names) ranks += size_of(name);
    const auto& o = collector->options_;
    if (names.size() > o.max_jobs || ranks > o.max_ranks)
        (void)forget_finished_jobs(monitor, names.size() > o.max_jobs ? names.size() - o.max_jobs : 0,
                                   std::max<std::int64_t>(0, ranks - o.max_ranks), size_of);
    for (const std::string& name : monitor.job_names()) {
        auto& admitted = collector->admitted_jobs_[name];
        if (const auto it = reported.find(name); it != reported.end()) admitted = std::move(it->second);
        collector->admitted_ranks_ += static_cast<std::int64_t>(admitted.size());
    }

    Collector* self = collector.get();
    monitor.set_change_listener([self](const Change& change) { self->notify(change); });
    collector->writer_ = std::make_unique<StoreWriter>(std::move(std::move(store).value()));
    collector->parser_ = std::make_unique<ParseThread>();
    collector->monitor_ =
        std::make_unique<MonitorThread>(std::move(monitor), collector->options_.tick_interval, &Collector::now);
    return collector;
}

Collector::~Collector() {
    // The parser first (its bodies go to the writer), then the writer: its last callbacks post to the monitor
    // thread, which must still be there.
    parser_.reset();
    writer_.reset();
    monitor_.reset();
}

void Collector::submit(std::string body, Done done) {
    // Past the high watermark nothing is parsed: shedding must cost less than storing.
    if (auto shed = shed_all()) return done(std::move(*shed));
    // A queued body counts as one pending event until it is parsed, so the watermarks see this queue too.
    ++events_pending_;
    parser_->post([this, body = std::move(body), done = std::move(done)]() mutable {
        --events_pending_;
        try {
            judge(body, std::move(done));
        } catch (const std::exception& e) {  // bad_alloc: the body is refused, the collector stays up
            done(SubmitResult::refused(503, std::string("collector busy: ") + e.what(), 1));
        }
    });
}

void Collector::judge(std::string_view body, Done done) {
    auto events = parse_events(body, options_.limits);
    if (!events) {
        ++bodies_refused_;
        done(SubmitResult::refused(400, events.error().message()));
        return;
    }
    if (auto shed = shed_heartbeats(*events, now())) return done(std::move(*shed));
    if (auto refused = admit_jobs(*events)) return done(std::move(*refused));
    submit(std::move(events).value(), std::move(done));
}

void Collector::submit(std::vector<Event> events, Done done) {
    if (events.empty()) {
        done(SubmitResult::stored(0));
        return;
    }
    const double received = now();
    std::vector<StoredEvent> stored;
    stored.reserve(events.size());
    for (const Event& e : events) stored.push_back(stored_event(e, received));
    const auto n = static_cast<std::int64_t>(events.size());
    store_and_ingest(std::move(events), std::move(stored), counted(n, std::move(done)));
}

void Collector::store_and_ingest(std::vector<Event> events, std::vector<StoredEvent> stored, Done done) {
    const double received = stored.front().received;
    // Heartbeats update their rank's summary instead of adding a row (docs/collector.md, "History").
    if (stored.size() == events.size())
        for (std::size_t i = 0; i < events.size(); ++i) stored[i].heartbeat = events[i].phase == Phase::heartbeat;
    const auto n = static_cast<std::int64_t>(events.size());
    auto shared = std::make_shared<std::vector<Event>>(std::move(events));
    writer_->submit(std::move(stored), [this, shared, n, received, done = std::move(done)](
                                           const std::optional<Error>& error, std::vector<std::size_t> duplicates) {
        if (error) {
            // A read-only or full disk: the reporters keep their events and come back.
            log_store_failure(*error);
            done(SubmitResult::refused(503, error->message(), store_failure_retry_after));
            return;
        }
        // A copy of an event already stored (a retry whose first answer its sender never read) was not stored again,
        // and the monitor does not see it twice; its sender is answered as for the first, which is stored.
        if (!duplicates.empty()) {
            events_duplicate_ += static_cast<std::int64_t>(duplicates.size());
            std::size_t kept = 0;
            auto copy = duplicates.begin();
            for (std::size_t i = 0; i < shared->size(); ++i) {
                if (copy != duplicates.end() && *copy == i) {
                    ++copy;
                    continue;
                }
                if (kept != i) (*shared)[kept] = std::move((*shared)[i]);
                ++kept;
            }
            shared->resize(kept);
        }
        events_stored_ += static_cast<std::int64_t>(shared->size());
        const auto copies = static_cast<std::int64_t>(duplicates.size());
        // Acknowledge once the monitor has the events too, so a query after the 200 sees them.
        monitor_->post([shared, n, copies, received, done](Monitor& monitor) {
            if (!shared->empty()) monitor.ingest(*shared, received);
            done(SubmitResult::stored(n, copies));
        });
    });
}

int Collector::subscribe(ChangeListener listener) {
    std::lock_guard lock(listeners_mutex_);
    listeners_[next_listener_] = std::move(listener);
    return next_listener_++;
}

void Collector::unsubscribe(int id) {
    std::lock_guard lock(listeners_mutex_);
    listeners_.erase(id);
}

void Collector::log_store_failure(const Error& error) {
    // One line a minute while the store fails: enough to be seen, never a flood.
    const double at = now();
    double last = store_failure_logged_.load();
    if (at - last < 60 || !store_failure_logged_.compare_exchange_strong(last, at)) return;
    std::fprintf(stderr, "meshscope serve: %s (%s): answering 503 with Retry-After: %d until it can store again\n",
                 error.message().c_str(), path_.c_str(), store_failure_retry_after);
}

void Collector::notify(const Change& change) {
    std::lock_guard lock(listeners_mutex_);
    for (auto& [id, listener] : listeners_) listener(change);
}

CollectorStats Collector::stats() const {
    CollectorStats s;
    s.events_stored = events_stored_.load();
    s.events_duplicate = events_duplicate_.load();
    s.events_refused = events_refused_.load();
    s.bodies_refused = bodies_refused_.load();
    s.events_rebuilt = events_rebuilt_;
    s.events_pending = events_pending_.load();
    s.bodies_shed = bodies_shed_.load();
    s.commits = writer_->stats();
    return s;
}

namespace {
std::string communicator_labels(const std::string& job, const CommunicatorSeries& c) {
    return std::string(job_label) + "=\"" + label(job) + "\",comm_name=\"" + label(c.comm_name) + "\",nranks=\"" +
           c.nranks + "\",dim=\"" + label(c.dim) + "\",group=\"" + c.group + "\",source=\"" + label(c.source) + "\"";
}

// The per-communicator series of GET /metrics (docs/collector-metrics.md, "Per-communicator series").
void write_communicator_series(std::ostringstream& out,
                               const std::vector<std::pair<std::string, nlohmann::json>>& communicators) {
    std::vector<JobCommunicators> jobs;
    for (const auto& [job, json] : communicators) jobs.push_back(communicator_series(job, json));
    std::vector<std::vector<std::string>> labels;
    for (const JobCommunicators& job : jobs) {
        labels.emplace_back();
        for (const CommunicatorSeries& c : job.series) labels.back().push_back(communicator_labels(job.job, c));
    }
    out << "# HELP " << communicator_ranks_metric
        << " Ranks of each communicator of a job that reported it or that the records name (nranks: its size).\n"
        << "# TYPE " << communicator_ranks_metric << " gauge\n";
    for (std::size_t j = 0; j < jobs.size(); ++j)
        for (std::size_t i = 0; i < jobs[j].series.size(); ++i)
            out << communicator_ranks_metric << "{" << labels[j][i] << "} " << jobs[j].series[i].ranks << "\n";
    out << "# HELP " << communicator_state_metric
        << " State of each communicator of a job: 1 for the state it is in, 0 for the others.\n"
        << "# TYPE " << communicator_state_metric << " gauge\n";
    for (std::size_t j = 0; j < jobs.size(); ++j)
        for (std::size_t i = 0; i < jobs[j].series.size(); ++i)
            for (const std::string_view state : communicator_states)
                out << communicator_state_metric << "{" << labels[j][i] << ",state=\"" << state << "\"} "
                    << (jobs[j].series[i].state == state ? 1 : 0) << "\n";
    out << "# HELP " << communicators_omitted_metric << " Communicators of a job past the " << communicator_series_cap
        << " written (formed ones, the others first).\n# TYPE " << communicators_omitted_metric << " gauge\n";
    for (const JobCommunicators& job : jobs)
        out << communicators_omitted_metric << "{" << job_label << "=\"" << label(job.job) << "\"} " << job.omitted
            << "\n";
}
}  // namespace

std::string Collector::metrics_text() {
    // One trip to the monitor thread for all (the caller waits for it).
    auto [jobs, ingested, communicators] = call([](const Monitor& m) {
        auto summaries = m.jobs();
        std::vector<std::pair<std::string, nlohmann::json>> comms;
        for (const JobSummary& job : summaries)
            if (auto json = m.communicators_json(job.job)) comms.emplace_back(job.job, std::move(*json));
        return std::make_tuple(std::move(summaries), m.events_ingested(), std::move(comms));
    });
    const CollectorStats s = stats();
    std::ostringstream out;
    out << "# HELP meshscope_events_ingested_total Events the monitor has ingested (rebuilt from history included).\n"
           "# TYPE meshscope_events_ingested_total counter\n"
        << "meshscope_events_ingested_total " << ingested << "\n"
        << "# HELP meshscope_events_stored_total Events stored and acknowledged since the collector started.\n"
           "# TYPE meshscope_events_stored_total counter\n"
        << "meshscope_events_stored_total " << s.events_stored << "\n"
        << "# HELP meshscope_events_duplicate_total Events not stored again since the collector started: a copy of one "
           "already stored (the same job, rank, phase, status, ts, host and pid), answered as stored.\n"
           "# TYPE meshscope_events_duplicate_total counter\n"
        << "meshscope_events_duplicate_total " << s.events_duplicate << "\n"
        << "# HELP meshscope_bodies_refused_total Request bodies refused with 400.\n"
           "# TYPE meshscope_bodies_refused_total counter\n"
        << "meshscope_bodies_refused_total " << s.bodies_refused << "\n"
        << "# HELP meshscope_bodies_shed_total Request bodies answered 503 to shed load.\n"
           "# TYPE meshscope_bodies_shed_total counter\n"
        << "meshscope_bodies_shed_total " << s.bodies_shed << "\n"
        << "# HELP meshscope_events_pending Events accepted but not yet committed and ingested.\n"
           "# TYPE meshscope_events_pending gauge\n"
        << "meshscope_events_pending " << s.events_pending << "\n"
        << "# HELP meshscope_jobs Jobs the monitor knows.\n# TYPE meshscope_jobs gauge\n"
        << "meshscope_jobs " << jobs.size() << "\n";
    out << "# HELP " << ranks_metric << " Ranks of each job by state.\n# TYPE " << ranks_metric << " gauge\n";
    for (const JobSummary& job : jobs)
        for (std::size_t i = 0; i < rank_state_kind_count; ++i)
            out << ranks_metric << "{" << job_label << "=\"" << label(job.job) << "\",state=\""
                << to_string(static_cast<RankStateKind>(i)) << "\"} " << job.states[i] << "\n";
    out << "# HELP " << findings_metric << " Findings of each job by kind.\n# TYPE " << findings_metric << " gauge\n";
    for (const JobSummary& job : jobs)
        for (std::size_t i = 0; i < finding_kind_count; ++i)
            out << findings_metric << "{" << job_label << "=\"" << label(job.job) << "\",kind=\""
                << to_string(all_finding_kinds[i]) << "\"} " << job.findings_by_kind[i] << "\n";
    write_communicator_series(out, communicators);
    out << "# HELP meshscope_store_commit_seconds Time to commit one group of requests to the history.\n"
           "# TYPE meshscope_store_commit_seconds histogram\n";
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < CommitStats::bounds.size(); ++i) {
        cumulative += s.commits.buckets[i];
        out << "meshscope_store_commit_seconds_bucket{le=\"" << CommitStats::bounds[i] << "\"} " << cumulative << "\n";
    }
    out << "meshscope_store_commit_seconds_bucket{le=\"+Inf\"} " << s.commits.commits << "\n"
        << "meshscope_store_commit_seconds_sum " << s.commits.seconds << "\n"
        << "meshscope_store_commit_seconds_count " << s.commits.commits << "\n"
        << "# HELP meshscope_store_commit_failures_total Commits that failed (their requests got 503).\n"
           "# TYPE meshscope_store_commit_failures_total counter\n"
        << "meshscope_store_commit_failures_total " << s.commits.failures << "\n";
    const std::lock_guard lock(metrics_sources_mutex_);
    for (const auto& [id, source] : metrics_sources_) out << source();
    return out.str();
}

int Collector::add_metrics_text(std::function<std::string()> fn) {
    const std::lock_guard lock(metrics_sources_mutex_);
    metrics_sources_.emplace(next_metrics_source_, std::move(fn));
    return next_metrics_source_++;
}

void Collector::remove_metrics_text(int id) {
    const std::lock_guard lock(metrics_sources_mutex_);
    metrics_sources_.erase(id);
}

}  // namespace meshscope::server
