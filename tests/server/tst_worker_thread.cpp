// net::WorkerThread (net/worker_thread.h) alone: the thread that the collector's parse, monitor, store,
// plan and tour threads are. What waits and what a post beyond the bound does, how many items a turn takes, the
// gather window, the tick, what stop runs and what it drops, and the name /proc shows. The expected turns are
// worked by hand from the options: items 1..n are posted while item 0's turn holds the thread, so they all wait.
#include <QDir>
#include <QFile>
#include <QtTest>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "worker_thread.h"

using Worker = meshscope::net::WorkerThread<int>;
using Clock = std::chrono::steady_clock;

namespace {

constexpr auto patience = std::chrono::seconds(30);  // a loaded machine; the ctest timeout is above it
constexpr int sentinel = -1;                         // posted to learn when stop began; left out of the log

// What the worker did, in order ("turn 1 2 3", "drop 4", "tick"), seen from the test's thread.
class Log {
public:
    void add(const QString& entry) {
        {
            std::lock_guard lock(mutex_);
            entries_ << entry;
        }
        changed_.notify_all();
    }
    void add_turn(const Worker::Batch& batch) {
        QStringList items;
        for (int item : batch)
            if (item != sentinel) items << QString::number(item);
        if (!items.isEmpty()) add("turn " + items.join(' '));
    }
    [[nodiscard]] bool wait_for(const std::function<bool(const QStringList&)>& done) {
        std::unique_lock lock(mutex_);
        return changed_.wait_for(lock, patience, [&] { return done(entries_); });
    }
    [[nodiscard]] QStringList entries() const {
        std::lock_guard lock(mutex_);
        return entries_;
    }

private:
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    QStringList entries_;
};

// Holds the worker inside a turn until the test opens it: what is posted meanwhile waits.
class Gate {
public:
    void pass() {
        std::unique_lock lock(mutex_);
        opened_.wait(lock, [this] { return open_; });
    }
    void open() {
        {
            std::lock_guard lock(mutex_);
            open_ = true;
        }
        opened_.notify_all();
    }

private:
    std::mutex mutex_;
    std::condition_variable opened_;
    bool open_ = false;
};

// Opens the gate when the test function returns, also on a failed check, so that the worker can be joined.
struct OpenAtExit {
    Gate& gate;
    ~OpenAtExit() { gate.open(); }
};

std::size_t size_option(int value) {  // -1 in the tables: no limit
    return value < 0 ? Worker::unbounded : static_cast<std::size_t>(value);
}

QString comm_of(const QString& task_dir) {
    QFile file(task_dir + "/comm");
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(file.readAll()).trimmed();
}

}  // namespace

class TestWorkerThread : public QObject {
    Q_OBJECT

private slots:
    void queue_data() {
        QTest::addColumn<int>("bound");  // -1: none
        QTest::addColumn<bool>("replace");
        QTest::addColumn<int>("max_batch");  // -1: all
        QTest::addColumn<int>("posts");      // items 1..posts, posted while item 0's turn runs
        QTest::addColumn<QStringList>("turns");
        QTest::addColumn<QList<int>>("left_out");  // what the posts returned, in order

        QTest::addRow("no bound, all that waits in one turn (parse, monitor, store)")
            << -1 << false << -1 << 5 << QStringList{"turn 0", "turn 1 2 3 4 5"} << QList<int>{};
        QTest::addRow("no bound, one a turn")
            << -1 << false << 1 << 3 << QStringList{"turn 0", "turn 1", "turn 2", "turn 3"} << QList<int>{};
        QTest::addRow("no bound, two a turn")
            << -1 << false << 2 << 5 << QStringList{"turn 0", "turn 1 2", "turn 3 4", "turn 5"} << QList<int>{};
        QTest::addRow("bound 2 refuses the third")
            << 2 << false << 1 << 4 << QStringList{"turn 0", "turn 1", "turn 2"} << QList<int>{3, 4};
        QStringList sixteen{"turn 0"};
        for (int i = 1; i <= 16; ++i) sixteen << QString("turn %1").arg(i);
        QTest::addRow("bound 16, one a turn (plan): the 17th and 18th are refused")
            << 16 << false << 1 << 18 << sixteen << QList<int>{17, 18};
        QTest::addRow("bound 1 replaces the oldest (tour): the newest runs")
            << 1 << true << -1 << 3 << QStringList{"turn 0", "turn 3"} << QList<int>{1, 2};
        QTest::addRow("bound 2 replaces the oldest")
            << 2 << true << -1 << 4 << QStringList{"turn 0", "turn 3 4"} << QList<int>{1, 2};
    }

