// Collector: the live data path without the network. A body is parsed and validated (meshscope::parse_events,
// the one parser), stored durably (StoreWriter, group commit), handed to the monitor (MonitorThread), and
// only then acknowledged. `meshscope serve` puts HTTP in front of it (HttpServer, server/http); the desktop can
// embed it in-process and feed it directly. Qt-free.
//
//   auto collector = Collector::open({.database = "/tmp/h.db"}).value();
//   collector->submit(body, [](SubmitResult r) { /* r.status 200: stored and seen by the monitor */ });
//   auto findings = collector->call([](const Monitor& m) { return m.findings_json("job-1"); });
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "meshscope/monitor/body_result.h"
#include "meshscope/monitor/event.h"
#include "meshscope/monitor/monitor.h"
#include "meshscope/monitor/rank_index.h"
#include "meshscope/monitor/records_import.h"
#include "meshscope/monitor/seen_ranks.h"
#include "monitor_thread.h"
#include "parse_thread.h"
#include "store/event_store.h"
#include "store/store_writer.h"

namespace meshscope::server {

// Load shedding (docs/live-at-scale.md): watermarks on the events accepted but not yet committed and
// ingested. At or above heartbeat_shed_at, bodies made only of heartbeats are refused with 503 (the ranks
// still count as seen); at or above shed_all_at, every body is.
struct Shedding {
    std::int64_t heartbeat_shed_at = 50000;
    std::int64_t shed_all_at = 200000;
};

struct CollectorOptions {
    std::string database;  // empty: default_database_path()
    Durability durability = Durability::full;
    MonitorOptions monitor;
    EventLimits limits;
    double tick_interval = 1.0;  // seconds between monitor ticks (a tick scans every rank of every job)
    Shedding shedding;
    // Jobs the monitor keeps (memory, each tick, /metrics grow with them), and the ranks that reported in them
    // together (a rank's record, its rows and its share of each tick). The world a job claims costs nothing by
    // itself: a job of world_size 2^20 with one reporting rank counts one. A body past either makes room by
    // forgetting the finished jobs that reported last longest ago (no rank initializing or ready; their history
    // stays in the database), else it gets 503 too_many_jobs_error / too_many_ranks_error + Retry-After.
    std::size_t max_jobs = 1024;
    std::int64_t max_ranks = std::int64_t{1} << 21;  // two jobs of the largest world, sixteen of 131,072
};

// What the collector made of one request body, as data: status 200 stored; 400 refused (nothing stored); 503 shed or
// the store failed, with retry_after, the seconds after which the sender tries again (the Retry-After header). The
// JSON is written where it leaves the process: the HTTP answer (answer_body) and a batch's entry
// (meshscope::to_json(BodyResult)).
struct SubmitResult : BodyResult {
    // POST /api/v1/jobs/{job}/records: the job and the ranks the document named; `accepted` counts its findings.
    struct Records {
        std::string job;
        std::int64_t ranks = 0;
    };
    std::optional<Records> records;
    // POST /v1/logs: the log records that were not valid events (not stored; the rest were), and the first
    // one's reason (OTLP's partial success).
    struct Rejected {
        std::int64_t records = 0;
        std::string error;
    };
    std::optional<Rejected> rejected;
    // POST /api/v1/events: of the `accepted` events, those already stored (a copy: docs/collector.md, "History").
    std::int64_t duplicates = 0;

    [[nodiscard]] static SubmitResult stored(std::int64_t events, std::int64_t duplicates = 0);
    // retry_after 0: none.
    [[nodiscard]] static SubmitResult refused(int status, std::string message, int retry_after = 0);
};

// The body of the HTTP answer: {"accepted": n} (with "duplicates": k when k of them were already stored), {"job",
// "findings", "ranks"} for records, or {"error": "..."}.
[[nodiscard]] std::string answer_body(const SubmitResult& result);

// The texts of the 503 answers that shed load.
inline constexpr std::string_view heartbeat_shed_error = "collector busy: heartbeat not stored";
inline constexpr std::string_view all_shed_error = "collector busy: try again later";
// The 503 for a body that names a new job while max_jobs jobs are live and none has finished, and for one whose
// ranks new to their jobs would take the live jobs' reporting ranks past max_ranks.
[[nodiscard]] std::string too_many_jobs_error(std::size_t max_jobs);
[[nodiscard]] std::string too_many_ranks_error(std::int64_t max_ranks);
inline constexpr int too_many_jobs_retry_after = 30;
// Retry-After of the 503 for a body the store could not commit (read-only or full storage).
inline constexpr int store_failure_retry_after = 5;

struct CollectorStats {
    std::int64_t events_stored = 0;     // acknowledged since start
    std::int64_t events_duplicate = 0;  // acknowledged since start but not stored again: already were
    std::int64_t events_refused = 0;    // in bodies answered 4xx (counted per body, not per event)
    std::int64_t bodies_refused = 0;
    std::int64_t events_rebuilt = 0;  // read back from the database at start
    std::int64_t events_pending = 0;  // accepted, not yet committed and ingested (what shedding watches)
    std::int64_t bodies_shed = 0;     // answered 503 by the watermarks
    CommitStats commits;
};

class Collector {
public:
    using Done = std::function<void(SubmitResult)>;
    using ChangeListener = std::function<void(const Change&)>;

