#include "event_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

namespace meshscope::server {

namespace {
// 64 MiB of page cache (SQLite's default is 2 MiB): the heartbeats table of a 16,384-rank job (about 5 MB, one
// row per rank, each fold upserting rows spread over all its pages) stays in memory instead of being read
// back with pread() at every fold. The WAL is reset after each checkpoint (every ~1,000 pages, SQLite's
// default), so it stays near the size of the largest commit; a long reader (export) can hold a checkpoint back
// and let it grow, and this limit truncates it again afterwards.
constexpr const char* connection_sql = R"sql(
PRAGMA journal_mode = WAL;
PRAGMA journal_size_limit = 67108864;
PRAGMA cache_size = -65536;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS records (
  job TEXT PRIMARY KEY,
  received REAL NOT NULL,
  document TEXT NOT NULL
);
)sql";

constexpr const char* tables_sql = R"sql(
CREATE TABLE IF NOT EXISTS events (
  id INTEGER PRIMARY KEY,
  job TEXT NOT NULL,
  rank INTEGER NOT NULL,
  received REAL NOT NULL,
  event TEXT NOT NULL,
  identity TEXT
);
CREATE INDEX IF NOT EXISTS events_by_job ON events (job, id);
CREATE TABLE IF NOT EXISTS heartbeats (
  job TEXT NOT NULL,
  rank INTEGER NOT NULL,
  count INTEGER NOT NULL,
  first_received REAL NOT NULL,
  last_received REAL NOT NULL,
  event TEXT NOT NULL,
  PRIMARY KEY (job, rank)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS heartbeat_log (
  id INTEGER PRIMARY KEY,
  job TEXT NOT NULL,
  rank INTEGER NOT NULL,
  received REAL NOT NULL,
  event TEXT NOT NULL
);
)sql";

// Folds the heartbeat log into the summaries: per rank, how many, the first and last receive time and the
// latest one (the later in store order on a tie), merged with the rank's summary by the same rules. The rules
// are heartbeat_summaries' (below); selecting from that view instead, which also reads every summary, cost the
// writer a quarter more CPU per heartbeat (bench_history, 6.8 against 8.5 µs), and tst_store checks that both
// give the same summaries.
constexpr const char* fold_sql = R"sql(
INSERT INTO heartbeats (job, rank, count, first_received, last_received, event)
  SELECT job, rank, n, first, last, event FROM (
    SELECT job, rank, event,
           COUNT(*) OVER ranks AS n,
           MIN(received) OVER ranks AS first,
           MAX(received) OVER ranks AS last,
           ROW_NUMBER() OVER (PARTITION BY job, rank ORDER BY received DESC, id DESC) AS newest
    FROM heartbeat_log WINDOW ranks AS (PARTITION BY job, rank))
  WHERE newest = 1
  ON CONFLICT (job, rank) DO UPDATE SET
    count = count + excluded.count,
    first_received = MIN(first_received, excluded.first_received),
    last_received = MAX(last_received, excluded.last_received),
    event = CASE WHEN excluded.last_received >= last_received THEN excluded.event ELSE event END;
DELETE FROM heartbeat_log;
)sql";

// What readers see of the heartbeats: the summaries and the log not yet folded, as one summary per rank
// (per connection; TEMP views write nothing to the file).
constexpr const char* views_sql = R"sql(
CREATE TEMP VIEW IF NOT EXISTS heartbeat_rows AS
  SELECT job, rank, count, first_received, last_received, event, 0 AS log_id FROM main.heartbeats
  UNION ALL
  SELECT job, rank, 1, received, received, event, id FROM main.heartbeat_log;
CREATE TEMP VIEW IF NOT EXISTS heartbeat_summaries AS
  SELECT job, rank, n AS count, first AS first_received, last AS last_received, event FROM (
    SELECT job, rank, event,
           SUM(count) OVER ranks AS n,
           MIN(first_received) OVER ranks AS first,
           MAX(last_received) OVER ranks AS last,
           ROW_NUMBER() OVER (PARTITION BY job, rank ORDER BY last_received DESC, log_id DESC) AS newest
    FROM heartbeat_rows WINDOW ranks AS (PARTITION BY job, rank))
  WHERE newest = 1;
)sql";

