// History store (docs/collector.md, "History"): heartbeats kept as one summary per rank (logged, then folded:
// the same summaries either way), a body mixing heartbeats and lifecycle events stored in one transaction (or
// not at all), a fold that fails, migration of meshscope.history/1 and /2 files, the store writer's fold, and a
// restart after a long heartbeat history.
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

#include <atomic>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collector/collector.h"
#include "store/event_store.h"
#include "store/store_writer.h"
#include "test_events.h"

using meshscope::server::Collector;
using meshscope::server::CollectorOptions;
using meshscope::server::Durability;
using meshscope::server::EventStore;
using meshscope::server::StoredEvent;
using meshscope::server::StoredHeartbeat;
using meshscope::server::StoreWriter;

namespace {
// One heartbeat as the test sends it: its ts marks which heartbeat a summary kept.
struct Beat {
    std::int64_t rank = 0;
    double received = 0;
    double ts = 0;
};
// What the summary of one rank must hold afterwards (worked out by hand per row).
struct Summary {
    std::int64_t rank = 0;
    std::int64_t count = 0;
    double first = 0;
    double last = 0;
    double last_ts = 0;
};
using Commits = std::vector<std::vector<Beat>>;
using Summaries = std::vector<Summary>;

std::string event_json(const std::string& job, std::int64_t rank, std::int64_t world, const std::string& phase,
                       double ts) {
    auto e = meshscope::test::event(job, rank, world, meshscope::parse_phase(phase).value(), meshscope::Status::done);
    e.ts = ts;
    return meshscope::test::line(e);
}
StoredEvent lifecycle(const std::string& job, std::int64_t rank, double received, const std::string& phase,
                      std::int64_t world = 4) {
    return {job, rank, received, event_json(job, rank, world, phase, received), false};
}
// A lifecycle event as the collector stores it: with its identity (event_identity).
StoredEvent once(const std::string& job, std::int64_t rank, double received, const std::string& phase, double ts,
                 std::int64_t pid = 7) {
    auto e = meshscope::test::event(job, rank, 4, meshscope::parse_phase(phase).value(), meshscope::Status::done);
    e.ts = ts;
    e.host = "n0";
    e.pid = pid;
    return {job, rank, received, meshscope::test::line(e), false, meshscope::server::event_identity(e)};
}
StoredEvent heartbeat(const std::string& job, std::int64_t rank, double received, double ts, std::int64_t world = 4) {
    return {job, rank, received, event_json(job, rank, world, "heartbeat", ts), true};
}

std::vector<StoredEvent> events_of(const EventStore& store, const std::string& job) {
    std::vector<StoredEvent> out;
    store.for_each(job, [&](const StoredEvent& e) {
        out.push_back(e);
        return true;
    });
    return out;
}
std::vector<StoredHeartbeat> heartbeats_of(const EventStore& store, const std::string& job) {
    std::vector<StoredHeartbeat> out;
    store.for_each_heartbeat(job, [&](const StoredHeartbeat& h) {
        out.push_back(h);
        return true;
    });
    return out;
}
std::string phase_of(const std::string& json) {
    return nlohmann::json::parse(json).value("phase", "");
}
double ts_of(const std::string& json) {
    return nlohmann::json::parse(json).value("ts", -1.0);
}

// SQL run on a connection of its own (what another process, or an older meshscope, would have done).
bool run_sql(const QString& path, const char* sql) {
    sqlite3* db = nullptr;
    bool ok = sqlite3_open(path.toUtf8().constData(), &db) == SQLITE_OK;
    char* message = nullptr;
    ok = ok && sqlite3_exec(db, sql, nullptr, nullptr, &message) == SQLITE_OK;
    if (message) qWarning("%s", message);
    sqlite3_free(message);
    sqlite3_close(db);
    return ok;
}
std::string single_text(const QString& path, const char* sql) {
    sqlite3* db = nullptr;
    sqlite3_stmt* stmt = nullptr;
    std::string out;
    if (sqlite3_open(path.toUtf8().constData(), &db) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) == SQLITE_OK && sqlite3_step(stmt) == SQLITE_ROW)
        out = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return out;
}
}  // namespace

