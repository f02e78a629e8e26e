// EventStore: the history of every job in one SQLite file (WAL). Each stored event is its protocol JSON
// (meshscope::to_json) with the collector's receive time, so a restart, `replay` and `export` rebuild
// what the monitor saw. One EventStore is one connection: use it from one thread at a time (the
// StoreWriter owns the collector's; readers open their own).
//
// Schema meshscope.history/4 (docs/collector.md, "History"): every event but heartbeats is one row of
// `events`, in store order, and at most once: an event with the identity of one already stored (event_identity: the
// same job, rank, phase, status, sender's ts, host and pid) is not stored again (a unique index); heartbeats are not
// history rows but one summary per rank in `heartbeats` (how many, the first and last receive time, and the last one's
// JSON). A heartbeat is appended to `heartbeat_log` in the same transaction as the events it arrived with, and the log
// is folded into the summaries every heartbeat_fold_rows heartbeats: appending keeps each commit to the few pages at
// the log's end, where upserting a summary per heartbeat wrote a page of the summaries per heartbeat
// (docs/benchmarks.md). A job's records put in by `meshscope import` are one row of `records` (created in any /3 file
// that lacks it). Readers see summaries and log as one. A 16,384-rank job heartbeating every 5 s for a day keeps 16,384
// summaries and at most heartbeat_fold_rows log rows, not 283 M rows. A meshscope.history/1, /2 or /3 file is migrated
// when opened.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "meshscope/mesh/error.h"
#include "meshscope/monitor/event.h"

struct sqlite3;
struct sqlite3_stmt;

namespace meshscope::server {

inline constexpr const char* history_schema = "meshscope.history/4";

// Heartbeats logged before the store writer folds them into the summaries (20 s of a 16,384-rank job's; a
// fold of that many takes about 0.1 s).
inline constexpr std::int64_t heartbeat_fold_rows = 65536;

struct StoredEvent {
    std::string job;
    std::int64_t rank = 0;
    double received = 0;        // collector clock, seconds since the Unix epoch
    std::string json;           // the event as protocol JSON, one line
    bool heartbeat = false;     // phase heartbeat: kept as the rank's heartbeat summary, not as a row of events
    std::string identity = {};  // event_identity(); empty: none, never taken for a copy (heartbeats, events without ts)
};

// What makes a lifecycle event the same as one already stored, with its job and rank: its phase, status, the sender's
// ts (taken when it happened), host and pid, as a JSON array (["ready","done",1765000000.25,"node3",4711]). A
// retry carries the same identity (the reporters resend an event as it was), a new event never does (its ts differs),
// nor does a second process claiming the rank (its host or pid differs: duplicate_rank still sees it). Empty, so never
// a copy, for a heartbeat (its summary counts it; docs/collector.md, "History") and for an event without ts, which
// could not be told from a later one of the same phase.
[[nodiscard]] std::string event_identity(const Event& event);
[[nodiscard]] std::string event_identity(std::string_view phase, std::string_view status, std::optional<double> ts,
                                         const std::optional<std::string>& host, std::optional<std::int64_t> pid);

// One rank's heartbeats: how many were stored, when the first and the last arrived, and the last one.
struct StoredHeartbeat {
    std::string job;
    std::int64_t rank = 0;
    std::int64_t count = 0;
    double first_received = 0;
    double last_received = 0;
    std::string json;  // the last heartbeat (latest received; the later one in store order on a tie)
};

// What `meshscope import` put into a job (meshscope.records/1, as received): one row per job, replaced by the
// job's next import.
struct StoredRecords {
    std::string job;
    double received = 0;
    std::string json;
};

struct StoredJob {
    std::string job;
    std::int64_t events = 0;      // every event stored, heartbeats included (as count())
    std::int64_t heartbeats = 0;  // of which heartbeats
    double first_received = 0;
    double last_received = 0;
};

enum class Durability {
    full,    // synchronous=FULL: a commit survives power loss (the collector's default)
    normal,  // synchronous=NORMAL: survives a crash of the process, not of the machine
};

class EventStore {
public:
    // Opens or creates the database (and its parent folder) and its schema; migrates a
    // meshscope.history/1 file (its heartbeat rows become the ranks' heartbeat summaries), a /2 or a /3 one (each
    // stored event gains its identity; of copies stored before, the first).
    // RuntimeError "cannot open history database {path}: {sqlite message}", or
    // "cannot open history database {path}: schema {name} is not meshscope.history/1, /2, /3 or /4".
    [[nodiscard]] static Expected<std::unique_ptr<EventStore>> open(const std::string& path,
                                                                    Durability durability = Durability::full);
    ~EventStore();
    EventStore(const EventStore&) = delete;
    EventStore& operator=(const EventStore&) = delete;