// meshscope.history/1 kept heartbeats as rows of `events`: move them to the heartbeat log in store order and
// fold it, as appending them would have.
constexpr const char* migrate_from_1_sql = R"sql(
INSERT INTO heartbeat_log (job, rank, received, event)
  SELECT job, rank, received, event FROM events
  WHERE CASE WHEN json_valid(event) THEN json_extract(event, '$.phase') END = 'heartbeat' ORDER BY id;
DELETE FROM events WHERE id IN (SELECT id FROM events
  WHERE CASE WHEN json_valid(event) THEN json_extract(event, '$.phase') END = 'heartbeat');
)sql";

// Each event at most once (event_identity): the rows without one (NULL) never conflict, and take no room in the index.
constexpr const char* identity_index_sql =
    "CREATE UNIQUE INDEX IF NOT EXISTS events_once ON events (job, rank, identity) WHERE identity IS NOT NULL;";

// Prepared statement that finalizes itself.
class Statement {
public:
    Statement(sqlite3* db, const char* sql) { sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr); }
    ~Statement() { sqlite3_finalize(stmt_); }
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    sqlite3_stmt* get() const { return stmt_; }
    explicit operator bool() const { return stmt_ != nullptr; }

private:
    sqlite3_stmt* stmt_ = nullptr;
};

Error sqlite_error(sqlite3* db, const std::string& what) {
    return RuntimeError(what + ": " + (db ? sqlite3_errmsg(db) : "out of memory"));
}

bool corrupt(sqlite3* db) {
    return db && (sqlite3_errcode(db) & 0xff) == SQLITE_CORRUPT;
}

// What to run on a damaged history: SQLite's own recovery into a new file, which the collector can then open.
std::string recover_hint(const std::string& path) {
    return "recover what it holds with: sqlite3 " + path + " .recover | sqlite3 " + path +
           ".recovered, then use --db " + path + ".recovered";
}

// A row that cannot be read: never taken for the end of the history.
Error read_error(sqlite3* db, const std::string& path) {
    std::string text = "cannot read history database " + path + ": " + sqlite3_errmsg(db);
    if (corrupt(db)) text += ": " + recover_hint(path);
    return RuntimeError(text);
}

std::string text_column(sqlite3_stmt* stmt, int column) {
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, column));
    return text ? std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(stmt, column))) : std::string();
}

void bind_text(sqlite3_stmt* stmt, int index, const std::string& text) {
    sqlite3_bind_text(stmt, index, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
}

// Runs sql; nullopt when it succeeded, else SQLite's message.
std::optional<std::string> exec(sqlite3* db, const char* sql) {
    char* message = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &message) == SQLITE_OK) return std::nullopt;
    std::string text = message ? message : sqlite3_errmsg(db);
    sqlite3_free(message);
    return text;
}

// The schema name in meta; nullopt for a database without one (new).
std::optional<std::string> schema_name(sqlite3* db) {
    Statement query(db, "SELECT value FROM meta WHERE key = 'schema'");
    if (query && sqlite3_step(query.get()) == SQLITE_ROW) return text_column(query.get(), 0);
    return std::nullopt;
}