Q_DECLARE_METATYPE(Commits)
Q_DECLARE_METATYPE(Summaries)
Q_DECLARE_METATYPE(std::vector<std::vector<StoredEvent>>)
Q_DECLARE_METATYPE(std::vector<double>)
Q_DECLARE_METATYPE(std::vector<std::vector<std::size_t>>)

class TestStore : public QObject {
    Q_OBJECT
private slots:
    void heartbeats_are_summarized_per_rank_data() {
        QTest::addColumn<Commits>("commits");
        QTest::addColumn<Summaries>("expected");
        QTest::addRow("one heartbeat") << Commits{{{0, 100, 1}}} << Summaries{{0, 1, 100, 100, 1}};
        QTest::addRow("three commits") << Commits{{{0, 100, 1}}, {{0, 105, 2}}, {{0, 110, 3}}}
                                       << Summaries{{0, 3, 100, 110, 3}};
        QTest::addRow("two ranks in one commit")
            << Commits{{{0, 100, 1}, {1, 101, 2}, {0, 105, 3}}} << Summaries{{0, 2, 100, 105, 3}, {1, 1, 101, 101, 2}};
        // A heartbeat received earlier but committed later (another request of the same group) counts, but
        // the summary keeps the one received last.
        QTest::addRow("late commit keeps the latest")
            << Commits{{{0, 110, 1}}, {{0, 100, 2}}, {{0, 105, 3}}} << Summaries{{0, 3, 100, 110, 1}};
        QTest::addRow("same receive time: the later one")
            << Commits{{{0, 100, 1}, {0, 100, 2}}} << Summaries{{0, 2, 100, 100, 2}};
        QTest::addRow("ranks out of order") << Commits{{{3, 50, 1}, {1, 51, 2}}, {{3, 55, 3}, {2, 56, 4}}}
                                            << Summaries{{1, 1, 51, 51, 2}, {2, 1, 56, 56, 4}, {3, 2, 50, 55, 3}};
    }
    // Each row three ways: the log never folded (readers merge it), folded after every commit, and folded
    // once before the last commit (summaries and log merged). All three must give the hand-worked summaries.
    void heartbeats_are_summarized_per_rank() {
        QFETCH(Commits, commits);
        QFETCH(Summaries, expected);
        enum class Fold { never, every_commit, before_the_last };
        for (const Fold fold : {Fold::never, Fold::every_commit, Fold::before_the_last}) {
            const QByteArray mode = QByteArray::number(static_cast<int>(fold));
            QTemporaryDir dir;
            auto store = EventStore::open(dir.filePath("h.db").toStdString(), Durability::normal);
            QVERIFY(store);
            std::int64_t sent = 0;
            for (std::size_t c = 0; c < commits.size(); ++c) {
                if (fold == Fold::before_the_last && c + 1 == commits.size()) QVERIFY(!(*store)->fold_heartbeats());
                std::vector<StoredEvent> events;
                for (const Beat& b : commits[c]) events.push_back(heartbeat("j", b.rank, b.received, b.ts));
                sent += static_cast<std::int64_t>(events.size());
                QVERIFY(!(*store)->append(events));
                if (fold == Fold::every_commit) {
                    QVERIFY(!(*store)->fold_heartbeats());
                    QCOMPARE((*store)->logged_heartbeats(), std::int64_t{0});
                }
            }
            QVERIFY(events_of(**store, "j").empty());  // no history rows for heartbeats
            const auto summaries = heartbeats_of(**store, "j");
            QVERIFY2(summaries.size() == expected.size(), mode);
            for (std::size_t i = 0; i < expected.size(); ++i) {
                QCOMPARE(summaries[i].job, std::string("j"));
                QCOMPARE(summaries[i].rank, expected[i].rank);
                QVERIFY2(summaries[i].count == expected[i].count, mode);
                QVERIFY2(summaries[i].first_received == expected[i].first, mode);
                QVERIFY2(summaries[i].last_received == expected[i].last, mode);
                QVERIFY2(ts_of(summaries[i].json) == expected[i].last_ts, mode);
            }
            QVERIFY2((*store)->count("j") == sent, mode);
            const auto jobs = (*store)->jobs();
            QCOMPARE(jobs.size(), std::size_t{1});
            QVERIFY2(jobs[0].heartbeats == sent, mode);
        }
    }