    // Stores all events in one transaction: all or none. Events marked heartbeat count towards their rank's
    // heartbeat summary (count + 1, first/last receive time, the latest JSON); the others are appended to
    // the history, except one whose identity is already stored (earlier, or before it in `events`): that one is
    // not stored again, and its index in `events` goes to `duplicates` (in order) when given. RuntimeError "cannot
    // store events: {sqlite message}" on failure (nothing was stored).
    [[nodiscard]] std::optional<Error> append(std::span<const StoredEvent> events,
                                              std::vector<std::size_t>* duplicates = nullptr);
    // Folds the heartbeat log into the summaries in one transaction (readers see the same summaries before
    // and after). RuntimeError "cannot fold heartbeats: {sqlite message}"; the log is kept then.
    [[nodiscard]] std::optional<Error> fold_heartbeats();
    // Heartbeats in the log: a fold is due at heartbeat_fold_rows.
    [[nodiscard]] std::int64_t logged_heartbeats() const noexcept { return log_rows_; }

    // Jobs in the order they were first stored (a job known only from heartbeats comes last).
    [[nodiscard]] std::vector<StoredJob> jobs() const;
    // Events stored for `job` (all jobs: count_all), heartbeats included: the rows of `events` plus every
    // rank's heartbeat count. This is how many events were acknowledged, not how many rows there are.
    [[nodiscard]] std::int64_t count(const std::string& job) const;
    [[nodiscard]] std::int64_t count_all() const;
    // Every stored event of `job` (all jobs when empty) but heartbeats, in the order it was stored; the
    // visitor may stop the walk by returning false. RuntimeError "cannot read history database FILE: ..." when
    // a row cannot be read (a damaged file): the walk never ends early as if the history ended there.
    std::optional<Error> for_each(const std::string& job, const std::function<bool(const StoredEvent&)>& visit) const;
    // Every rank's heartbeat summary of `job` (all jobs when empty), by job then rank; the visitor may stop
    // the walk by returning false. A rebuild replays these after for_each, each at its last_received. Errors as
    // for_each.
    std::optional<Error> for_each_heartbeat(const std::string& job,
                                            const std::function<bool(const StoredHeartbeat&)>& visit) const;

    // Stores a job's imported records in one transaction, replacing the job's earlier ones. RuntimeError
    // "cannot store records: {sqlite message}" on failure (the earlier ones are kept).
    [[nodiscard]] std::optional<Error> put_records(const StoredRecords& records);
    // Every job's imported records (all jobs when `job` is empty), in the order they were last stored. Errors as
    // for_each.
    std::optional<Error> for_each_records(const std::string& job,
                                          const std::function<bool(const StoredRecords&)>& visit) const;

    [[nodiscard]] const std::string& path() const noexcept { return path_; }

private:
    EventStore() = default;
    sqlite3* db_ = nullptr;
    std::string path_;
    // append()'s statements, prepared once: at thousands of heartbeats a second, preparing them per commit
    // was a fifth of the writer's CPU (docs/benchmarks.md, "Collector start-up storm").
    sqlite3_stmt* begin_ = nullptr;
    sqlite3_stmt* commit_ = nullptr;
    sqlite3_stmt* rollback_ = nullptr;
    sqlite3_stmt* insert_ = nullptr;
    sqlite3_stmt* log_ = nullptr;
    std::int64_t log_rows_ = 0;
};

// $XDG_DATA_HOME/meshscope/history.db, else ~/.local/share/meshscope/history.db (the per-user data path).
[[nodiscard]] std::string default_database_path();

}  // namespace meshscope::server
