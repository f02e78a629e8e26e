// Monitor: the live view of every job, built incrementally from events (docs/findings.md).
//
// Usage (one thread owns a Monitor; it is not thread-safe, queries return value copies):
//   meshscope::MonitorOptions options;     // (designated initializers trip -Wmissing-field-initializers)
//   options.missing_after = 30;
//   options.stale_after = 60;
//   meshscope::Monitor monitor(options);
//   monitor.set_change_listener([](const meshscope::Change& c) { push_to_websockets(to_json(c)); });
//   monitor.ingest(events, received_at);   // a parsed body; received_at: collector clock, seconds
//   monitor.import_records("j", records, received_at);  // meshscope import's findings and ranks
//   monitor.tick(now);                     // every ~0.5-1 s: missing_rank, stale_rank, straggler
//   monitor.jobs_json();                   // {"jobs": [...]}   GET /api/v1/jobs
//   monitor.job_json("j");                 // {...} or nullopt  GET /api/v1/jobs/{job}
//   monitor.ranks_json("j");               // {"ranks": [...]}  GET /api/v1/jobs/{job}/ranks
//   monitor.findings_json("j");            // {"findings": [...]} GET /api/v1/jobs/{job}/findings
//
// Cost: ingest costs O(size of the groups the event reports) plus O(ranks named by a finding it changes);
// it never rescans the job. tick(now) evaluates the time-based and statistical findings (missing_rank,
// stale_rank, straggler) with one pass over the job's ranks, so call it at a steady rate, not per event.
// Findings change only in ingest and tick, and every change is told to the listener (and kept for
// take_changes when Options::record_changes is set) in the order it happened.
//
// Rebuilding after a restart: ingest the stored events in store order with their stored received_at, then
// tick(now).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "meshscope/monitor/event.h"
#include "meshscope/monitor/finding.h"
#include "meshscope/monitor/rank_state.h"
#include "meshscope/monitor/records_import.h"

namespace meshscope {

struct MonitorOptions {
    double missing_after = 30.0;  // seconds after the job's first event before unseen ranks are missing
    double stale_after = 60.0;    // seconds without any event before a rank that has not exited is stale
    // straggler: duration > median + max(straggler_mads * 1.4826 * MAD, straggler_floor_seconds,
    //                                    straggler_floor_ratio * median), once straggler_min_peers ranks
    //                                    finished the phase. A rank still running the phase counts when it
    //                                    started that long ago (collector clock).
    double straggler_mads = 5.0;
    double straggler_floor_seconds = 1.0;
    double straggler_floor_ratio = 0.5;
    std::size_t straggler_min_peers = 8;
    // slow_group, on b = log(bus bandwidth) over a dim's groups: b < median - max(slow_group_mads * 1.4826 * MAD,
    //             log(1 / slow_group_floor_ratio)), once slow_group_min_groups groups were measured.
    double slow_group_mads = 3.0;
    double slow_group_floor_ratio = 0.25;
    std::size_t slow_group_min_groups = 3;
    bool record_changes = false;  // keep changes for take_changes()
};

struct JobSummary {
    std::string job;
    std::int64_t world_size = 0;  // the declared plan's world, else the majority of reports
    std::int64_t ranks_seen = 0;
    std::int64_t ranks_ready = 0;                              // state ready
    std::array<std::int64_t, rank_state_kind_count> states{};  // ranks by RankStateKind (pending included)
    std::int64_t findings = 0;
    std::array<std::int64_t, finding_kind_count> findings_by_kind{};
    std::int64_t events = 0;
    std::optional<double> first_event;  // collector clock (received_at)
    std::optional<double> last_event;
    std::optional<double> first_ts;  // sender's clock
    std::optional<double> last_ts;
    bool plan_declared = false;
    std::optional<ReportedTopology> topology;  // the declared plan's, else the majority's, else the records'
    // Where the ranks stand in the hang the job's imported records show (hang_position.h); none without them.
    std::optional<HangSummary> hang;
};

// {"job", "world_size", "ranks_seen", "ranks_ready", "states": {state: n}, "findings",
//  "findings_by_kind": {kind: n}, "events", "first_event", "last_event", "first_ts", "last_ts",
//  "plan_declared", "topology": {"dp","cp","ep"}, "hang": {...}} (absent optionals omitted).
[[nodiscard]] nlohmann::json to_json(const JobSummary& summary);

enum class ChangeKind {
    job_added,     // first event of a job
    rank_changed,  // a rank's state or phase changed (not told for repeated heartbeats)
    finding_added,
    finding_updated,  // same id, new ranks or message
    finding_removed,
};
inline constexpr std::size_t change_kind_count = 5;
[[nodiscard]] std::string_view to_string(ChangeKind kind) noexcept;
[[nodiscard]] std::optional<ChangeKind> parse_change_kind(std::string_view text) noexcept;

struct Change {
    ChangeKind kind = ChangeKind::rank_changed;
    std::string job;
    // rank_changed
    std::int64_t rank = -1;
    RankStateKind state = RankStateKind::pending;
    std::optional<Phase> phase;
    // finding_added / finding_updated: the finding; finding_removed: only finding.id and finding.kind
    std::optional<Finding> finding;
    friend bool operator==(const Change&, const Change&) = default;
};

// {"type": "rank_changed", "job", "rank", "state", "phase"} | {"type": "finding_added" | "finding_updated",
//  "job", "finding": {...}} | {"type": "finding_removed", "job", "id", "kind"} | {"type": "job_added", "job"}
[[nodiscard]] nlohmann::json to_json(const Change& change);

// Reads what to_json(Change) writes (monitor_json.cpp): "type" and "job" always; "rank" and "state" for
// rank_changed ("phase" optional); "finding" (optional) for finding_added and finding_updated, its fields named
// `finding.id`, ...; "id" and "kind" for finding_removed (both or neither). Exact messages as finding_from_json's;
// names this build does not know are kept as UnknownNames says (finding.h), or refused without one. A value that is
// not an object: `a change must be a JSON object`.
[[nodiscard]] Expected<Change> change_from_json(const nlohmann::json& value, UnknownNames* unknown = nullptr);

class Monitor {
public:
    using Options = MonitorOptions;
    using ChangeListener = std::function<void(const Change&)>;