    void a_mixed_body_stores_both() {
        QTemporaryDir dir;
        auto store = EventStore::open(dir.filePath("h.db").toStdString());
        QVERIFY(store);
        const std::vector<StoredEvent> body = {lifecycle("j", 0, 10, "launch"), heartbeat("j", 0, 10, 1),
                                               lifecycle("j", 0, 10, "ready"), heartbeat("j", 1, 10, 2)};
        QVERIFY(!(*store)->append(body));
        const auto events = events_of(**store, "j");
        QCOMPARE(events.size(), std::size_t{2});
        QCOMPARE(phase_of(events[0].json), std::string("launch"));
        QCOMPARE(phase_of(events[1].json), std::string("ready"));
        const auto beats = heartbeats_of(**store, "j");
        QCOMPARE(beats.size(), std::size_t{2});
        QCOMPARE(beats[0].rank, std::int64_t{0});
        QCOMPARE(beats[1].rank, std::int64_t{1});
        QCOMPARE((*store)->count("j"), std::int64_t{4});
        QCOMPARE((*store)->count_all(), std::int64_t{4});
        const auto jobs = (*store)->jobs();
        QCOMPARE(jobs.size(), std::size_t{1});
        QCOMPARE(jobs[0].events, std::int64_t{4});
        QCOMPARE(jobs[0].heartbeats, std::int64_t{2});
    }

    // A transaction that fails part-way (a trigger stands in for a full disk) stores neither the events
    // nor the heartbeats that came with them, and says why.
    void a_failed_transaction_stores_nothing_data() {
        QTest::addColumn<QString>("trigger");
        QTest::addRow("an event fails after the heartbeats")
            << "CREATE TRIGGER fail BEFORE INSERT ON events WHEN NEW.rank = 3 BEGIN SELECT RAISE(ABORT, 'injected "
               "failure'); END;";
        QTest::addRow("a heartbeat fails after the events")
            << "CREATE TRIGGER fail BEFORE INSERT ON heartbeat_log WHEN NEW.rank = 3 BEGIN SELECT RAISE(ABORT, "
               "'injected failure'); END;";
        QTest::addRow("a heartbeat of an earlier rank fails")
            << "CREATE TRIGGER fail BEFORE INSERT ON heartbeat_log WHEN NEW.rank = 2 AND NEW.received = 20 BEGIN "
               "SELECT RAISE(ABORT, 'injected failure'); END;";
    }
    void a_failed_transaction_stores_nothing() {
        QFETCH(QString, trigger);
        QTemporaryDir dir;
        const QString path = dir.filePath("h.db");
        auto store = EventStore::open(path.toStdString());
        QVERIFY(store);
        QVERIFY(!(*store)->append(std::vector<StoredEvent>{lifecycle("j", 0, 10, "launch"), heartbeat("j", 2, 11, 1)}));
        QVERIFY(run_sql(path, trigger.toUtf8().constData()));
        const std::vector<StoredEvent> body = {lifecycle("j", 1, 20, "launch"), heartbeat("j", 2, 20, 2),
                                               heartbeat("j", 0, 20, 3), lifecycle("j", 3, 20, "launch"),
                                               heartbeat("j", 3, 20, 4)};
        const auto error = (*store)->append(body);
        QVERIFY(error);
        QCOMPARE(error->message(), std::string("cannot store events: injected failure"));
        const auto events = events_of(**store, "j");
        QCOMPARE(events.size(), std::size_t{1});
        QCOMPARE(events[0].rank, std::int64_t{0});
        const auto beats = heartbeats_of(**store, "j");
        QCOMPARE(beats.size(), std::size_t{1});
        QCOMPARE(beats[0].rank, std::int64_t{2});
        QCOMPARE(beats[0].count, std::int64_t{1});
        QCOMPARE(beats[0].last_received, 11.0);
        QCOMPARE((*store)->count("j"), std::int64_t{2});
        // The store is usable afterwards.
        QVERIFY(run_sql(path, "DROP TRIGGER fail;"));
        QVERIFY(!(*store)->append(body));
        QCOMPARE((*store)->count("j"), std::int64_t{7});
    }