    void queue() {
        QFETCH(int, bound);
        QFETCH(bool, replace);
        QFETCH(int, max_batch);
        QFETCH(int, posts);
        QFETCH(QStringList, turns);
        QFETCH(QList<int>, left_out);

        Log log;
        Gate gate;
        Worker worker({.name = "tst-queue",
                       .bound = size_option(bound),
                       .when_full = replace ? Worker::WhenFull::replace_oldest : Worker::WhenFull::refuse,
                       .max_batch = size_option(max_batch)},
                      [&](Worker::Batch& batch) {
                          log.add_turn(batch);
                          if (batch.front() == 0) gate.pass();
                      });
        const OpenAtExit open_at_exit{gate};
        QVERIFY(!worker.post(0));
        QVERIFY(log.wait_for([](const QStringList& e) { return e.size() == 1; }));  // item 0's turn holds it
        QList<int> returned;
        for (int i = 1; i <= posts; ++i)
            if (std::optional<int> out = worker.post(i)) returned << *out;
        gate.open();
        QVERIFY(log.wait_for([&](const QStringList& e) { return e.size() >= turns.size(); }));
        worker.stop();  // drains: a turn too many would be in the log now
        QCOMPARE(log.entries(), turns);
        QCOMPARE(returned, left_out);
    }

    void bound_zero_data() {
        QTest::addColumn<bool>("replace");
        QTest::addRow("refuse") << false;
        QTest::addRow("replace the oldest: there is none") << true;
    }

    void bound_zero() {
        QFETCH(bool, replace);
        Log log;
        Worker worker({.name = "tst-zero",
                       .bound = 0,
                       .when_full = replace ? Worker::WhenFull::replace_oldest : Worker::WhenFull::refuse},
                      [&](Worker::Batch& batch) { log.add_turn(batch); });
        QCOMPARE(worker.post(1).value_or(0), 1);
        worker.stop();
        QCOMPARE(log.entries(), QStringList{});
    }

    void stop_data() {
        QTest::addColumn<bool>("drop");
        QTest::addColumn<QStringList>("log");
        // drop: what waits is handed to on_drop by the stopping thread while item 0's turn still runs.
        QTest::addRow("drain: what waits still runs") << false << QStringList{"turn 0", "end 0", "turn 1 2 3"};
        QTest::addRow("drop: what waits is answered at once, never run")
            << true << QStringList{"turn 0", "drop 1", "drop 2", "drop 3", "end 0"};
    }

    void stop() {
        QFETCH(bool, drop);
        QFETCH(QStringList, log);

        Log seen;
        Gate gate;
        Worker worker({.name = "tst-stop",
                       .at_stop = drop ? Worker::AtStop::drop : Worker::AtStop::drain,
                       .on_drop =
                           [&](int& item) {
                               if (item != sentinel) seen.add(QString("drop %1").arg(item));
                           }},
                      [&](Worker::Batch& batch) {
                          seen.add_turn(batch);
                          if (batch.front() == 0) {
                              gate.pass();
                              seen.add("end 0");
                          }
                      });
        std::jthread stopper;  // after the worker, before the gate's opener: joined once the gate is open
        const OpenAtExit open_at_exit{gate};
        QVERIFY(!worker.post(0));
        QVERIFY(seen.wait_for([](const QStringList& e) { return e.size() == 1; }));
        for (int i = 1; i <= 3; ++i) QVERIFY(!worker.post(i));
        stopper = std::jthread([&] { worker.stop(); });  // joins: returns once item 0's turn is let go
        // Stop has begun when a post is refused (those accepted before it wait like 1..3, left out of the log).
        bool refused = false;
        for (const auto until = Clock::now() + patience; !refused && Clock::now() < until;) {
            refused = worker.post(sentinel).has_value();
            if (!refused) std::this_thread::yield();
        }
        QVERIFY(refused);
        if (drop) QVERIFY(seen.wait_for([](const QStringList& e) { return e.contains("drop 3"); }));
        gate.open();
        stopper.join();
        QCOMPARE(seen.entries(), log);
        QCOMPARE(worker.post(9).value_or(0), 9);  // after stop: refused
    }

