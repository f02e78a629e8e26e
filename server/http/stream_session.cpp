// The WebSocket change stream (GET /api/v1/stream, meshscope.stream/1): StreamHub batches the monitor's
// changes, numbers each message and keeps the latest for subscribers that reconnect; StreamSession writes
// them to one subscriber (after its first-message authentication, when it came without a token), dropping
// it once it is more than max_backlog_bytes behind. Everything here runs on the network thread except
// StreamHub::on_change.
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>

#include <algorithm>
#include <deque>

#include "beast_engine.h"
#include "change_batch.h"

namespace meshscope::server {

namespace websocket = boost::beast::websocket;

namespace {

template <typename Stream>
class StreamSession final : public StreamSubscriber, public std::enable_shared_from_this<StreamSession<Stream>> {
public:
    StreamSession(std::shared_ptr<StreamHub> hub, Stream stream, std::shared_ptr<ConnectionSlot> slot,
                  StreamStart start)
        : hub_(hub),
          settings_(hub->settings()),
          ws_(std::move(stream)),
          slot_(std::move(slot)),
          start_(std::move(start)),
          auth_timer_(ws_.get_executor()) {}

    void accept(http::request<http::string_body> request) {
        // Pings an idle subscriber and drops one that stops answering.
        ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
        ws_.set_option(
            websocket::stream_base::decorator([protocol = start_.protocol](websocket::response_type& response) {
                response.set(http::field::server, "meshscope");
                response.set("Content-Security-Policy", content_security_policy);
                response.set("X-Content-Type-Options", content_type_options);
                // A browser that offered subprotocols fails an upgrade that names none of them.
                if (!protocol.empty()) response.set(http::field::sec_websocket_protocol, protocol);
            }));
        ws_.text(true);
        // A subscriber only ever sends its auth message: an unauthenticated client cannot make us buffer more.
        ws_.read_message_max(64 * 1024);
        ws_.async_accept(request, [self = this->shared_from_this()](beast::error_code error) {
            if (error) return;
            if (self->start_.refuse) return self->refuse();
            if (self->start_.authenticate_first) return self->authenticate();
            self->subscribe();
        });
    }

    void send(StreamMessage message) override {
        if (closed_) return;
        if (queued_bytes_ + message->size() > settings_.max_backlog_bytes) return drop();
        queued_bytes_ += message->size();
        queue_.push_back(std::move(message));
        if (!writing_) write_next();
    }

    void drop() override {
        if (closed_) return;
        closed_ = true;
        auth_timer_.cancel();
        beast::error_code ignored;
        beast::get_lowest_layer(ws_).socket().close(ignored);  // cancels the read; read() then leaves the hub
    }

private:
    // A browser cannot set headers on a WebSocket: its first message is {"type":"auth","token":"T"}, within
    // the deadline; anything else gets {"type":"error"} and close code 1008.
    void authenticate() {
        auth_timer_.expires_after(settings_.auth_timeout);
        auth_timer_.async_wait([self = this->shared_from_this()](beast::error_code error) {
            if (!error) self->refuse();
        });
        ws_.async_read(incoming_, [self = this->shared_from_this()](beast::error_code error, std::size_t) {
            if (self->refusing_ || self->closed_) return;
            self->auth_timer_.cancel();
            if (error) return self->drop();
            const bool valid = is_auth_message(beast::buffers_to_string(self->incoming_.data()), self->settings_.token);
            self->incoming_.clear();
            if (!valid) return self->refuse();
            self->subscribe();
        });
    }

    void refuse() {
        if (refusing_ || closed_) return;
        refusing_ = true;
        const auto message = auth_error_message();
        ws_.async_write(asio::buffer(*message),
                        [self = this->shared_from_this(), message](beast::error_code error, std::size_t) {
                            if (error) return self->drop();
                            self->ws_.async_close(websocket::close_code::policy_error,
                                                  [self](beast::error_code) { self->closed_ = true; });
                        });
    }

    void subscribe() {
        if (const auto hub = hub_.lock()) hub->add(this->shared_from_this(), start_);
        read();
    }

