// net::IoThread (net/io_thread.h) alone: the name its thread carries, that the loop keeps running with nothing to
// do, that stop() runs what was posted before it and joins (twice, from the loop itself, from the destructor), and
// that join() waits for a loop that ends by itself. Waits are on conditions (futures), never sleeps.
#include <QtTest>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <pthread.h>

#include <chrono>
#include <future>
#include <string>
#include <thread>

#include "io_thread.h"

using meshscope::net::IoThread;
namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {
constexpr auto patience = 30s;  // a loaded machine; the ctest timeout is above it

// Runs `f` on the loop and waits for its value.
template <typename F>
auto on_loop(IoThread& loop, F f) -> decltype(f()) {
    std::promise<decltype(f())> promise;
    auto future = promise.get_future();
    asio::post(loop.context(), [&] { promise.set_value(f()); });
    if (future.wait_for(patience) != std::future_status::ready) throw std::runtime_error("the loop did not run it");
    return future.get();
}
}  // namespace

class TstIoThread : public QObject {
    Q_OBJECT
private slots:
    // The name /proc and `top -H` show: as given, cut to Linux's 15 characters.
    void name_data() {
        QTest::addColumn<QString>("given");
        QTest::addColumn<QString>("shown");
        QTest::addRow("ms-relay") << "ms-relay"
                                  << "ms-relay";
        QTest::addRow("cut at 15") << "ms-a-very-long-thread-name"
                                   << "ms-a-very-long-";
    }
    void name() {
        QFETCH(QString, given);
        QFETCH(QString, shown);
        IoThread loop(given.toStdString());
        loop.start();
        const std::string seen = on_loop(loop, [] {
            char text[16] = {};
            pthread_getname_np(pthread_self(), text, sizeof text);
            return std::string(text);
        });
        QCOMPARE(QString::fromStdString(seen), shown);
    }

    // Nothing waits on the loop, yet it runs what is posted later (the work guard); stop() runs the handlers posted
    // before it, then joins; a second stop() does nothing.
    void stop_runs_what_was_posted_data() {
        QTest::addColumn<int>("posted");
        QTest::addRow("none") << 0;
        QTest::addRow("one") << 1;
        QTest::addRow("a hundred") << 100;
    }
    void stop_runs_what_was_posted() {
        QFETCH(int, posted);
        IoThread loop("tst-loop");
        loop.start();
        QCOMPARE(on_loop(loop, [] { return 7; }), 7);  // idle, still running
        int ran = 0;
        for (int i = 0; i < posted; ++i) asio::post(loop.context(), [&ran] { ++ran; });
        loop.stop();
        QCOMPARE(ran, posted);
        QVERIFY(!loop.running());
        loop.stop();
        QVERIFY(!loop.running());
    }

    // stop() from a handler on the loop ends it without joining itself; the owner's stop() then joins.
    void stop_from_the_loop() {
        IoThread loop("tst-loop");
        loop.start();
        std::promise<void> stopped;
        asio::post(loop.context(), [&] {
            loop.stop();
            stopped.set_value();
        });
        QCOMPARE(stopped.get_future().wait_for(patience), std::future_status::ready);
        loop.stop();
        QVERIFY(!loop.running());
    }

    // join() waits for the loop to end by itself: here a timer's handler stops the context, as the relay's drain
    // does once every answer is written.
    void join_waits_for_the_loop() {
        IoThread loop("tst-loop");
        asio::steady_timer timer(loop.context());
        bool fired = false;
        timer.expires_after(50ms);
        timer.async_wait([&](boost::system::error_code ec) {
            fired = !ec;
            loop.context().stop();
        });
        loop.start();
        loop.join();
        QVERIFY(fired);
        QVERIFY(!loop.running());
    }

    // The destructor stops and joins; never started, nothing to join.
    void destructor_stops() {
        std::thread::id id;
        {
            IoThread loop("tst-loop");
            loop.start();
            id = on_loop(loop, [] { return std::this_thread::get_id(); });
        }
        QVERIFY(id != std::this_thread::get_id());
        { IoThread never("tst-never"); }
    }
};

QTEST_GUILESS_MAIN(TstIoThread)
#include "tst_io_thread.moc"