    // Opens the database and rebuilds every job from it. RuntimeError when the database cannot be opened.
    [[nodiscard]] static Expected<std::unique_ptr<Collector>> open(CollectorOptions options);
    ~Collector();  // finishes what was submitted (callbacks run), then stops its threads
    Collector(const Collector&) = delete;
    Collector& operator=(const Collector&) = delete;

    // A request body (one event, a JSON array or NDJSON). done runs exactly once: inline when shed at the
    // high watermark, else on a collector thread (the parse thread for a refused body; after the events are
    // durable and in the monitor for accepted ones). The caller's thread does no JSON work.
    void submit(std::string body, Done done);
    // Already-validated events (in-process producers); same store-then-monitor path.
    void submit(std::vector<Event> events, Done done);
    // Several request bodies at once (POST /api/v1/batches, from a relay): each body is judged alone exactly
    // as submit(body) would judge it, the accepted ones are stored in one commit, and done runs once with
    // one result per body, in order (docs/live-at-scale.md).
    using BatchDone = std::function<void(std::vector<SubmitResult>)>;
    void submit_bodies(std::vector<std::string> bodies, BatchDone done);
    // POST /api/v1/jobs/{job}/records (`meshscope import`): a meshscope.records/1 body for a valid job name,
    // judged on the parse thread (400 with records_import_from_json's message), shed and capped as events are
    // (503 with Retry-After), stored (replacing the job's earlier import), then in the monitor; done gets 200
    // {"job", "findings", "ranks"}.
    void submit_records(std::string job, std::string body, Done done);
    // POST /v1/logs: an OTLP/HTTP JSON logs request (parse_otlp_logs, on the parse thread), its valid records judged
    // and stored as submit(body) would store a body of those events (shedding, admission, the store); done gets
    // the result with `rejected` set when some records were not valid events. 400 when none is, or the request is
    // malformed.
    void submit_otlp(std::string body, Done done);
    // A relay's proof of life (a batch's "seen", and "held": those with lifecycle events waiting): each rank is
    // marked seen in the monitor at the collector's clock, as a heartbeat the collector itself sheds; nothing
    // is stored (meshscope/seen_ranks.h).
    void seen(SeenRanks seen, SeenRanks held = {});

    // Runs fn(monitor) on the monitor thread and returns its result (queries).
    template <typename F>
    auto call(F fn) {
        return monitor_->call([fn = std::move(fn)](Monitor& m) { return fn(static_cast<const Monitor&>(m)); });
    }
    // Runs fn(monitor) on the monitor thread and hands its result to then(result) there, without waiting
    // (the network thread's queries).
    template <typename F, typename Then>
    void query(F fn, Then then) {
        monitor_->post([fn = std::move(fn), then = std::move(then)](Monitor& m) mutable {
            then(fn(static_cast<const Monitor&>(m)));
        });
    }

    // Every monitor change, called on the monitor thread (keep it short: copy and hand over). Returns an
    // id for unsubscribe().
    int subscribe(ChangeListener listener);
    void unsubscribe(int id);

    [[nodiscard]] CollectorStats stats() const;
    // Prometheus text: ranks by state, findings by kind, events ingested, store latency, then what each
    // add_metrics_text source writes.
    [[nodiscard]] std::string metrics_text();
    // More Prometheus text for GET /metrics from a part that runs beside the collector (the OTLP exporter's
    // counters): fn runs on the thread that asks for the metrics and must not call back into the collector.
    // Returns an id for remove_metrics_text(), which waits for no call in progress: remove before fn's owner dies.
    int add_metrics_text(std::function<std::string()> fn);
    void remove_metrics_text(int id);
    [[nodiscard]] const std::string& database_path() const noexcept { return path_; }
    [[nodiscard]] const CollectorOptions& options() const noexcept { return options_; }

