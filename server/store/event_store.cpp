#include "event_store.h"

#include <sqlite3.h>

#include <cstdlib>
#include <filesystem>
#include <optional>

namespace meshscope::server {

namespace {
constexpr const char* schema_sql = R"sql(
PRAGMA journal_mode = WAL;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', 'meshscope.history/1');
CREATE TABLE IF NOT EXISTS events (
  id INTEGER PRIMARY KEY,
  job TEXT NOT NULL,
  rank INTEGER NOT NULL,
  received REAL NOT NULL,
  event TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_job ON events (job, id);
)sql";

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

std::string text_column(sqlite3_stmt* stmt, int column) {
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, column));
    return text ? std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(stmt, column))) : std::string();
}
}  // namespace

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
    char* message = nullptr;
    if (sqlite3_exec(store->db_, schema_sql, nullptr, nullptr, &message) != SQLITE_OK) {
        std::string text = message ? message : "unknown error";
        sqlite3_free(message);
        return RuntimeError("cannot open history database " + path + ": " + text);
    }
    const char* sync = durability == Durability::full ? "PRAGMA synchronous = FULL;" : "PRAGMA synchronous = NORMAL;";
    sqlite3_exec(store->db_, sync, nullptr, nullptr, nullptr);
    return store;
}

EventStore::~EventStore() {
    sqlite3_close_v2(db_);
}

std::optional<Error> EventStore::append(std::span<const StoredEvent> events) {
    if (events.empty()) return std::nullopt;
    if (sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK)
        return sqlite_error(db_, "cannot store events");
    {
        Statement insert(db_, "INSERT INTO events (job, rank, received, event) VALUES (?1, ?2, ?3, ?4)");
        if (!insert) {
            sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
            return sqlite_error(db_, "cannot store events");
        }
        for (const StoredEvent& e : events) {
            sqlite3_bind_text(insert.get(), 1, e.job.data(), static_cast<int>(e.job.size()), SQLITE_STATIC);
            sqlite3_bind_int64(insert.get(), 2, e.rank);
            sqlite3_bind_double(insert.get(), 3, e.received);
            sqlite3_bind_text(insert.get(), 4, e.json.data(), static_cast<int>(e.json.size()), SQLITE_STATIC);
            if (sqlite3_step(insert.get()) != SQLITE_DONE) {
                Error error = sqlite_error(db_, "cannot store events");
                sqlite3_reset(insert.get());
                sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
                return error;
            }
            sqlite3_reset(insert.get());
        }
    }
    if (sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
        Error error = sqlite_error(db_, "cannot store events");
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        return error;
    }
    return std::nullopt;
}

std::vector<StoredJob> EventStore::jobs() const {
    std::vector<StoredJob> out;
    Statement query(db_,
                    "SELECT job, COUNT(*), MIN(received), MAX(received) FROM events GROUP BY job ORDER BY MIN(id)");
    if (!query) return out;
    while (sqlite3_step(query.get()) == SQLITE_ROW)
        out.push_back({text_column(query.get(), 0), sqlite3_column_int64(query.get(), 1),
                       sqlite3_column_double(query.get(), 2), sqlite3_column_double(query.get(), 3)});
    return out;
}

std::int64_t EventStore::count(const std::string& job) const {
    Statement query(db_, "SELECT COUNT(*) FROM events WHERE job = ?1");
    if (!query) return 0;
    sqlite3_bind_text(query.get(), 1, job.data(), static_cast<int>(job.size()), SQLITE_STATIC);
    return sqlite3_step(query.get()) == SQLITE_ROW ? sqlite3_column_int64(query.get(), 0) : 0;
}

std::int64_t EventStore::count_all() const {
    Statement query(db_, "SELECT COUNT(*) FROM events");
    if (!query) return 0;
    return sqlite3_step(query.get()) == SQLITE_ROW ? sqlite3_column_int64(query.get(), 0) : 0;
}

void EventStore::for_each(const std::string& job, const std::function<bool(const StoredEvent&)>& visit) const {
    Statement query(db_, job.empty() ? "SELECT job, rank, received, event FROM events ORDER BY id"
                                     : "SELECT job, rank, received, event FROM events WHERE job = ?1 ORDER BY id");
    if (!query) return;
    if (!job.empty()) sqlite3_bind_text(query.get(), 1, job.data(), static_cast<int>(job.size()), SQLITE_STATIC);
    StoredEvent e;
    while (sqlite3_step(query.get()) == SQLITE_ROW) {
        e.job = text_column(query.get(), 0);
        e.rank = sqlite3_column_int64(query.get(), 1);
        e.received = sqlite3_column_double(query.get(), 2);
        e.json = text_column(query.get(), 3);
        if (!visit(e)) return;
    }
}

}  // namespace meshscope::server
