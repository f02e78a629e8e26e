// RasClient's waits (server/ras/ras_client.h) against a scripted RAS on loopback: RasStop ends a wait in each
// exchange at once, whatever the timeout; MONITOR's quiet bound ends a connection with no byte; a refused MONITOR
// is RasMonitorRefused. The exact texts are those the collector's threads act on.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QTest>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "ras/ras_client.h"

using namespace meshscope;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {
// One connection at a time on 127.0.0.1: each command line it reads is answered by `answer` (nothing for an empty
// answer), and the connection stays open until the server is destroyed.
class ScriptedRas {
public:
    explicit ScriptedRas(std::vector<std::pair<std::string, std::string>> script) : script_(std::move(script)) {
        listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof addr;
        if (::bind(listener_, reinterpret_cast<sockaddr*>(&addr), len) != 0 || ::listen(listener_, 4) != 0 ||
            ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
            qFatal("cannot listen on loopback");
        port_ = ntohs(addr.sin_port);
        thread_ = std::thread([this] { serve(); });
    }
    ~ScriptedRas() {
        done_ = true;
        thread_.join();
        ::close(listener_);
    }
    [[nodiscard]] std::string port() const { return std::to_string(port_); }

private:
    bool wait_readable(int fd) {
        while (!done_) {
            pollfd p{fd, POLLIN, 0};
            if (::poll(&p, 1, 20) > 0) return true;
        }
        return false;
    }
    void serve() {
        if (!wait_readable(listener_)) return;
        const int conn = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
        std::string buffer;
        std::size_t next = 0;
        while (wait_readable(conn)) {
            char chunk[4096];
            const ssize_t n = ::recv(conn, chunk, sizeof chunk, 0);
            if (n <= 0) break;
            buffer.append(chunk, static_cast<std::size_t>(n));
            for (auto nl = buffer.find('\n'); nl != std::string::npos; nl = buffer.find('\n')) {
                const std::string line = buffer.substr(0, nl);
                buffer.erase(0, nl + 1);
                if (next < script_.size() && line == script_[next].first) {
                    const std::string& answer = script_[next++].second;
                    if (!answer.empty()) (void)::send(conn, answer.data(), answer.size(), MSG_NOSIGNAL);
                }
            }
        }
        ::close(conn);
    }

    std::vector<std::pair<std::string, std::string>> script_;
    int listener_ = -1;
    int port_ = 0;
    std::atomic<bool> done_{false};
    std::thread thread_;
};

const std::pair<std::string, std::string> hello{"CLIENT PROTOCOL 2", "SERVER PROTOCOL 2\n"};
const std::pair<std::string, std::string> json{"SET FORMAT json", "OK\n"};
}  // namespace

class RasClientTest : public QObject {
    Q_OBJECT
private slots:
    // The server goes silent in one exchange; the client waits with a timeout of a minute and is stopped from
    // another thread after 100 ms.
    void stop_ends_each_wait_data() {
        QTest::addColumn<QString>("silent_in");
        QTest::newRow("the handshake") << "handshake";
        QTest::newRow("the status") << "status";
        QTest::newRow("MONITOR, between events") << "monitor";
        QTest::newRow("stopped before it starts") << "before";
    }
    void stop_ends_each_wait() {
        QFETCH(QString, silent_in);
        std::vector<std::pair<std::string, std::string>> script;
        if (silent_in != "handshake" && silent_in != "before") script = {hello, json, {"MONITOR", "OK\n"}};
        ScriptedRas server(script);
        ras::RasStop stop;
        ras::RasClient client("127.0.0.1", server.port(), 60s, 1 << 20, &stop);
        if (silent_in == "before") stop.stop();
        std::thread stopper([&] {
            std::this_thread::sleep_for(100ms);  // the stop comes from elsewhere while the client waits
            stop.stop();
        });
        const auto started = Clock::now();
        QString what;
        try {
            (void)client.open(true);
            if (silent_in == "status") (void)client.verbose_status();
            if (silent_in == "monitor") (void)client.monitor([](const std::string&) { return true; });
        } catch (const ras::RasClientStopped& e) {
            what = e.what();
        }
        stopper.join();
        QCOMPARE(what, QString::fromStdString("127.0.0.1:" + server.port() + ": stopped"));
        QVERIFY(Clock::now() - started < 10s);
        QVERIFY(stop.stopped());
    }

    void monitor_quiet_data() {
        QTest::addColumn<QString>("events");  // sent after MONITOR's OK, then nothing
        QTest::addColumn<int>("seen");
        QTest::newRow("no event") << "" << 0;
        QTest::newRow("one event, then quiet") << "2026-12-03 14:06:11 PEER_DEAD: 10.1.0.2:45011\n" << 1;
    }
    void monitor_quiet() {
        QFETCH(QString, events);
        ScriptedRas server({hello,
                            {"SET FORMAT json", "ERROR: Unknown command SET FORMAT json\n"},
                            {"MONITOR", "OK\n" + events.toStdString()}});
        ras::RasClient client("127.0.0.1", server.port(), 60s, 1 << 20);
        (void)client.open(true);
        std::vector<std::string> seen;
        const auto started = Clock::now();
        const auto end = client.monitor(
            [&](const std::string& event) {
                seen.push_back(event);
                return true;
            },
            200ms);
        QCOMPARE(end, ras::RasClient::MonitorEnd::quiet);
        QTEST(static_cast<int>(seen.size()), "seen");
        for (const auto& event : seen) QCOMPARE(event, std::string("2026-12-03 14:06:11 PEER_DEAD: 10.1.0.2:45011"));
        QVERIFY(Clock::now() - started >= 200ms);
        QVERIFY(Clock::now() - started < 10s);
    }

    void monitor_refused() {
        ScriptedRas server({hello, json, {"MONITOR", "ERROR: Unknown command MONITOR\n"}});
        ras::RasClient client("127.0.0.1", server.port(), 60s, 1 << 20);
        (void)client.open(true);
        QString what;
        try {
            (void)client.monitor([](const std::string&) { return true; }, 200ms);
        } catch (const ras::RasMonitorRefused& e) {
            what = e.what();
        }
        QCOMPARE(what, QString::fromStdString("127.0.0.1:" + server.port() +
                                              " refused MONITOR (NCCL 2.29 and later have it): \"ERROR: Unknown "
                                              "command MONITOR\""));
    }
};

QTEST_GUILESS_MAIN(RasClientTest)
#include "tst_ras_client.moc"
