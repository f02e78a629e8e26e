// The collector's side of the HTTP engine (net/http_engine.h): its handler hands each request to ApiRouter and
// posts the answer back to the network thread (the collector's threads answer), hands a WebSocket upgrade to the
// stream hub, and with TLS starts each connection with the handshake. The engine keeps its connections to the
// collector's limits (http_server.h).
#include "http_server.h"

#include <boost/asio/ip/tcp.hpp>

#include "api_router.h"
#include "beast_engine.h"
#include "beast_request.h"
#include "collector/collector.h"
#include "descriptor_limit.h"
#include "http_engine.h"
#include "io_thread.h"
#include "tls_context.h"

namespace meshscope::server {

namespace {

// How long after a connection was refused (past max_connections) answers close their connections.
// Longer than a refused rank's Retry-After (2 s x up to 1.5), as long as a heartbeat interval.
constexpr std::chrono::seconds rotate_for{5};

// How often the engine looks for sessions past their deadline. Deadlines are seconds long (idle 60 s, request
// 10 s) except a refused request's drain reads (300 ms), which this may stretch to 800 ms.
constexpr std::chrono::milliseconds deadline_sweep_every{500};

net::EngineSettings engine_settings(const ConnectionLimits& limits) {
    net::EngineSettings settings;
    settings.max_connections = limits.max_connections;
    settings.max_header_bytes = limits.max_header_bytes;
    settings.max_body_bytes = limits.max_body_bytes;
    settings.read_buffer_bytes = limits.read_buffer_bytes;
    settings.read_timeout = std::chrono::milliseconds(limits.read_timeout_ms);
    settings.idle_timeout = std::chrono::milliseconds(limits.idle_timeout_ms);
    settings.write_timeout = std::chrono::milliseconds(limits.idle_timeout_ms);
    settings.sweep_every = deadline_sweep_every;
    settings.rotate_after_refusal = rotate_for;
    settings.common_headers = security_headers();
    return settings;
}

// What the engine asks of the collector.
struct CollectorHandler {
    using Reply = HttpReply;
    struct Connection {};

    ApiRouter& router;
    std::shared_ptr<Gate> gate;
    std::shared_ptr<StreamHub> hub;
    std::shared_ptr<asio::ssl::context> tls;  // set: every connection is TLS

    [[nodiscard]] static HttpReply error_reply(int status, std::string_view message, net::Headers headers = {}) {
        return server::error_reply(status, message, std::move(headers));
    }
    // The router answers on the collector's threads; the answer is posted back to the network thread.
    void handle(net::Request& message, net::Respond<HttpReply> respond, Connection&) {
        router.handle(router_request(message), [gate = gate, respond = std::move(respond)](HttpReply reply) mutable {
            gate->post(
                [respond = std::move(respond), reply = std::move(reply)]() mutable { respond(std::move(reply)); });
        });
    }
    void take(net::HttpEngine<CollectorHandler>& engine, tcp::socket socket, std::shared_ptr<ConnectionSlot> slot) {
        if (tls)
            engine.start_session(TlsStream(PlainStream(std::move(socket)), *tls), std::move(slot));
        else
            engine.start_session(PlainStream(std::move(socket)), std::move(slot));
    }
    template <typename Stream>
    void upgrade(Stream stream, net::Request request, std::shared_ptr<ConnectionSlot> slot, StreamStart start) {
        accept_stream(hub, std::move(stream), std::move(request), std::move(slot), std::move(start));
    }
};

}  // namespace

struct HttpServer::Impl {
    Impl(Collector& c, HttpOptions o)
        : collector(c),
          options(std::move(o)),
          gate(std::make_shared<Gate>(loop.context())),
          router(c, options),
          handler{router, gate, nullptr, nullptr},
          engine(loop.context(), handler, engine_settings(options.limits)) {}

    Collector& collector;
    HttpOptions options;
    net::IoThread loop{"ms-network"};
    std::shared_ptr<Gate> gate;
    ApiRouter router;
    CollectorHandler handler;
    net::HttpEngine<CollectorHandler> engine;  // after the loop: closed before its io_context
    std::shared_ptr<StreamHub> hub;
    int subscription = 0;
};

Expected<std::unique_ptr<HttpServer>> HttpServer::start(Collector& collector, HttpOptions options) {
    if (options.limits.max_connections == 0) options.limits.max_connections = default_max_connections();
    net::raise_descriptor_limit();  // a --max-connections given on the command line needs it raised too
    const std::string where = options.address + ":" + std::to_string(options.port);
    std::shared_ptr<asio::ssl::context> tls;
    if (!options.tls_cert.empty() || !options.tls_key.empty()) {
        auto context = make_tls_context(options.tls_cert, options.tls_key);
        if (!context) return context.error();
        tls = std::move(context).value();
    }
    std::unique_ptr<HttpServer> server(new HttpServer());
    server->impl_ = std::make_unique<Impl>(collector, options);
    Impl& impl = *server->impl_;
    impl.handler.tls = std::move(tls);
    beast::error_code error;
    const auto address = asio::ip::make_address(options.address, error);
    if (error) return RuntimeError("cannot listen on " + where + ": not an IP address");
    error = impl.engine.listen(address, options.port);
    if (error) return RuntimeError("cannot listen on " + where + ": " + error.message());

    impl.hub = std::make_shared<StreamHub>(
        impl.loop.context(), impl.gate,
        StreamSettings{.max_backlog_bytes = options.max_stream_backlog_bytes,
                       .resume_messages = options.stream_resume_messages,
                       .resume_bytes = options.stream_resume_bytes,
                       .auth_timeout = std::chrono::milliseconds(options.stream_auth_timeout_ms),
                       .token = options.token});
    impl.handler.hub = impl.hub;
    impl.subscription = collector.subscribe([hub = impl.hub](const Change& change) { hub->on_change(change); });
    impl.engine.start();
    impl.loop.start();
    return server;
}

HttpServer::~HttpServer() {
    if (!impl_) return;
    impl_->collector.unsubscribe(impl_->subscription);
    asio::post(impl_->loop.context(), [impl = impl_.get()] {
        impl->engine.close();
        impl->hub->close_all();
    });
    impl_->gate->close();  // answers still coming from the collector go nowhere now
    // Let the closes run, then stop whatever is still waiting (idle keep-alive connections).
    impl_->loop.stop();
}

std::uint16_t HttpServer::port() const noexcept {
    return impl_->engine.port();
}

std::size_t HttpServer::max_connections() const noexcept {
    return impl_->options.limits.max_connections;
}

std::size_t HttpServer::open_connections() const noexcept {
    return impl_->engine.open_connections();
}

}  // namespace meshscope::server
