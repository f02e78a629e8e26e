// net::HttpClient (net/http_client.h) against a scripted Beast server on loopback, run on a net::IoThread. The
// server does one thing per test row (answer, keep silent, cut the answer short, send garbage, close after the
// answer); the client runs on the test's thread until its callback has run, or until the server saw what the row
// waits for. The expected results are what the script makes the server do: the bytes it sends, the connections it
// accepts, the error a socket gives when nothing listens.
#include <QtTest>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "http_client.h"
#include "io_thread.h"

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using meshscope::net::HttpClient;
using meshscope::net::HttpError;
using meshscope::net::HttpRequest;
using meshscope::net::HttpResult;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

constexpr auto patience = 30s;  // a loaded machine; the ctest timeout is above it

enum class Script {
    answer,        // 200 "hello <n>" (the connection's n-th request), kept alive
    silent,        // reads the request, never answers
    cut,           // a 200 announcing 100 bytes, 5 of them, then closes
    garbage,       // a line that is not HTTP, then closes
    answer_close,  // 200 "bye" with Connection: close, then closes
};

// Accepts on 127.0.0.1:0 and treats every connection as its script says.
class ScriptedServer {
public:
    explicit ScriptedServer(Script script)
        : script_(script), acceptor_(loop_.context(), {asio::ip::make_address("127.0.0.1"), 0}) {
        accept();
        loop_.start();
    }
    ~ScriptedServer() { loop_.stop(); }

    [[nodiscard]] tcp::endpoint endpoint() const { return acceptor_.local_endpoint(); }
    [[nodiscard]] int accepted() const { return accepted_.load(); }
    [[nodiscard]] int closed_by_client() const { return closed_by_client_.load(); }
    [[nodiscard]] int requests() const { return requests_.load(); }

private:
    struct Session {
        explicit Session(tcp::socket s) : socket(std::move(s)) {}
        tcp::socket socket;
        beast::flat_buffer buffer;
        http::request<http::string_body> request;
        http::response<http::string_body> response;
        std::string raw;
        int served = 0;
    };

    void accept() {
        acceptor_.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
            if (ec) return;
            ++accepted_;
            read(std::make_shared<Session>(std::move(socket)));
            accept();
        });
    }

    void read(std::shared_ptr<Session> s) {
        s->request = {};
        http::async_read(s->socket, s->buffer, s->request, [this, s](boost::system::error_code ec, std::size_t) {
            if (ec) {
                ++closed_by_client_;
                return;
            }
            ++requests_;
            respond(s);
        });
    }

    void respond(const std::shared_ptr<Session>& s) {
        switch (script_) {
            case Script::silent: return read(s);  // holds the connection; notices when the client closes it
            case Script::answer:
            case Script::answer_close: {
                const bool close = script_ == Script::answer_close;
                s->response = {http::status::ok, 11};
                s->response.set(http::field::content_type, "text/plain");
                s->response.set("X-Host-Seen", s->request[http::field::host]);
                s->response.body() = close ? "bye" : "hello " + std::to_string(++s->served);
                s->response.keep_alive(!close);
                s->response.prepare_payload();
                http::async_write(s->socket, s->response, [this, s, close](boost::system::error_code ec, std::size_t) {
                    if (ec) return;
                    if (close) return shut(s);
                    read(s);
                });
                return;
            }
            case Script::cut: s->raw = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nhello"; break;
            case Script::garbage: s->raw = "this is not HTTP\r\n\r\n"; break;
        }
        asio::async_write(s->socket, asio::buffer(s->raw),
                          [this, s](boost::system::error_code, std::size_t) { shut(s); });
    }

    static void shut(const std::shared_ptr<Session>& s) {
        boost::system::error_code ignored;
        s->socket.shutdown(tcp::socket::shutdown_both, ignored);
        s->socket.close(ignored);
    }

    const Script script_;
    meshscope::net::IoThread loop_{"tst-server"};
    tcp::acceptor acceptor_;
    std::atomic<int> accepted_{0};
    std::atomic<int> closed_by_client_{0};
    std::atomic<int> requests_{0};
};

// A port nothing listens on: bound, then closed again.
tcp::endpoint free_endpoint() {
    asio::io_context io;
    tcp::acceptor probe(io, {asio::ip::make_address("127.0.0.1"), 0});
    const tcp::endpoint endpoint = probe.local_endpoint();
    probe.close();
    return endpoint;
}

