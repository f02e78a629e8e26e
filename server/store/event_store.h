// EventStore: the history of every job in one SQLite file (WAL). Each stored event is its protocol JSON
// (meshscope::to_json) with the collector's receive time, so a restart, `replay` and `export` rebuild
// exactly what the monitor saw. One EventStore is one connection: use it from one thread at a time
// (the StoreWriter owns the collector's; readers open their own).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "meshscope/error.h"

struct sqlite3;

namespace meshscope::server {

struct StoredEvent {
    std::string job;
    std::int64_t rank = 0;
    double received = 0;  // collector clock, seconds since the Unix epoch
    std::string json;     // the event as protocol JSON, one line
};

struct StoredJob {
    std::string job;
    std::int64_t events = 0;
    double first_received = 0;
    double last_received = 0;
};

enum class Durability {
    full,    // synchronous=FULL: a commit survives power loss (the collector's default)
    normal,  // synchronous=NORMAL: survives a crash of the process, not of the machine
};

class EventStore {
public:
    // Opens or creates the database (and its parent folder) and its schema.
    // RuntimeError "cannot open history database {path}: {sqlite message}".
    [[nodiscard]] static Expected<std::unique_ptr<EventStore>> open(const std::string& path,
                                                                    Durability durability = Durability::full);
    ~EventStore();
    EventStore(const EventStore&) = delete;
    EventStore& operator=(const EventStore&) = delete;

    // Stores all events in one transaction: all or none. RuntimeError with SQLite's message on failure.
    [[nodiscard]] std::optional<Error> append(std::span<const StoredEvent> events);

    [[nodiscard]] std::vector<StoredJob> jobs() const;
    [[nodiscard]] std::int64_t count(const std::string& job) const;
    [[nodiscard]] std::int64_t count_all() const;
    // Every stored event of `job` (all jobs when empty) in the order it was stored; the visitor may stop
    // the walk by returning false.
    void for_each(const std::string& job, const std::function<bool(const StoredEvent&)>& visit) const;

    [[nodiscard]] const std::string& path() const noexcept { return path_; }

private:
    EventStore() = default;
    sqlite3* db_ = nullptr;
    std::string path_;
};

// $XDG_DATA_HOME/meshscope/history.db, else ~/.local/share/meshscope/history.db (the per-user data path).
[[nodiscard]] std::string default_database_path();

}  // namespace meshscope::server