    // A fold that fails part-way (a trigger on the summaries stands in for a full disk) changes nothing that
    // readers see and keeps the log; once the cause is gone the next fold succeeds.
    void a_failed_fold_keeps_the_log() {
        QTemporaryDir dir;
        const QString path = dir.filePath("h.db");
        auto store = EventStore::open(path.toStdString());
        QVERIFY(store);
        QVERIFY(!(*store)->append(std::vector<StoredEvent>{heartbeat("j", 1, 10, 1), heartbeat("j", 2, 10, 2)}));
        QVERIFY(!(*store)->fold_heartbeats());
        QVERIFY(!(*store)->append(std::vector<StoredEvent>{heartbeat("j", 1, 20, 3), heartbeat("j", 2, 21, 4)}));
        QVERIFY(run_sql(path,
                        "CREATE TRIGGER fail BEFORE UPDATE ON heartbeats WHEN NEW.rank = 2 BEGIN SELECT "
                        "RAISE(ABORT, 'injected failure'); END;"));
        const auto error = (*store)->fold_heartbeats();
        QVERIFY(error);
        QCOMPARE(error->message(), std::string("cannot fold heartbeats: injected failure"));
        QCOMPARE((*store)->logged_heartbeats(), std::int64_t{2});
        QCOMPARE(single_text(path, "SELECT COUNT(*) FROM heartbeat_log"), std::string("2"));
        auto check = [&] {
            const auto beats = heartbeats_of(**store, "j");
            QCOMPARE(beats.size(), std::size_t{2});
            QCOMPARE(beats[0].count, std::int64_t{2});
            QCOMPARE(beats[0].first_received, 10.0);
            QCOMPARE(beats[0].last_received, 20.0);
            QCOMPARE(ts_of(beats[0].json), 3.0);
            QCOMPARE(beats[1].count, std::int64_t{2});
            QCOMPARE(beats[1].last_received, 21.0);
            QCOMPARE(ts_of(beats[1].json), 4.0);
            QCOMPARE((*store)->count("j"), std::int64_t{4});
        };
        check();
        QVERIFY(run_sql(path, "DROP TRIGGER fail;"));
        QVERIFY(!(*store)->fold_heartbeats());
        QCOMPARE(single_text(path, "SELECT COUNT(*) FROM heartbeat_log"), std::string("0"));
        check();
    }

    // The store writer folds the log once heartbeat_fold_rows heartbeats wait in it, after answering the
    // commit that reached it; the summaries count every heartbeat.
    void the_writer_folds_the_log() {
        using meshscope::server::heartbeat_fold_rows;
        constexpr std::int64_t ranks = 4096;
        constexpr std::int64_t rounds = heartbeat_fold_rows / ranks + 1;  // one round past the fold
        QTemporaryDir dir;
        const QString path = dir.filePath("h.db");
        auto store = EventStore::open(path.toStdString(), Durability::normal);
        QVERIFY(store);
        std::atomic<std::int64_t> stored{0};
        {
            StoreWriter writer(std::move(store).value());
            for (std::int64_t round = 0; round < rounds; ++round) {
                std::vector<StoredEvent> events;
                for (std::int64_t r = 0; r < ranks; ++r)
                    events.push_back(heartbeat("j", r, 100.0 + static_cast<double>(round), static_cast<double>(round)));
                writer.submit(std::move(events), [&](const std::optional<meshscope::Error>& error, auto) {
                    if (!error) stored += ranks;
                });
                // One round at a time: the fold is judged after each commit.
                QTRY_COMPARE(stored.load(), (round + 1) * ranks);
            }
            // The last round went to the log after the fold (16 rounds = 65,536 heartbeats were folded).
            QTRY_COMPARE(single_text(path, "SELECT COUNT(*) FROM heartbeat_log"), std::to_string(ranks));
        }
        auto reopened = EventStore::open(path.toStdString());
        QVERIFY(reopened);
        const auto beats = heartbeats_of(**reopened, "j");
        QCOMPARE(static_cast<std::int64_t>(beats.size()), ranks);
        for (const StoredHeartbeat& b : beats) {
            QCOMPARE(b.count, rounds);
            QCOMPARE(b.first_received, 100.0);
            QCOMPARE(b.last_received, 100.0 + static_cast<double>(rounds - 1));
            QCOMPARE(ts_of(b.json), static_cast<double>(rounds - 1));
        }
        QCOMPARE(single_text(path, "SELECT COUNT(*) FROM heartbeats"), std::to_string(ranks));
    }

