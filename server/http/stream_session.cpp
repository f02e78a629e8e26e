// The WebSocket change stream (GET /api/v1/stream, meshscope.stream/1): StreamHub batches the monitor's
// changes and StreamSession writes them to one subscriber, dropping it once it is more than
// max_stream_backlog_bytes behind. Everything here runs on the network thread except StreamHub::on_change.
#include <boost/beast/websocket.hpp>

#include <algorithm>
#include <deque>

#include "beast_engine.h"
#include "change_batch.h"

namespace meshscope::server {

namespace websocket = boost::beast::websocket;

class StreamSession : public std::enable_shared_from_this<StreamSession> {
public:
    StreamSession(std::shared_ptr<StreamHub> hub, beast::tcp_stream stream, std::shared_ptr<ConnectionSlot> slot)
        : hub_(std::move(hub)), ws_(std::move(stream)), slot_(std::move(slot)) {}

    void start(http::request<http::string_body> request) {
        // Pings an idle subscriber and drops one that stops answering.
        ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
        ws_.set_option(websocket::stream_base::decorator(
            [](websocket::response_type& response) { response.set(http::field::server, "meshscope"); }));
        ws_.text(true);
        ws_.async_accept(request, [self = shared_from_this()](beast::error_code error) {
            if (error) return;
            self->send(hello());
            if (auto hub = self->hub_.lock()) hub->add(self);
            self->read();
        });
    }

    // Queues one message (shared with the other subscribers); drops the subscriber when too far behind.
    void send(std::shared_ptr<const std::string> message) {
        if (closed_) return;
        auto hub = hub_.lock();
        if (hub && queued_bytes_ + message->size() > hub->max_backlog_bytes()) return drop();
        queued_bytes_ += message->size();
        queue_.push_back(std::move(message));
        if (!writing_) write_next();
    }

    void drop() {
        if (closed_) return;
        closed_ = true;
        beast::error_code ignored;
        beast::get_lowest_layer(ws_).socket().close(ignored);  // cancels the read; read() then leaves the hub
    }

private:
    static std::shared_ptr<const std::string> hello() {
        static const auto message =
            std::make_shared<const std::string>(R"({"type":"hello","protocol":"meshscope.stream/1"})");
        return message;
    }

    void read() {
        // Subscribers have nothing to say; reading notices their close and answers pings.
        ws_.async_read(incoming_, [self = shared_from_this()](beast::error_code error, std::size_t) {
            self->incoming_.clear();
            if (error) {
                self->closed_ = true;
                if (auto hub = self->hub_.lock()) hub->remove(self.get());
                return;
            }
            self->read();
        });
    }

    void write_next() {
        if (queue_.empty() || closed_) {
            writing_ = false;
            return;
        }
        writing_ = true;
        const auto message = queue_.front();
        ws_.async_write(asio::buffer(*message),
                        [self = shared_from_this(), message](beast::error_code error, std::size_t) {
                            self->queued_bytes_ -= message->size();
                            self->queue_.pop_front();
                            if (error) {
                                self->writing_ = false;
                                return self->drop();
                            }
                            self->write_next();
                        });
    }

    std::weak_ptr<StreamHub> hub_;
    websocket::stream<beast::tcp_stream> ws_;
    std::shared_ptr<ConnectionSlot> slot_;
    beast::flat_buffer incoming_;
    std::deque<std::shared_ptr<const std::string>> queue_;
    std::size_t queued_bytes_ = 0;
    bool writing_ = false;
    bool closed_ = false;
};

StreamHub::StreamHub(asio::io_context& io, std::shared_ptr<Gate> gate, std::size_t max_backlog_bytes)
    : gate_(std::move(gate)), timer_(io), max_backlog_bytes_(max_backlog_bytes) {}

void StreamHub::on_change(const Change& change) {
    if (subscribers_.load(std::memory_order_relaxed) == 0) return;
    std::lock_guard lock(mutex_);
    // A network thread this far behind would not catch up: keep memory bounded; the dashboards refetch.
    if (pending_.size() >= 1'000'000) return;
    pending_.push_back(change);
    if (!flush_posted_) {
        flush_posted_ = true;
        gate_->post([self = shared_from_this()] { self->schedule_flush(); });
    }
}

void StreamHub::schedule_flush() {
    // One message per window, counted from its first change: what one request changes (a rank's phases
    // in one body) lands in one message, and a rank that moves fast is sent once per window.
    timer_.expires_after(window);
    timer_.async_wait([self = shared_from_this()](beast::error_code error) {
        if (!error) self->flush();
    });
}

void StreamHub::flush() {
    std::vector<Change> changes;
    {
        std::lock_guard lock(mutex_);
        changes.swap(pending_);
        flush_posted_ = false;
    }
    const auto message = changes_message(changes);
    if (!message) return;
    const auto sessions = sessions_;  // send() may drop a session
    for (const auto& session : sessions) session->send(message);
}

void StreamHub::add(const std::shared_ptr<StreamSession>& session) {
    sessions_.push_back(session);
    subscribers_ = sessions_.size();
}

void StreamHub::remove(const StreamSession* session) {
    std::erase_if(sessions_, [session](const auto& s) { return s.get() == session; });
    subscribers_ = sessions_.size();
}

void StreamHub::close_all() {
    timer_.cancel();
    const auto sessions = sessions_;
    for (const auto& session : sessions) session->drop();
    sessions_.clear();
    subscribers_ = 0;
}

void accept_stream(const std::shared_ptr<StreamHub>& hub, beast::tcp_stream stream,
                   http::request<http::string_body> request, std::shared_ptr<ConnectionSlot> slot) {
    std::make_shared<StreamSession>(hub, std::move(stream), std::move(slot))->start(std::move(request));
}

}  // namespace meshscope::server