    // The collector's clock: seconds since the Unix epoch.
    [[nodiscard]] static double now();

private:
    Collector() = default;
    // stored[i] is events[i] as stored (same order, same size): heartbeats are told apart by events[i].phase.
    void store_and_ingest(std::vector<Event> events, std::vector<StoredEvent> stored, Done done);
    void notify(const Change& change);
    void log_store_failure(const Error& error);  // to stderr, at most once a minute
    // On the parse thread: parse and validate one body, apply the heartbeat watermark, store the events.
    void judge(std::string_view body, Done done);
    void judge_bodies(std::vector<std::string> bodies, BatchDone done);
    // collector_batch.cpp: the watermarks, and the pending-event count they watch.
    [[nodiscard]] std::optional<SubmitResult> shed_all();
    [[nodiscard]] std::optional<SubmitResult> shed_heartbeats(const std::vector<Event>& events, double received);
    [[nodiscard]] Done counted(std::int64_t events, Done done);
    // On the parse thread: admits the jobs and ranks of a body it is about to store, forgetting finished jobs to
    // make room under max_jobs and max_ranks; the 503 when there is none.
    [[nodiscard]] std::optional<SubmitResult> admit_jobs(const std::vector<Event>& events);
    // The same for an import whose document lists these ranks.
    [[nodiscard]] std::optional<SubmitResult> admit_records(const std::string& job, std::vector<std::int64_t> ranks);
    // job -> the distinct ranks the body names in it, sorted.
    using RanksByJob = std::unordered_map<std::string_view, std::vector<std::int64_t>>;
    [[nodiscard]] std::optional<SubmitResult> admit_grown(RanksByJob named);
    void judge_records(std::string job, std::string_view body, Done done);
    void judge_otlp(std::string_view body, Done done);

    CollectorOptions options_;
    std::string path_;
    std::unique_ptr<StoreWriter> writer_;
    std::unique_ptr<MonitorThread> monitor_;
    std::unique_ptr<ParseThread> parser_;
    std::mutex listeners_mutex_;
    std::map<int, ChangeListener> listeners_;
    int next_listener_ = 1;
    std::mutex metrics_sources_mutex_;  // held while a source writes, so that removing one waits for it
    std::map<int, std::function<std::string()>> metrics_sources_;
    int next_metrics_source_ = 1;
    std::atomic<std::int64_t> events_stored_{0};
    std::atomic<std::int64_t> events_duplicate_{0};
    std::atomic<std::int64_t> events_refused_{0};
    std::atomic<std::int64_t> bodies_refused_{0};
    std::atomic<std::int64_t> events_pending_{0};
    std::atomic<std::int64_t> bodies_shed_{0};
    std::int64_t events_rebuilt_ = 0;
    std::atomic<double> store_failure_logged_{-1e9};
    // Parse thread: the jobs whose events it let through, each with the ranks that reported in it, and how many
    // ranks that is in all.
    std::unordered_map<std::string, RankIndex> admitted_jobs_;
    std::int64_t admitted_ranks_ = 0;
};

// Forgets finished jobs of the monitor (no rank initializing or ready), those whose last event is oldest first,
// until `jobs` of them and `ranks` of their reporting ranks (world_of(name)) are gone or none is left; returns their
// names.
std::vector<std::string> forget_finished_jobs(Monitor& monitor, std::size_t jobs, std::int64_t ranks,
                                              const std::function<std::int64_t(const std::string&)>& world_of);

// The per-job gauges GET /metrics writes and the OTLP export sends (docs/collector-metrics.md, "OTLP export"): their
// names, and the label (attribute) that carries the job. The job goes under NCCL Inspector's name for it, slurm_job_id
// (under srun the reporters name the job after SLURM_JOB_ID), so that one Grafana board joins both; a plain `job` label
// would also clash with the one Prometheus gives every scraped series.
inline constexpr std::string_view ranks_metric = "meshscope_ranks";
inline constexpr std::string_view findings_metric = "meshscope_findings";
inline constexpr std::string_view job_label = "slurm_job_id";

// An event as the store keeps it, received at `received`: its protocol JSON, whether it is a heartbeat, its identity.
[[nodiscard]] StoredEvent stored_event(const Event& event, double received);

// {"error": message} as the API writes it.
[[nodiscard]] std::string error_body(std::string_view message);

}  // namespace meshscope::server
