// parallel_for: every index once, on at most the threads asked for, the calling thread among them.
#include <QTest>

#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "meshscope/mesh/parallel_for.h"

using meshscope::parallel_for;
using meshscope::parallel_threads;

class ParallelForTest : public QObject {
    Q_OBJECT
private slots:
    void every_index_once_data() {
        QTest::addColumn<int>("count");
        QTest::addColumn<int>("threads");
        QTest::addRow("nothing") << 0 << 4;
        QTest::addRow("one item, many threads") << 1 << 8;
        QTest::addRow("more threads than items") << 3 << 8;
        QTest::addRow("calling thread alone") << 100 << 1;
        QTest::addRow("zero threads asked: the calling thread") << 10 << 0;
        QTest::addRow("many items") << 10000 << 4;
    }
    void every_index_once() {
        QFETCH(int, count);
        QFETCH(int, threads);
        std::vector<std::atomic<int>> calls(static_cast<std::size_t>(count));
        std::mutex mutex;
        std::set<std::thread::id> seen;
        parallel_for(static_cast<std::size_t>(count), static_cast<std::size_t>(threads), [&](std::size_t i) {
            calls[i].fetch_add(1);
            std::lock_guard lock(mutex);
            seen.insert(std::this_thread::get_id());
        });
        for (int i = 0; i < count; ++i) QCOMPARE(calls[static_cast<std::size_t>(i)].load(), 1);
        // never more threads than asked (at least the calling one) or than items
        QVERIFY(seen.size() <= static_cast<std::size_t>(std::max(1, std::min(threads, count))));
        if (threads <= 1 && count > 0) {
            QCOMPARE(seen.size(), std::size_t{1});
            QVERIFY(seen.count(std::this_thread::get_id()) == 1);
        }
    }

    // body(i, worker): each worker one thread (the calling one is 0), every worker below the threads asked for, so
    // buffers kept per worker are never shared.
    void workers_data() {
        QTest::addColumn<int>("count");
        QTest::addColumn<int>("threads");
        QTest::addRow("calling thread alone") << 100 << 1;
        QTest::addRow("more threads than items") << 3 << 8;
        QTest::addRow("many items") << 10000 << 4;
    }
    void workers() {
        QFETCH(int, count);
        QFETCH(int, threads);
        std::mutex mutex;
        std::map<std::size_t, std::set<std::thread::id>> thread_of;
        std::vector<std::atomic<int>> calls(static_cast<std::size_t>(count));
        parallel_for(static_cast<std::size_t>(count), static_cast<std::size_t>(threads),
                     [&](std::size_t i, std::size_t worker) {
                         calls[i].fetch_add(1);
                         std::lock_guard lock(mutex);
                         thread_of[worker].insert(std::this_thread::get_id());
                     });
        for (int i = 0; i < count; ++i) QCOMPARE(calls[static_cast<std::size_t>(i)].load(), 1);
        for (const auto& [worker, ids] : thread_of) {
            QVERIFY2(worker < static_cast<std::size_t>(std::max(1, std::min(threads, count))),
                     qPrintable(QString::number(worker)));
            QCOMPARE(ids.size(), std::size_t{1});
            if (worker == 0) QVERIFY(ids.count(std::this_thread::get_id()) == 1);
        }
    }

    void threads_for_a_loop_data() {
        QTest::addColumn<int>("count");
        QTest::addColumn<int>("most");
        QTest::addColumn<int>("expected");
        const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        QTest::addRow("no items: the calling thread") << 0 << 8 << 1;
        QTest::addRow("one item") << 1 << 8 << 1;
        QTest::addRow("most 1") << 100 << 1 << 1;
        QTest::addRow("bounded by the cores") << 100000 << 100000 << cores;
        QTest::addRow("bounded by most") << 100000 << 2 << std::min(cores, 2);
    }
    void threads_for_a_loop() {
        QFETCH(int, count);
        QFETCH(int, most);
        QFETCH(int, expected);
        QCOMPARE(parallel_threads(static_cast<std::size_t>(count), static_cast<std::size_t>(most)),
                 static_cast<std::size_t>(expected));
    }
};

QTEST_GUILESS_MAIN(ParallelForTest)
#include "tst_parallel_for.moc"