// Gives every stored event of an older file its identity, in store order: of copies stored before the identities (a
// rank's retry), the first gets it and the others keep none, so that the history stays as it was and a copy sent
// from now on is not stored. Read 4,096 rows at a time, so a large history is not held in memory.
std::optional<std::string> add_identities(sqlite3* db) {
    Statement read(db, "SELECT id, event FROM events WHERE id > ?1 ORDER BY id LIMIT 4096");
    Statement write(db, "UPDATE OR IGNORE events SET identity = ?2 WHERE id = ?1");
    if (!read || !write) return std::string(sqlite3_errmsg(db));
    std::vector<std::pair<std::int64_t, std::string>> rows;
    std::int64_t after = -1;
    std::size_t read_rows = 0;
    do {
        rows.clear();
        read_rows = 0;
        sqlite3_bind_int64(read.get(), 1, after);
        int step = SQLITE_ROW;
        while ((step = sqlite3_step(read.get())) == SQLITE_ROW) {
            ++read_rows;
            after = sqlite3_column_int64(read.get(), 0);
            const auto json = nlohmann::json::parse(text_column(read.get(), 1), nullptr, false);
            if (!json.is_object()) continue;  // a row that does not read keeps no identity, as it rebuilds nothing
            const auto text = [&](const char* key) -> std::optional<std::string> {
                const auto it = json.find(key);
                return it != json.end() && it->is_string() ? std::optional(it->get<std::string>()) : std::nullopt;
            };
            const auto ts = json.find("ts");
            const auto pid = json.find("pid");
            std::string identity = event_identity(
                text("phase").value_or(""), text("status").value_or(""),
                ts != json.end() && ts->is_number() ? std::optional(ts->get<double>()) : std::nullopt, text("host"),
                pid != json.end() && pid->is_number_integer() ? std::optional(pid->get<std::int64_t>()) : std::nullopt);
            if (!identity.empty()) rows.emplace_back(after, std::move(identity));
        }
        sqlite3_reset(read.get());
        if (step != SQLITE_DONE) return std::string(sqlite3_errmsg(db));
        for (const auto& [id, identity] : rows) {
            sqlite3_bind_int64(write.get(), 1, id);
            bind_text(write.get(), 2, identity);
            const int done = sqlite3_step(write.get());
            sqlite3_reset(write.get());
            if (done != SQLITE_DONE) return std::string(sqlite3_errmsg(db));
        }
    } while (read_rows > 0);
    return std::nullopt;
}

// Creates the tables of a new database or migrates an older one, in one transaction. Nullopt when done,
// else the reason.
std::optional<std::string> prepare_schema(sqlite3* db) {
    if (auto error = exec(db, connection_sql)) return error;
    if (schema_name(db) == history_schema) return std::nullopt;  // the common case: no write lock taken
    if (auto error = exec(db, "BEGIN IMMEDIATE")) return error;
    const std::optional<std::string> name = schema_name(db);  // again, now that no one else can write
    std::optional<std::string> error;
    if (name && *name != "meshscope.history/1" && *name != "meshscope.history/2" && *name != "meshscope.history/3" &&
        *name != history_schema) {
        error = "schema " + *name + " is not meshscope.history/1, /2, /3 or /4";
    } else if (!(error = exec(db, tables_sql))) {
        // /3 lacks only the events' identities; /2 also the heartbeat log (created above); /1 also kept heartbeats as
        // rows of events.
        if (name) error = exec(db, "ALTER TABLE events ADD COLUMN identity TEXT");
        if (!error && name && *name == "meshscope.history/1" && !(error = exec(db, migrate_from_1_sql)))
            error = exec(db, fold_sql);
        if (!error) error = exec(db, identity_index_sql);
        if (!error && name) error = add_identities(db);
        if (!error && !name)
            error = exec(db, "INSERT INTO meta (key, value) VALUES ('schema', 'meshscope.history/4')");
        else if (!error)
            error = exec(db, "UPDATE meta SET value = 'meshscope.history/4' WHERE key = 'schema'");
    }
    if (!error) error = exec(db, "COMMIT");
    if (error) sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    return error;
}

// PRAGMA quick_check's first complaint about a damaged file, or nullopt when it passes (or is no SQLite file at
// all, which prepare_schema then says as before).
std::optional<std::string> damage(sqlite3* db) {
    Statement query(db, "PRAGMA quick_check(1)");
    const int step = query ? sqlite3_step(query.get()) : SQLITE_ERROR;
    if (step == SQLITE_ROW) {
        std::string result = text_column(query.get(), 0);
        if (result == "ok") return std::nullopt;
        std::replace(result.begin(), result.end(), '\n', ' ');
        return result;
    }
    if (corrupt(db)) return std::string(sqlite3_errmsg(db));
    return std::nullopt;
}

std::int64_t single_integer(sqlite3* db, const char* sql, const std::string& job) {
    Statement query(db, sql);
    if (!query) return 0;
    if (!job.empty()) bind_text(query.get(), 1, job);
    return sqlite3_step(query.get()) == SQLITE_ROW ? sqlite3_column_int64(query.get(), 0) : 0;
}
}  // namespace