    explicit Monitor(Options options = {});
    ~Monitor();
    Monitor(Monitor&&) noexcept;
    Monitor& operator=(Monitor&&) noexcept;
    Monitor(const Monitor&) = delete;
    Monitor& operator=(const Monitor&) = delete;

    [[nodiscard]] const Options& options() const noexcept;

    // Events must be valid (parse_events / event_from_json made them); received_at is the collector's clock.
    void ingest(const Event& event, double received_at);
    // A batch (one request): findings touched by several events are re-evaluated once.
    void ingest(std::span<const Event> events, double received_at);
    // What NCCL and PyTorch recorded about the job (`meshscope import`, meshscope.records/1): replaces the job's
    // earlier import. Its findings join the hook's as records/1, records/2, ... in the document's order, with their
    // sources; each rank it names joins the rank list with its host and pid where the hook gave none (a rank the hook
    // never reported stays pending, and is not missing). Creates the job when it is new.
    void import_records(const std::string& job, const RecordsImport& records, double received_at);
    // Time-based findings: missing_rank, stale_rank, straggler (and stale states).
    void tick(double now);
    // Proof of life without an event to keep (a heartbeat the collector shed under load, a relay's digest of
    // the ranks whose events it refused): the rank's last_seen moves to received_at, so tick() does not call
    // it stale, and a stale rank is alive again. A rank never seen of a known job stays pending but is no
    // longer missing (its events are on their way). `held`: a relay holds back lifecycle events of the rank
    // (refused under load), so until the next one arrives it is not judged a "still running" straggler.
    // Returns false for an unknown job or a rank never seen.
    bool seen(std::string_view job, std::int64_t rank, double received_at, bool held = false);

    // Called synchronously from ingest/tick; must not call back into the monitor.
    void set_change_listener(ChangeListener listener);
    // The changes recorded since the last call (only with Options::record_changes).
    [[nodiscard]] std::vector<Change> take_changes();

    // Queries: value copies, jobs sorted by name, ranks by rank, findings by kind then first rank then id.
    [[nodiscard]] std::vector<std::string> job_names() const;
    [[nodiscard]] std::vector<JobSummary> jobs() const;
    [[nodiscard]] std::optional<JobSummary> job(std::string_view job) const;
    // Every rank 0 .. world_size-1 (pending ones included) plus any seen rank beyond it; empty if no such job.
    // Groups are left out (a 16,384-rank job's dp groups would be gigabytes); rank() fills them in.
    [[nodiscard]] std::vector<RankState> ranks(std::string_view job) const;
    // How many rows ranks(job) holds; nullopt for an unknown job.
    [[nodiscard]] std::optional<std::size_t> rank_count(std::string_view job) const;
    // The rows of ranks(job) from position `offset`, at most `limit` of them. A page costs its own size and the
    // findings' ranks, never the world's: a job may claim 2^20 ranks with one event.
    [[nodiscard]] std::vector<RankState> ranks(std::string_view job, std::size_t offset, std::size_t limit) const;
    // One rank with its groups; nullopt for an unknown job, or a rank never seen and not below the world size.
    [[nodiscard]] std::optional<RankState> rank(std::string_view job, std::int64_t rank) const;
    [[nodiscard]] std::vector<Finding> findings(std::string_view job) const;
    [[nodiscard]] std::int64_t events_ingested() const noexcept;

    [[nodiscard]] nlohmann::json jobs_json() const;                                         // {"jobs": [...]}
    [[nodiscard]] std::optional<nlohmann::json> job_json(std::string_view job) const;       // summary or nullopt
    [[nodiscard]] std::optional<nlohmann::json> ranks_json(std::string_view job) const;     // {"ranks": [...]}
    [[nodiscard]] std::optional<nlohmann::json> findings_json(std::string_view job) const;  // {"findings": [...]}
    // meshscope-probe's measurements: {"dims": [...], "groups": [...]} (docs/probe.md); nullopt: no such job.
    [[nodiscard]] std::optional<nlohmann::json> communicators_json(std::string_view job) const;

    // Forgets a job (e.g. on a retention limit). Returns whether it existed. Tells no changes.
    bool remove_job(std::string_view job);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace meshscope
