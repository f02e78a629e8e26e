#include "storm_dashboards.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/websocket.hpp>

#include <algorithm>
#include <atomic>
#include <limits>
#include <thread>
#include <unordered_map>

#include "io_thread.h"
#include "storm_stream.h"

namespace meshscope::sim::storm {

namespace {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

struct Dashboard {
    explicit Dashboard(asio::io_context& io) : ws(io) {}
    websocket::stream<tcp::socket> ws;
    beast::flat_buffer buffer;
    DashboardReport report;
    std::atomic<std::int64_t> seen{0};
    std::atomic<bool> settled{false};  // hello read, or failed
    std::atomic<bool> failed{false};
};
}  // namespace

struct Dashboards::Impl {
    meshscope::net::IoThread loop{"ms-dashboards"};
    std::vector<std::unique_ptr<Dashboard>> dashboards;
    StormTarget target;
    std::string token;
    std::string job;
    std::int64_t world_size = 0;
    Clock::time_point origin;
    std::atomic<bool> stopping{false};
    // Every dashboard gets the same messages (the collector serializes each once): parse each once.
    std::unordered_map<std::string, std::vector<std::int64_t>> parsed;

    const std::vector<std::int64_t>& ready_ranks(const std::string& message) {
        static const std::vector<std::int64_t> none;
        if (message.find("\"ready\"") == std::string::npos) return none;
        auto it = parsed.find(message);
        if (it != parsed.end()) return it->second;
        if (parsed.size() > 4096) parsed.clear();
        return parsed.emplace(message, ready_ranks_in_message(message, job)).first->second;
    }

    void fail(Dashboard& d, const std::string& why) {
        if (!stopping.load() && d.report.error.empty()) d.report.error = why;
        d.failed = true;
        d.settled = true;
    }

    void connect(Dashboard& d, const tcp::endpoint& endpoint) {
        d.ws.next_layer().async_connect(endpoint, [this, &d](boost::system::error_code ec) {
            if (ec) return fail(d, "connect: " + ec.message());
            const std::string bearer = token.empty() ? std::string() : "Bearer " + token;
            d.ws.set_option(websocket::stream_base::decorator([bearer](websocket::request_type& request) {
                if (!bearer.empty()) request.set(beast::http::field::authorization, bearer);
            }));
            d.ws.async_handshake(target.host + ":" + target.port, "/api/v1/stream",
                                 [this, &d](boost::system::error_code ec2) {
                                     if (ec2) return fail(d, "handshake: " + ec2.message());
                                     read(d);
                                 });
        });
    }

    void read(Dashboard& d) {
        d.ws.async_read(d.buffer, [this, &d](boost::system::error_code ec, std::size_t) {
            if (ec) return fail(d, "read: " + ec.message());
            const double t = std::chrono::duration<double>(Clock::now() - origin).count();
            const std::string message = beast::buffers_to_string(d.buffer.data());
            d.buffer.consume(d.buffer.size());
            ++d.report.messages;
            d.report.bytes += message.size();
            d.settled = true;
            for (const std::int64_t rank : ready_ranks(message)) {
                if (rank < 0 || rank >= world_size) continue;
                double& seen = d.report.ready_seen[static_cast<std::size_t>(rank)];
                if (seen < 0) {
                    seen = t;
                    ++d.seen;
                }
            }
            read(d);
        });
    }
};

Dashboards::Dashboards(const StormTarget& target, const std::string& token, const std::string& job,
                       std::int64_t world_size, int count, Clock::time_point origin)
    : impl_(std::make_unique<Impl>()) {
    impl_->target = target;
    impl_->token = token;
    impl_->job = job;
    impl_->world_size = world_size;
    impl_->origin = origin;
    for (int i = 0; i < count; ++i) {
        impl_->dashboards.push_back(std::make_unique<Dashboard>(impl_->loop.context()));
        impl_->dashboards.back()->report.ready_seen.assign(static_cast<std::size_t>(world_size), -1.0);
    }
}

Dashboards::~Dashboards() {
    stop();
}

void Dashboards::start(std::chrono::milliseconds timeout) {
    if (impl_->dashboards.empty()) return;
    tcp::resolver resolver(impl_->loop.context());
    boost::system::error_code ec;
    const auto results = resolver.resolve(impl_->target.host, impl_->target.port, ec);
    for (auto& d : impl_->dashboards) {
        if (ec || results.empty())
            impl_->fail(*d, "resolve " + impl_->target.host + ": " + (ec ? ec.message() : "no address"));
        else
            impl_->connect(*d, results.begin()->endpoint());
    }
    impl_->loop.start();
    const auto deadline = Clock::now() + timeout;
    auto all_settled = [&] {
        for (auto& d : impl_->dashboards)
            if (!d->settled.load()) return false;
        return true;
    };
    while (!all_settled() && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

std::int64_t Dashboards::least_seen() const {
    std::int64_t least = std::numeric_limits<std::int64_t>::max();
    for (auto& d : impl_->dashboards)
        if (!d->failed.load()) least = std::min(least, d->seen.load());
    return least;
}

void Dashboards::stop() {
    if (!impl_ || !impl_->loop.running()) return;
    impl_->stopping = true;
    impl_->loop.stop();
}

std::vector<DashboardReport> Dashboards::reports() const {
    std::vector<DashboardReport> out;
    for (auto& d : impl_->dashboards) {
        out.push_back(d->report);
        if (!d->settled.load() && out.back().error.empty()) out.back().error = "no hello from the stream";
    }
    return out;
}

}  // namespace meshscope::sim::storm