HttpRequest post(std::string body) {
    HttpRequest request{http::verb::post, "/api/v1/events", 11};
    request.set(http::field::content_type, "application/json");
    request.keep_alive(true);
    request.body() = std::move(body);
    request.prepare_payload();
    return request;
}

// Runs the client's io_context on this thread until `done` holds or patience runs out.
bool run_until(asio::io_context& io, const std::function<bool()>& done) {
    const auto limit = Clock::now() + patience;
    while (!done() && Clock::now() < limit) {
        io.restart();
        io.run_one_for(20ms);
    }
    return done();
}

// Sends one request and runs until its callback ran; the result, or nothing when it never came.
std::optional<HttpResult> send(asio::io_context& io, HttpClient& client, HttpRequest request) {
    std::optional<HttpResult> result;
    client.request(std::move(request), [&](HttpResult r) { result = std::move(r); });
    run_until(io, [&] { return result.has_value(); });
    return result;
}

}  // namespace

Q_DECLARE_METATYPE(Script)
Q_DECLARE_METATYPE(HttpError::Kind)
Q_DECLARE_METATYPE(HttpError::Stage)

class TstHttpClient : public QObject {
    Q_OBJECT
private slots:
    // One request against each script: what the callback gets.
    void one_request_data() {
        QTest::addColumn<Script>("script");
        QTest::addColumn<bool>("fails");
        QTest::addColumn<HttpError::Kind>("kind");
        QTest::addColumn<HttpError::Stage>("stage");
        QTest::addColumn<QString>("what");  // the error's text, or the answer's body
        QTest::addColumn<bool>("connected_after");
        QTest::addRow("200 with a body, kept alive")
            << Script::answer << false << HttpError::Kind::other << HttpError::Stage::read << "hello 1" << true;
        QTest::addRow("200 with Connection: close")
            << Script::answer_close << false << HttpError::Kind::other << HttpError::Stage::read << "bye" << false;
        QTest::addRow("closed mid-answer") << Script::cut << true << HttpError::Kind::closed << HttpError::Stage::read
                                           << "read: partial message" << false;
        QTest::addRow("not HTTP") << Script::garbage << true << HttpError::Kind::malformed << HttpError::Stage::read
                                  << "read: bad version" << false;
    }
    void one_request() {
        QFETCH(Script, script);
        QFETCH(bool, fails);
        QFETCH(HttpError::Kind, kind);
        QFETCH(HttpError::Stage, stage);
        QFETCH(QString, what);
        QFETCH(bool, connected_after);
        ScriptedServer server(script);
        asio::io_context io{1};
        HttpClient client(io, server.endpoint(), {.timeout = patience});
        const auto result = send(io, client, post(R"([{"rank":0}])"));
        QVERIFY2(result, "no callback");
        QCOMPARE(result->error.has_value(), fails);
        if (fails) {
            QCOMPARE(result->error->kind, kind);
            QCOMPARE(result->error->stage, stage);
            QCOMPARE(QString::fromStdString(result->error->what()), what);
        } else {
            QCOMPARE(result->response.result_int(), 200u);
            QCOMPARE(QString::fromStdString(result->response.body()), what);
            const auto port = std::to_string(server.endpoint().port());
            QCOMPARE(std::string(result->response["X-Host-Seen"]), "127.0.0.1:" + port);  // the Host the client added
        }
        QVERIFY(!result->reused);
        QCOMPARE(client.connected(), connected_after);
        QVERIFY(!client.busy());
        QCOMPARE(server.accepted(), 1);
    }

    // Two requests in a row: the second goes on the first's connection unless the server closed it, and then on
    // a new one (the client reconnects by itself).
    void two_requests_data() {
        QTest::addColumn<Script>("script");
        QTest::addColumn<int>("connections");
        QTest::addColumn<QString>("second_body");
        QTest::addColumn<bool>("second_reused");
        QTest::addRow("keep-alive: one connection") << Script::answer << 1 << "hello 2" << true;
        QTest::addRow("Connection: close: a new connection") << Script::answer_close << 2 << "bye" << false;
    }
    void two_requests() {
        QFETCH(Script, script);
        QFETCH(int, connections);
        QFETCH(QString, second_body);
        QFETCH(bool, second_reused);
        ScriptedServer server(script);
        asio::io_context io{1};
        HttpClient client(io, server.endpoint(), {.timeout = patience});
        int connects = 0;
        client.on_connect([&] { ++connects; });
        const auto first = send(io, client, post("[]"));
        QVERIFY(first && !first->error);
        const auto second = send(io, client, post("[]"));
        QVERIFY(second && !second->error);
        QCOMPARE(QString::fromStdString(second->response.body()), second_body);
        QCOMPARE(second->reused, second_reused);
        QCOMPARE(server.accepted(), connections);
        QCOMPARE(connects, connections);
        QCOMPARE(server.requests(), 2);
    }