std::string event_identity(std::string_view phase, std::string_view status, std::optional<double> ts,
                           const std::optional<std::string>& host, std::optional<std::int64_t> pid) {
    if (!ts || phase == to_string(Phase::heartbeat)) return {};
    nlohmann::json identity = nlohmann::json::array({phase, status, *ts, nullptr, nullptr});
    if (host) identity[3] = *host;
    if (pid) identity[4] = *pid;
    return identity.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string event_identity(const Event& event) {
    if (!event.ts || event.phase == Phase::heartbeat) return {};
    return event_identity(to_string(event.phase), to_string(event.status), event.ts, event.host, event.pid);
}

std::string default_database_path() {
    namespace fs = std::filesystem;
    if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg)
        return (fs::path(xdg) / "meshscope" / "history.db").string();
    if (const char* home = std::getenv("HOME"); home && *home)
        return (fs::path(home) / ".local" / "share" / "meshscope" / "history.db").string();
    return "meshscope-history.db";
}

Expected<std::unique_ptr<EventStore>> EventStore::open(const std::string& path, Durability durability) {
    std::error_code ec;
    const auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    std::unique_ptr<EventStore> store(new EventStore());
    store->path_ = path;
    const int rc = sqlite3_open_v2(path.c_str(), &store->db_,
                                   SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) return sqlite_error(store->db_, "cannot open history database " + path);
    sqlite3_busy_timeout(store->db_, 5000);
    // A damaged file is refused whole, with the way out: read on, it would give back part of the history and
    // look complete.
    if (auto damaged = damage(store->db_))
        return RuntimeError("cannot open history database " + path +
                            ": it is damaged (PRAGMA quick_check: " + *damaged + "): " + recover_hint(path));
    if (auto error = prepare_schema(store->db_))
        return RuntimeError("cannot open history database " + path + ": " + *error);
    if (auto error = exec(store->db_, views_sql))
        return RuntimeError("cannot open history database " + path + ": " + *error);
    store->log_rows_ = single_integer(store->db_, "SELECT COUNT(*) FROM heartbeat_log", {});
    const char* sync = durability == Durability::full ? "PRAGMA synchronous = FULL;" : "PRAGMA synchronous = NORMAL;";
    sqlite3_exec(store->db_, sync, nullptr, nullptr, nullptr);
    return store;
}

EventStore::~EventStore() {
    for (sqlite3_stmt* stmt : {begin_, commit_, rollback_, insert_, log_}) sqlite3_finalize(stmt);
    sqlite3_close_v2(db_);
}

namespace {
// Prepares `sql` into `stmt` once (SQLITE_PREPARE_PERSISTENT: it lives as long as the store); reset after use.
bool prepared(sqlite3* db, sqlite3_stmt*& stmt, const char* sql) {
    if (stmt) return true;
    return sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr) == SQLITE_OK;
}

// Runs a prepared statement that returns no rows.
bool run(sqlite3_stmt* stmt) {
    const bool done = sqlite3_step(stmt) == SQLITE_DONE;
    sqlite3_reset(stmt);
    return done;
}
}  // namespace