    // A meshscope.history/2 file (summaries upserted per heartbeat, no log) is migrated when opened: it gains
    // the log, keeps its summaries, and a heartbeat after that counts towards them.
    void history_2_is_migrated() {
        QTemporaryDir dir;
        const QString path = dir.filePath("two.db");
        const std::string beat = heartbeat("j", 0, 16, 16).json;
        const std::string sql = R"sql(
PRAGMA journal_mode = WAL;
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta (key, value) VALUES ('schema', 'meshscope.history/2');
CREATE TABLE events (id INTEGER PRIMARY KEY, job TEXT NOT NULL, rank INTEGER NOT NULL, received REAL NOT NULL,
                     event TEXT NOT NULL);
CREATE INDEX events_by_job ON events (job, id);
CREATE TABLE heartbeats (job TEXT NOT NULL, rank INTEGER NOT NULL, count INTEGER NOT NULL,
  first_received REAL NOT NULL, last_received REAL NOT NULL, event TEXT NOT NULL, PRIMARY KEY (job, rank)) WITHOUT ROWID;
INSERT INTO heartbeats VALUES ('j', 0, 3, 11, 16, ')sql" +
                                beat + "');";
        QVERIFY(run_sql(path, sql.c_str()));
        auto store = EventStore::open(path.toStdString());
        QVERIFY2(store, store ? "" : store.error().message().c_str());
        QCOMPARE(single_text(path, "SELECT value FROM meta WHERE key = 'schema'"), std::string("meshscope.history/4"));
        QCOMPARE(heartbeats_of(**store, "j").front().count, std::int64_t{3});
        QVERIFY(!(*store)->append(std::vector<StoredEvent>{heartbeat("j", 0, 30, 30)}));
        const auto beats = heartbeats_of(**store, "j");
        QCOMPARE(beats.size(), std::size_t{1});
        QCOMPARE(beats[0].count, std::int64_t{4});
        QCOMPARE(beats[0].first_received, 11.0);
        QCOMPARE(beats[0].last_received, 30.0);
        QCOMPARE(ts_of(beats[0].json), 30.0);
        QCOMPARE((*store)->count_all(), std::int64_t{4});
    }

    // A file written by meshscope.history/1 (heartbeats as rows) is migrated when opened: each rank keeps
    // its heartbeat count, first and last receive time and the latest heartbeat; other rows stay in order.
    void history_1_is_migrated() {
        QTemporaryDir dir;
        const QString path = dir.filePath("old.db");
        QVERIFY(run_sql(path, R"sql(
PRAGMA journal_mode = WAL;
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta (key, value) VALUES ('schema', 'meshscope.history/1');
CREATE TABLE events (id INTEGER PRIMARY KEY, job TEXT NOT NULL, rank INTEGER NOT NULL, received REAL NOT NULL,
                     event TEXT NOT NULL);
CREATE INDEX events_by_job ON events (job, id);
)sql"));
        // id order = store order. Rank 0's heartbeat received at 14 was stored after the one received at 16.
        const std::vector<StoredEvent> rows = {
            lifecycle("j", 0, 10, "launch"), heartbeat("j", 0, 11, 11),      heartbeat("j", 1, 12, 12),
            heartbeat("j", 0, 16, 16),       lifecycle("j", 0, 15, "ready"), heartbeat("j", 0, 14, 14),
            heartbeat("other", 0, 20, 20),
        };
        std::string insert = "BEGIN;";
        for (const StoredEvent& e : rows)
            insert += "INSERT INTO events (job, rank, received, event) VALUES ('" + e.job + "', " +
                      std::to_string(e.rank) + ", " + std::to_string(e.received) + ", '" + e.json + "');";
        insert += "COMMIT;";
        QVERIFY(run_sql(path, insert.c_str()));

        for (int open = 0; open < 2; ++open) {  // the second open finds /4 and changes nothing
            auto store = EventStore::open(path.toStdString());
            QVERIFY2(store, store ? "" : store.error().message().c_str());
            QCOMPARE(single_text(path, "SELECT value FROM meta WHERE key = 'schema'"),
                     std::string("meshscope.history/4"));
            QCOMPARE(single_text(path, "SELECT COUNT(*) FROM heartbeat_log"), std::string("0"));  // folded
            const auto events = events_of(**store, "");
            QCOMPARE(events.size(), std::size_t{2});
            QCOMPARE(phase_of(events[0].json), std::string("launch"));
            QCOMPARE(phase_of(events[1].json), std::string("ready"));
            QCOMPARE(events[1].received, 15.0);
            const auto beats = heartbeats_of(**store, "");
            QCOMPARE(beats.size(), std::size_t{3});
            QCOMPARE(beats[0].job, std::string("j"));
            QCOMPARE(beats[0].rank, std::int64_t{0});
            QCOMPARE(beats[0].count, std::int64_t{3});
            QCOMPARE(beats[0].first_received, 11.0);
            QCOMPARE(beats[0].last_received, 16.0);
            QCOMPARE(ts_of(beats[0].json), 16.0);
            QCOMPARE(beats[1].rank, std::int64_t{1});
            QCOMPARE(beats[1].count, std::int64_t{1});
            QCOMPARE(beats[1].first_received, 12.0);
            QCOMPARE(beats[2].job, std::string("other"));
            QCOMPARE(beats[2].count, std::int64_t{1});
            QCOMPARE((*store)->count("j"), std::int64_t{6});
            QCOMPARE((*store)->count("other"), std::int64_t{1});
            QCOMPARE((*store)->count_all(), std::int64_t{7});
        }
        auto store = EventStore::open(path.toStdString());
        QVERIFY(store);
        QVERIFY(!(*store)->append(std::vector<StoredEvent>{heartbeat("j", 0, 30, 30)}));
        QCOMPARE(heartbeats_of(**store, "j").front().count, std::int64_t{4});
    }

    // Each event at most once: a copy of one stored (earlier, or before it in the same commit) is not stored, and
    // append names it. Each row: the commits (their events), the rows the history then holds (their ts, in order)
    // and the copies each commit named (indices in it), all worked out by hand.
    void a_copy_is_stored_once_data() {
        using Commit = std::vector<StoredEvent>;
        QTest::addColumn<std::vector<Commit>>("commits");
        QTest::addColumn<std::vector<double>>("rows");
        QTest::addColumn<std::vector<std::vector<std::size_t>>>("copies");
        QTest::addRow("again in a later commit")
            << std::vector<Commit>{{once("j", 0, 10, "launch", 1)}, {once("j", 0, 12, "launch", 1)}}
            << std::vector<double>{1} << std::vector<std::vector<std::size_t>>{{}, {0}};
        QTest::addRow("twice in one commit")
            << std::vector<Commit>{{once("j", 0, 10, "launch", 1), once("j", 1, 10, "launch", 1),
                                    once("j", 0, 10, "launch", 1)}}
            << std::vector<double>{1, 1} << std::vector<std::vector<std::size_t>>{{2}};
        QTest::addRow("a retry with a new event")
            << std::vector<Commit>{{once("j", 0, 10, "launch", 1), once("j", 0, 10, "ready", 2)},
                                   {once("j", 0, 15, "launch", 1), once("j", 0, 15, "ready", 2),
                                    once("j", 0, 15, "exit", 3)}}
            << std::vector<double>{1, 2, 3} << std::vector<std::vector<std::size_t>>{{}, {0, 1}};
        QTest::addRow("another ts, pid, job or rank")
            << std::vector<Commit>{{once("j", 0, 10, "launch", 1)},
                                   {once("j", 0, 11, "launch", 1.5), once("j", 0, 11, "launch", 1, 8),
                                    once("k", 0, 11, "launch", 1), once("j", 1, 11, "launch", 1)}}
            << std::vector<double>{1, 1.5, 1, 1, 1} << std::vector<std::vector<std::size_t>>{{}, {}};
        QTest::addRow("no identity: never a copy")
            << std::vector<Commit>{{lifecycle("j", 0, 10, "launch")}, {lifecycle("j", 0, 10, "launch")}}
            << std::vector<double>{10, 10} << std::vector<std::vector<std::size_t>>{{}, {}};
    }
    void a_copy_is_stored_once() {
        QFETCH(std::vector<std::vector<StoredEvent>>, commits);
        QFETCH(std::vector<double>, rows);
        QFETCH(std::vector<std::vector<std::size_t>>, copies);
        QTemporaryDir dir;
        auto store = EventStore::open(dir.filePath("once.db").toStdString(), Durability::normal);
        QVERIFY(store);
        for (std::size_t i = 0; i < commits.size(); ++i) {
            std::vector<std::size_t> named{99};  // replaced
            QVERIFY(!(*store)->append(commits[i], &named));
            QCOMPARE(named, copies[i]);
        }
        std::vector<double> stored;
        for (const StoredEvent& e : events_of(**store, "")) stored.push_back(ts_of(e.json));
        QCOMPARE(stored, rows);
        QCOMPARE((*store)->count_all(), static_cast<std::int64_t>(rows.size()));
    }

    // A meshscope.history/3 file (no identities) is migrated when opened: every stored event gains its identity,
    // copies stored before keep their rows (the first one gets the identity), and a copy sent after is not stored.
    void history_3_is_migrated() {
        QTemporaryDir dir;
        const QString path = dir.filePath("three.db");
        QVERIFY(run_sql(path, R"sql(
PRAGMA journal_mode = WAL;
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta (key, value) VALUES ('schema', 'meshscope.history/3');
CREATE TABLE events (id INTEGER PRIMARY KEY, job TEXT NOT NULL, rank INTEGER NOT NULL, received REAL NOT NULL,
                     event TEXT NOT NULL);
CREATE INDEX events_by_job ON events (job, id);
)sql"));
        // A retry stored twice (ids 1 and 3), another event between them, one without host and pid, one without ts
        // (no identity).
        const std::vector<StoredEvent> old = {
            once("j", 0, 10, "launch", 1),
            once("j", 0, 11, "ready", 2),
            once("j", 0, 12, "launch", 1),
            lifecycle("j", 1, 13, "launch"),
            {"j", 1, 14, R"({"job":"j","rank":1,"world_size":4,"phase":"exit","status":"done"})", false}};
        std::string insert = "BEGIN;";
        for (const StoredEvent& e : old)
            insert += "INSERT INTO events (job, rank, received, event) VALUES ('" + e.job + "', " +
                      std::to_string(e.rank) + ", " + std::to_string(e.received) + ", '" + e.json + "');";
        QVERIFY(run_sql(path, (insert + "COMMIT;").c_str()));

        auto store = EventStore::open(path.toStdString());
        QVERIFY2(store, store ? "" : store.error().message().c_str());
        QCOMPARE(single_text(path, "SELECT value FROM meta WHERE key = 'schema'"), std::string("meshscope.history/4"));
        QCOMPARE(single_text(path,
                             "SELECT group_concat(identity IS NOT NULL, ',') FROM (SELECT identity FROM events "
                             "ORDER BY id)"),
                 std::string("1,1,0,1,0"));
        QCOMPARE(events_of(**store, "j").size(), std::size_t{5});  // the history as it was
        std::vector<std::size_t> copies;
        QVERIFY(!(*store)->append(std::vector<StoredEvent>{once("j", 0, 20, "ready", 2), once("j", 0, 20, "exit", 3),
                                                           once("j", 0, 20, "launch", 1)},
                                  &copies));
        QCOMPARE(copies, (std::vector<std::size_t>{0, 2}));
        QCOMPARE(events_of(**store, "j").size(), std::size_t{6});
        auto again = EventStore::open(path.toStdString());  // the second open finds /4 and changes nothing
        QVERIFY(again);
        QCOMPARE(events_of(**again, "j").size(), std::size_t{6});
    }

    void an_unknown_schema_is_refused() {
        QTemporaryDir dir;
        const QString path = dir.filePath("new.db");
        QVERIFY(run_sql(path,
                        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                        "INSERT INTO meta (key, value) VALUES ('schema', 'meshscope.history/9');"));
        auto store = EventStore::open(path.toStdString());
        QVERIFY(!store);
        QCOMPARE(store.error().message(), "cannot open history database " + path.toStdString() +
                                              ": schema meshscope.history/9 is not meshscope.history/1, /2, /3 or /4");
    }

    // The collector's own path (submit -> group commit): heartbeats become summaries, other events rows.
    void the_collector_stores_heartbeats_as_summaries() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("h.db").toStdString();
        {
            CollectorOptions options;
            options.database = path;
            auto collector = Collector::open(options);
            QVERIFY(collector);
            std::atomic<int> acknowledged{0};
            auto count = [&](const meshscope::server::SubmitResult& r) {
                if (r.status == 200) acknowledged += static_cast<int>(r.accepted);
            };
            (*collector)
                ->submit(R"([{"job":"c","rank":0,"world_size":2,"phase":"launch","status":"done"},)"
                         R"({"job":"c","rank":0,"world_size":2,"phase":"heartbeat","status":"done"}])",
                         count);
            QTRY_COMPARE(acknowledged.load(), 2);
            (*collector)->submit(R"({"job":"c","rank":0,"world_size":2,"phase":"heartbeat","status":"done"})", count);
            QTRY_COMPARE(acknowledged.load(), 3);
        }
        auto store = EventStore::open(path, Durability::normal);
        QVERIFY(store);
        QCOMPARE(events_of(**store, "c").size(), std::size_t{1});
        const auto beats = heartbeats_of(**store, "c");
        QCOMPARE(beats.size(), std::size_t{1});
        QCOMPARE(beats[0].count, std::int64_t{2});
        QVERIFY(beats[0].first_received < beats[0].last_received);
    }

    // 2,048 ranks x 200 heartbeats (5 s apart, the last about 3 s ago) through the store API, then a restart:
    // every rank was last seen at its last heartbeat and none is stale.
    void a_restart_after_a_long_heartbeat_history() {
        constexpr std::int64_t world = 2048;
        constexpr int rounds = 200;
        QTemporaryDir dir;
        const std::string path = dir.filePath("long.db").toStdString();
        const double base = Collector::now() - 1000;  // the last round is received at base + 997
        auto last_received = [&](std::int64_t rank) { return base + 2 + (rounds - 1) * 5.0 + rank * 1e-4; };
        {
            auto store = EventStore::open(path, Durability::normal);
            QVERIFY(store);
            std::vector<StoredEvent> events;
            for (std::int64_t r = 0; r < world; ++r) events.push_back(lifecycle("long", r, base, "launch", world));
            for (std::int64_t r = 0; r < world; ++r) events.push_back(lifecycle("long", r, base + 1, "ready", world));
            QVERIFY(!(*store)->append(events));
            for (int round = 0; round < rounds; ++round) {
                events.clear();
                for (std::int64_t r = 0; r < world; ++r) {
                    const double received = base + 2 + round * 5.0 + r * 1e-4;
                    events.push_back(heartbeat("long", r, received, received, world));
                }
                QVERIFY(!(*store)->append(events));
                // Folded when the collector's store writer would.
                if ((*store)->logged_heartbeats() >= meshscope::server::heartbeat_fold_rows)
                    QVERIFY(!(*store)->fold_heartbeats());
            }
            // As many events as were acknowledged, though heartbeats are one row per rank.
            QCOMPARE((*store)->count("long"), world * 2 + world * rounds);
        }
        CollectorOptions options;
        options.database = path;
        // Judged against lifecycle events alone (the last 999 s ago) every rank would be stale; the slack
        // over the last heartbeat (3 s ago) covers a slow machine writing the history above.
        options.monitor.stale_after = 300;
        auto collector = Collector::open(options);
        QVERIFY(collector);
        QCOMPARE((*collector)->stats().events_rebuilt, world * 3);  // 2 events + 1 heartbeat summary per rank
        const auto ranks = (*collector)->call([](const meshscope::Monitor& m) { return m.ranks("long"); });
        QCOMPARE(static_cast<std::int64_t>(ranks.size()), world);
        for (const meshscope::RankState& rank : ranks) {
            QVERIFY(rank.last_seen);
            QCOMPARE(*rank.last_seen, last_received(rank.rank));
            QCOMPARE(rank.state, meshscope::RankStateKind::ready);
            QCOMPARE(rank.events, std::int64_t{3});
        }
        const auto findings = (*collector)->call([](const meshscope::Monitor& m) { return m.findings("long"); });
        for (const auto& f : findings) QVERIFY2(f.kind != meshscope::FindingKind::stale_rank, "no rank is stale");
    }
};

QTEST_GUILESS_MAIN(TestStore)
#include "tst_store.moc"