    // A server that never answers: the deadline fails the request, closes the connection, and the next request
    // opens a new one.
    void deadline_data() {
        QTest::addColumn<int>("timeout_ms");
        QTest::addRow("100 ms") << 100;
        QTest::addRow("300 ms") << 300;
    }
    void deadline() {
        QFETCH(int, timeout_ms);
        ScriptedServer server(Script::silent);
        asio::io_context io{1};
        HttpClient client(io, server.endpoint(), {.timeout = std::chrono::milliseconds(timeout_ms)});
        const auto start = Clock::now();
        const auto result = send(io, client, post("[]"));
        const auto took = Clock::now() - start;
        QVERIFY2(result, "no callback");
        QVERIFY(result->error);
        QCOMPARE(result->error->kind, HttpError::Kind::timeout);
        QCOMPARE(result->error->stage, HttpError::Stage::read);
        QCOMPARE(QString::fromStdString(result->error->what()), QString("timed out waiting for the answer"));
        QVERIFY(took >= std::chrono::milliseconds(timeout_ms));
        QVERIFY(!client.connected());
        QVERIFY(run_until(io, [&] { return server.closed_by_client() == 1; }));  // the client closed it
        QVERIFY(send(io, client, post("[]")));
        QCOMPARE(server.accepted(), 2);
    }

    // Nothing listens: refused at connect, by endpoint and by name.
    void refused_data() {
        QTest::addColumn<bool>("by_name");
        QTest::addRow("endpoint") << false;
        QTest::addRow("host and port, resolved") << true;
    }
    void refused() {
        QFETCH(bool, by_name);
        const tcp::endpoint nobody = free_endpoint();
        asio::io_context io{1};
        HttpClient client = by_name ? HttpClient(io, {.host = "127.0.0.1", .port = std::to_string(nobody.port())},
                                                 {.timeout = patience})
                                    : HttpClient(io, nobody, {.timeout = patience});
        const auto result = send(io, client, post("[]"));
        QVERIFY2(result, "no callback");
        QVERIFY(result->error);
        QCOMPARE(result->error->kind, HttpError::Kind::refused);
        QCOMPARE(result->error->stage, HttpError::Stage::connect);
        QCOMPARE(QString::fromStdString(result->error->what()), QString("connect: Connection refused"));
        QVERIFY(!client.connected());
    }

    // A name that does not resolve fails at resolve, typed unreachable.
    void unresolvable() {
        asio::io_context io{1};
        HttpClient client(io, {.host = "no-such-host.invalid", .port = "80"}, {.timeout = patience});
        const auto result = send(io, client, post("[]"));
        QVERIFY2(result, "no callback");
        QVERIFY(result->error);
        QCOMPARE(result->error->kind, HttpError::Kind::unreachable);
        QCOMPARE(result->error->stage, HttpError::Stage::resolve);
    }

    // With idle_close the client closes a connection left unused that long; the next request opens a new one.
    void idle_close() {
        ScriptedServer server(Script::answer);
        asio::io_context io{1};
        HttpClient client(io, server.endpoint(), {.timeout = patience, .idle_close = 50ms});
        QVERIFY(send(io, client, post("[]")));
        QVERIFY(run_until(io, [&] { return server.closed_by_client() == 1; }));
        QVERIFY(!client.connected());
        const auto second = send(io, client, post("[]"));
        QVERIFY(second && !second->error);
        QVERIFY(!second->reused);
        QCOMPARE(server.accepted(), 2);
    }

    // close() abandons the request in flight: its callback never runs, and the server sees the connection go.
    void close_abandons() {
        ScriptedServer server(Script::silent);
        asio::io_context io{1};
        HttpClient client(io, server.endpoint(), {.timeout = patience});
        bool called = false;
        client.request(post("[]"), [&](HttpResult) { called = true; });
        QVERIFY(run_until(io, [&] { return server.requests() == 1; }));
        client.close();
        QVERIFY(run_until(io, [&] { return server.closed_by_client() == 1; }));
        io.restart();
        io.poll();
        QVERIFY(!called);
        QVERIFY(!client.busy());
    }
};

QTEST_GUILESS_MAIN(TstHttpClient)
#include "tst_http_client.moc"