std::optional<Error> EventStore::append(std::span<const StoredEvent> events, std::vector<std::size_t>* duplicates) {
    if (events.empty()) return std::nullopt;
    // A copy of a stored event is no error and changes nothing: the unique index on the identity says it is one.
    if (!prepared(db_, begin_, "BEGIN IMMEDIATE") || !prepared(db_, commit_, "COMMIT") ||
        !prepared(db_, rollback_, "ROLLBACK") ||
        !prepared(db_, insert_,
                  "INSERT INTO events (job, rank, received, event, identity) VALUES (?1, ?2, ?3, ?4, ?5) "
                  "ON CONFLICT (job, rank, identity) WHERE identity IS NOT NULL DO NOTHING") ||
        !prepared(db_, log_, "INSERT INTO heartbeat_log (job, rank, received, event) VALUES (?1, ?2, ?3, ?4)"))
        return sqlite_error(db_, "cannot store events");
    if (!run(begin_)) return sqlite_error(db_, "cannot store events");
    std::optional<Error> error;
    std::int64_t logged = 0;
    std::vector<std::size_t> copies;
    for (std::size_t i = 0; i < events.size(); ++i) {
        const StoredEvent& e = events[i];
        sqlite3_stmt* stmt = e.heartbeat ? log_ : insert_;
        logged += e.heartbeat ? 1 : 0;
        bind_text(stmt, 1, e.job);
        sqlite3_bind_int64(stmt, 2, e.rank);
        sqlite3_bind_double(stmt, 3, e.received);
        bind_text(stmt, 4, e.json);
        if (!e.heartbeat && !e.identity.empty()) bind_text(stmt, 5, e.identity);
        const bool stored = sqlite3_step(stmt) == SQLITE_DONE;
        if (!stored)
            error = sqlite_error(db_, "cannot store events");
        else if (!e.heartbeat && !e.identity.empty() && sqlite3_changes(db_) == 0)
            copies.push_back(i);
        sqlite3_reset(stmt);
        sqlite3_clear_bindings(stmt);
        if (error) break;
    }
    if (!error && !run(commit_)) error = sqlite_error(db_, "cannot store events");
    if (error) {
        run(rollback_);
        return error;
    }
    log_rows_ += logged;
    if (duplicates) *duplicates = std::move(copies);
    return std::nullopt;
}

std::optional<Error> EventStore::fold_heartbeats() {
    if (log_rows_ == 0) return std::nullopt;
    std::optional<std::string> error = exec(db_, "BEGIN IMMEDIATE");
    if (!error) error = exec(db_, fold_sql);
    if (!error) error = exec(db_, "COMMIT");
    if (error) {
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        return RuntimeError("cannot fold heartbeats: " + *error);
    }
    log_rows_ = 0;
    return std::nullopt;
}

std::vector<StoredJob> EventStore::jobs() const {
    std::vector<StoredJob> out;
    std::map<std::string, std::size_t> index;
    Statement events(db_,
                     "SELECT job, COUNT(*), MIN(received), MAX(received) FROM events GROUP BY job ORDER BY MIN(id)");
    if (!events) return out;
    while (sqlite3_step(events.get()) == SQLITE_ROW) {
        index[text_column(events.get(), 0)] = out.size();
        out.push_back({text_column(events.get(), 0), sqlite3_column_int64(events.get(), 1), 0,
                       sqlite3_column_double(events.get(), 2), sqlite3_column_double(events.get(), 3)});
    }
    Statement heartbeats(db_,
                         "SELECT job, SUM(count), MIN(first_received), MAX(last_received) FROM heartbeat_rows "
                         "GROUP BY job ORDER BY job");
    if (!heartbeats) return out;
    while (sqlite3_step(heartbeats.get()) == SQLITE_ROW) {
        const std::string job = text_column(heartbeats.get(), 0);
        const std::int64_t n = sqlite3_column_int64(heartbeats.get(), 1);
        const double first = sqlite3_column_double(heartbeats.get(), 2);
        const double last = sqlite3_column_double(heartbeats.get(), 3);
        const auto it = index.find(job);
        if (it == index.end()) {
            out.push_back({job, n, n, first, last});
            continue;
        }
        StoredJob& j = out[it->second];
        j.events += n;
        j.heartbeats = n;
        j.first_received = std::min(j.first_received, first);
        j.last_received = std::max(j.last_received, last);
    }
    return out;
}

// One statement, so both tables are read in one snapshot while the writer commits.
std::int64_t EventStore::count(const std::string& job) const {
    return single_integer(db_,
                          "SELECT (SELECT COUNT(*) FROM events WHERE job = ?1) + "
                          "(SELECT COALESCE(SUM(count), 0) FROM heartbeat_rows WHERE job = ?1)",
                          job);
}

std::int64_t EventStore::count_all() const {
    return single_integer(
        db_, "SELECT (SELECT COUNT(*) FROM events) + (SELECT COALESCE(SUM(count), 0) FROM heartbeat_rows)", {});
}