    void gather() {
        // After the first item the thread waits the window for more, so all three are one turn; stop ends the
        // window (a stop that waited out the hour would run past the test's timeout).
        Log log;
        Worker worker({.name = "tst-gather", .gather = std::chrono::hours(1)},
                      [&](Worker::Batch& batch) { log.add_turn(batch); });
        for (int i = 1; i <= 3; ++i) QVERIFY(!worker.post(i));
        worker.stop();
        QCOMPARE(log.entries(), QStringList{"turn 1 2 3"});
    }

    void tick_data() {
        QTest::addColumn<int>("interval_ms");
        QTest::addRow("10 ms") << 10;
        QTest::addRow("50 ms") << 50;
    }

    void tick() {
        QFETCH(int, interval_ms);
        const auto interval = std::chrono::milliseconds(interval_ms);

        Log log;
        std::atomic<pid_t> work_tid{0};
        std::atomic<pid_t> tick_tid{0};
        const auto start = Clock::now();
        Worker worker({.name = "tst-tick",
                       .tick = interval,
                       .on_tick =
                           [&] {
                               tick_tid = gettid();
                               log.add("tick");
                           }},
                      [&](Worker::Batch& batch) {
                          work_tid = gettid();
                          log.add_turn(batch);
                          log.add("end");
                      });
        // Idle, it ticks; each tick is due `interval` after the one before, so three take at least three.
        QVERIFY(log.wait_for([](const QStringList& e) { return e.count("tick") >= 3; }));
        QVERIFY(Clock::now() - start >= 3 * interval);
        QVERIFY(!worker.post(1));
        QVERIFY(log.wait_for([](const QStringList& e) {
            const qsizetype end = e.indexOf("end");
            return end >= 0 && e.indexOf("tick", end) > end;
        }));
        worker.stop();
        const QStringList entries = log.entries();
        const qsizetype turn = entries.indexOf("turn 1");
        QVERIFY(turn >= 3);
        QCOMPARE(entries.at(turn + 1), QString("end"));  // a tick waits for the turn, never cuts into it
        QCOMPARE(tick_tid.load(), work_tid.load());      // on the worker's own thread
        QVERIFY(tick_tid.load() != gettid());
    }

    void tick_not_yet_due() {
        // Turns come and go; the tick waits for its time (an hour away), not for the next turn.
        Log log;
        Worker worker({.name = "tst-tick", .tick = std::chrono::hours(1), .on_tick = [&] { log.add("tick"); }},
                      [&](Worker::Batch& batch) { log.add_turn(batch); });
        for (int i = 1; i <= 3; ++i) {
            QVERIFY(!worker.post(i));
            QVERIFY(log.wait_for([&](const QStringList& e) { return e.size() == i; }));
        }
        worker.stop();
        QCOMPARE(log.entries(), (QStringList{"turn 1", "turn 2", "turn 3"}));
    }

    void name_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("comm");
        QTest::addRow("ms-parse") << "ms-parse"
                                  << "ms-parse";
        QTest::addRow("ms-monitor") << "ms-monitor"
                                    << "ms-monitor";
        QTest::addRow("15 characters, the most Linux keeps") << "ms-fifteen-char"
                                                             << "ms-fifteen-char";
        QTest::addRow("16 characters: cut at 15") << "ms-sixteen-chars"
                                                  << "ms-sixteen-char";
    }

    void name() {
        QFETCH(QString, name);
        QFETCH(QString, comm);

        std::atomic<pid_t> tid{0};
        Worker worker({.name = name.toStdString()}, [&](Worker::Batch&) { tid = gettid(); });
        QVERIFY(!worker.post(1));
        QTRY_VERIFY_WITH_TIMEOUT(tid.load() != 0, 30000);
        QCOMPARE(comm_of(QString("/proc/self/task/%1").arg(tid.load())), comm);
        QStringList named;  // every task of this process that carries the name: the worker alone
        for (const QString& task : QDir("/proc/self/task").entryList(QDir::Dirs | QDir::NoDotAndDotDot))
            if (comm_of("/proc/self/task/" + task) == comm) named << task;
        QCOMPARE(named, QStringList{QString::number(tid.load())});
    }
};

QTEST_GUILESS_MAIN(TestWorkerThread)
#include "tst_worker_thread.moc"