    void read() {
        // Subscribers have nothing more to say; reading notices their close and answers pings.
        ws_.async_read(incoming_, [self = this->shared_from_this()](beast::error_code error, std::size_t) {
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
                        [self = this->shared_from_this(), message](beast::error_code error, std::size_t) {
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
    const StreamSettings settings_;  // a copy: the session may outlive the hub by a few handlers
    websocket::stream<Stream> ws_;
    std::shared_ptr<ConnectionSlot> slot_;
    StreamStart start_;
    asio::steady_timer auth_timer_;
    beast::flat_buffer incoming_;
    std::deque<StreamMessage> queue_;
    std::size_t queued_bytes_ = 0;
    bool writing_ = false;
    bool closed_ = false;
    bool refusing_ = false;
};

}  // namespace

StreamHub::StreamHub(asio::io_context& io, std::shared_ptr<Gate> gate, StreamSettings settings)
    : gate_(std::move(gate)),
      timer_(io),
      settings_(std::move(settings)),
      epoch_(new_stream_epoch()),
      ring_(settings_.resume_messages, settings_.resume_bytes) {}

void StreamHub::on_change(const Change& change) {
    {
        std::lock_guard lock(mutex_);
        if (subscribers_ == 0 && std::chrono::steady_clock::now() >= gather_until_) {
            missed_ = true;  // nobody listens or is likely back soon: no work, and no resume from before this
            return;
        }
    }
    // Serialized here, on the monitor thread, outside the lock: the network thread only joins the texts.
    std::string text = change_text(change);
    std::lock_guard lock(mutex_);
    // A network thread this far behind would not catch up: keep memory bounded; the subscribers reload.
    if (pending_.size() >= 1'000'000) {
        overflowed_ = true;
        return;
    }
    pending_.add(change, std::move(text));
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
    ChangeBatch batch;
    bool overflowed = false;
    {
        std::lock_guard lock(mutex_);
        std::swap(batch, pending_);
        flush_posted_ = false;
        std::swap(overflowed, overflowed_);
    }
    const auto message = batch.take_message(seq_ + 1);
    if (message) {
        ++seq_;
        ring_.push(seq_, message);
    }
    if (overflowed) {
        // Every subscriber lost a change: each reconnects, finds its `since` below the floor and reloads.
        resume_floor_ = seq_ + 1;
        ring_.clear();
        const auto sessions = sessions_;
        for (const auto& session : sessions) session->drop();
        return;
    }
    if (!message) return;
    const auto sessions = sessions_;  // send() may drop a session
    for (const auto& session : sessions) session->send(message);
}

void StreamHub::add(const std::shared_ptr<StreamSubscriber>& session, const StreamStart& start) {
    {
        std::lock_guard lock(mutex_);
        ++subscribers_;
        if (missed_) {
            // A change went by while nobody gathered: no resume from a seq sent before it.
            missed_ = false;
            resume_floor_ = seq_ + 1;
            ring_.clear();
        }
    }
    sessions_.push_back(session);
    session->send(hello_message(epoch_, seq_));
    if (!start.since) return;
    const auto since = parse_since(*start.since);
    std::optional<std::vector<StreamMessage>> missed;
    if (since && start.epoch == epoch_ && *since >= resume_floor_) missed = ring_.after(*since, seq_);
    if (!missed) return session->send(reload_message());
    for (auto& message : *missed) session->send(std::move(message));
}

void StreamHub::remove(const StreamSubscriber* session) {
    const auto before = sessions_.size();
    std::erase_if(sessions_, [session](const auto& s) { return s.get() == session; });
    if (sessions_.size() == before) return;  // never subscribed (refused, or dropped by close_all)
    std::lock_guard lock(mutex_);
    subscribers_ = sessions_.size();
    if (subscribers_ == 0) gather_until_ = std::chrono::steady_clock::now() + keep_gathering;
}

void StreamHub::close_all() {
    timer_.cancel();
    const auto sessions = sessions_;
    for (const auto& session : sessions) session->drop();
    sessions_.clear();
    std::lock_guard lock(mutex_);
    subscribers_ = 0;
}

void accept_stream(const std::shared_ptr<StreamHub>& hub, PlainStream stream, http::request<http::string_body> request,
                   std::shared_ptr<ConnectionSlot> slot, StreamStart start) {
    std::make_shared<StreamSession<PlainStream>>(hub, std::move(stream), std::move(slot), std::move(start))
        ->accept(std::move(request));
}

void accept_stream(const std::shared_ptr<StreamHub>& hub, TlsStream stream, http::request<http::string_body> request,
                   std::shared_ptr<ConnectionSlot> slot, StreamStart start) {
    std::make_shared<StreamSession<TlsStream>>(hub, std::move(stream), std::move(slot), std::move(start))
        ->accept(std::move(request));
}

}  // namespace meshscope::server