std::optional<Error> EventStore::for_each(const std::string& job,
                                          const std::function<bool(const StoredEvent&)>& visit) const {
    Statement query(db_, job.empty() ? "SELECT job, rank, received, event FROM events ORDER BY id"
                                     : "SELECT job, rank, received, event FROM events WHERE job = ?1 ORDER BY id");
    if (!query) return read_error(db_, path_);
    if (!job.empty()) bind_text(query.get(), 1, job);
    StoredEvent e;
    int step = SQLITE_ROW;
    while ((step = sqlite3_step(query.get())) == SQLITE_ROW) {
        e.job = text_column(query.get(), 0);
        e.rank = sqlite3_column_int64(query.get(), 1);
        e.received = sqlite3_column_double(query.get(), 2);
        e.json = text_column(query.get(), 3);
        if (!visit(e)) return std::nullopt;
    }
    if (step != SQLITE_DONE) return read_error(db_, path_);
    return std::nullopt;
}

std::optional<Error> EventStore::for_each_heartbeat(const std::string& job,
                                                    const std::function<bool(const StoredHeartbeat&)>& visit) const {
    Statement query(db_, job.empty() ? "SELECT job, rank, count, first_received, last_received, event "
                                       "FROM heartbeat_summaries ORDER BY job, rank"
                                     : "SELECT job, rank, count, first_received, last_received, event "
                                       "FROM heartbeat_summaries WHERE job = ?1 ORDER BY job, rank");
    if (!query) return read_error(db_, path_);
    if (!job.empty()) bind_text(query.get(), 1, job);
    StoredHeartbeat h;
    int step = SQLITE_ROW;
    while ((step = sqlite3_step(query.get())) == SQLITE_ROW) {
        h.job = text_column(query.get(), 0);
        h.rank = sqlite3_column_int64(query.get(), 1);
        h.count = sqlite3_column_int64(query.get(), 2);
        h.first_received = sqlite3_column_double(query.get(), 3);
        h.last_received = sqlite3_column_double(query.get(), 4);
        h.json = text_column(query.get(), 5);
        if (!visit(h)) return std::nullopt;
    }
    if (step != SQLITE_DONE) return read_error(db_, path_);
    return std::nullopt;
}

std::optional<Error> EventStore::put_records(const StoredRecords& records) {
    // The row moves to the end of the rowid order, so a rebuild replays imports in the order they came.
    Statement erase(db_, "DELETE FROM records WHERE job = ?1");
    Statement insert(db_, "INSERT INTO records (job, received, document) VALUES (?1, ?2, ?3)");
    if (!erase || !insert) return sqlite_error(db_, "cannot store records");
    if (auto error = exec(db_, "BEGIN IMMEDIATE")) return RuntimeError("cannot store records: " + *error);
    bind_text(erase.get(), 1, records.job);
    bind_text(insert.get(), 1, records.job);
    sqlite3_bind_double(insert.get(), 2, records.received);
    bind_text(insert.get(), 3, records.json);
    std::optional<std::string> error;
    if (sqlite3_step(erase.get()) != SQLITE_DONE || sqlite3_step(insert.get()) != SQLITE_DONE)
        error = sqlite3_errmsg(db_);
    if (!error) error = exec(db_, "COMMIT");
    if (error) {
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        return RuntimeError("cannot store records: " + *error);
    }
    return std::nullopt;
}

std::optional<Error> EventStore::for_each_records(const std::string& job,
                                                  const std::function<bool(const StoredRecords&)>& visit) const {
    Statement query(db_, job.empty() ? "SELECT job, received, document FROM records ORDER BY rowid"
                                     : "SELECT job, received, document FROM records WHERE job = ?1");
    if (!query) return read_error(db_, path_);
    if (!job.empty()) bind_text(query.get(), 1, job);
    StoredRecords r;
    int step = SQLITE_ROW;
    while ((step = sqlite3_step(query.get())) == SQLITE_ROW) {
        r.job = text_column(query.get(), 0);
        r.received = sqlite3_column_double(query.get(), 1);
        r.json = text_column(query.get(), 2);
        if (!visit(r)) return std::nullopt;
    }
    if (step != SQLITE_DONE) return read_error(db_, path_);
    return std::nullopt;
}

}  // namespace meshscope::server
