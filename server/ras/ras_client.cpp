#include "ras_client.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>

#include "meshscope/records/diagnose.h"
#include "meshscope/records/nccl_ras.h"

namespace meshscope::ras {

std::string seconds(std::chrono::milliseconds ms) {
    std::string text = std::to_string(ms.count() / 1000);
    if (const auto frac = ms.count() % 1000; frac != 0) {
        std::string f = std::to_string(frac);
        f = std::string(3 - f.size(), '0') + f;
        while (f.ends_with('0')) f.pop_back();
        text += "." + f;
    }
    return text + " s";
}

std::string quoted(std::string_view text) {
    while (text.ends_with('\n') || text.ends_with('\r')) text.remove_suffix(1);
    std::string shown = records::printable(std::string(text.substr(0, std::min<std::size_t>(text.size(), 60))));
    if (text.size() > 60) shown += "...";
    return "\"" + shown + "\"";
}

namespace {

int remaining_ms(Clock::time_point deadline) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());  // never early
    return static_cast<int>(std::clamp<std::int64_t>(left.count(), 0, 1 << 30));
}
}  // namespace

RasStop::RasStop() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    if (fd_ < 0) throw RasClientError(std::string("cannot make an eventfd: ") + std::strerror(errno));
}

RasStop::~RasStop() {
    ::close(fd_);
}

void RasStop::stop() noexcept {
    const std::uint64_t one = 1;
    (void)!::write(fd_, &one, sizeof one);  // the count only grows: the fd stays readable
}

bool RasStop::wait(std::chrono::milliseconds for_at_most) const noexcept {
    const auto deadline = Clock::now() + for_at_most;
    for (;;) {
        pollfd p{fd_, POLLIN, 0};
        const int rc = ::poll(&p, 1, remaining_ms(deadline));
        if (rc > 0) return true;
        if (rc == 0) return false;
        if (errno != EINTR) return stopped();
    }
}

bool RasStop::stopped() const noexcept {
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, 0) > 0;
}

RasClient::RasClient(std::string host, std::string port, std::chrono::milliseconds timeout, std::size_t max_reply,
                     const RasStop* stop)
    : host_(std::move(host)), port_(std::move(port)), timeout_(timeout), max_reply_(max_reply), stop_(stop) {}

int wait_socket(int fd, short events, Clock::time_point deadline, const RasStop* stop, const std::string& where,
                bool no_deadline) {
    for (;;) {
        pollfd p[2] = {{fd, events, 0}, {stop ? stop->fd() : -1, POLLIN, 0}};
        const int rc = ::poll(p, stop ? 2 : 1, no_deadline ? -1 : remaining_ms(deadline));
        if (stop && (p[1].revents & POLLIN) != 0) throw RasClientStopped(where + ": stopped");
        if (rc < 0 && errno == EINTR) continue;
        return rc;
    }
}

int connect_socket(const std::string& host, const std::string& port, Clock::time_point deadline,
                   std::chrono::milliseconds timeout, const RasStop* stop) {
    const std::string where = host + ":" + port;
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    if (const int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0)
        throw RasClientError("cannot resolve " + where + ": " + gai_strerror(rc));
    const std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> list(found, freeaddrinfo);
    std::string last_error = "no address";
    for (const addrinfo* ai = found; ai; ai = ai->ai_next) {
        const int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            last_error = std::strerror(errno);
            continue;
        }
        int rc = ::connect(fd, ai->ai_addr, ai->ai_addrlen);
        if (rc != 0 && errno == EINPROGRESS) {
            try {
                rc = wait_socket(fd, POLLOUT, deadline, stop, where);
            } catch (const RasClientStopped&) {
                ::close(fd);
                throw;
            }
            if (rc == 0) {
                ::close(fd);
                throw RasClientError("cannot connect to " + where + ": no connection within " + seconds(timeout));
            }
            int err = 0;
            socklen_t len = sizeof err;
            if (rc > 0 && ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0)
                rc = 0;
            else {
                errno = rc < 0 ? errno : err;
                rc = -1;
            }
        }
        if (rc != 0) {
            last_error = std::strerror(errno);
            ::close(fd);
            continue;
        }
        return fd;
    }
    throw RasClientError("cannot connect to " + where + ": " + last_error);
}

int RasClient::wait(short events, Clock::time_point deadline, bool no_deadline) {
    return wait_socket(fd_, events, deadline, stop_, where(), no_deadline);
}

RasClient::~RasClient() {
    close();
}

void RasClient::close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    buffer_.clear();
}

void RasClient::fail(const std::string& what) const {
    throw RasClientError(what);
}

long RasClient::open(bool want_json) {
    close();
    const auto deadline = Clock::now() + timeout_;
    fd_ = connect_socket(host_, port_, deadline, timeout_, stop_);

    const std::string hello = "CLIENT PROTOCOL " + std::to_string(records::ras_client_protocol);
    send_line(hello, deadline, hello);
    const std::string answer = read_line(deadline, hello);
    const auto version = records::ras_server_protocol(answer);
    if (!version) fail(where() + " is not an NCCL RAS server: it answered " + ras::quoted(answer) + " to " + hello);
    json_ = false;
    if (want_json) {
        send_line("SET FORMAT json", deadline, "SET FORMAT json");
        const std::string ok = read_line(deadline, "SET FORMAT json");
        if (ok == "OK")
            json_ = true;
        else if (!ok.starts_with("ERROR:"))  // RAS before 2.28.7: "ERROR: Unknown command SET FORMAT json"
            fail(where() + ": unexpected answer to SET FORMAT json: " + ras::quoted(ok));
    }
    return *version;
}

void RasClient::send_line(const std::string& line, Clock::time_point deadline, const std::string& waiting_for) {
    const std::string bytes = line + "\n";
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
        if (n > 0) {
            done += static_cast<std::size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (wait(POLLOUT, deadline) == 0)
                fail(where() + ": cannot send " + waiting_for + " within " + seconds(timeout_));
            continue;
        }
        fail(where() + ": cannot send " + waiting_for + ": " + std::strerror(errno));
    }
}

bool RasClient::fill(Clock::time_point deadline, const std::string& what, bool no_deadline) {
    for (;;) {
        char chunk[1 << 16];
        const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
        if (n > 0) {
            if (buffer_.size() + static_cast<std::size_t>(n) > max_reply_)
                fail(where() + ": the answer to " + what + " is larger than " + std::to_string(max_reply_) +
                     " bytes; stopped reading");
            buffer_.append(chunk, static_cast<std::size_t>(n));
            return true;
        }
        if (n == 0) return false;
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            fail(where() + ": cannot read the answer to " + what + ": " + std::strerror(errno));
        const int rc = wait(POLLIN, deadline, no_deadline);
        if (rc == 0) fail(where() + ": no answer to " + what + " within " + seconds(timeout_));
        if (rc < 0) fail(where() + ": cannot wait for " + what + ": " + std::strerror(errno));
    }
}

std::string RasClient::read_line(Clock::time_point deadline, const std::string& what) {
    for (;;) {
        if (const auto nl = buffer_.find('\n'); nl != std::string::npos) {
            std::string line = buffer_.substr(0, nl);
            buffer_.erase(0, nl + 1);
            if (line.ends_with('\r')) line.pop_back();
            return line;
        }
        if (!fill(deadline, what)) fail(where() + " closed the connection before answering " + what);
    }
}

std::string RasClient::verbose_status() {
    const auto deadline = Clock::now() + timeout_;
    send_line("VERBOSE STATUS", deadline, "VERBOSE STATUS");
    while (fill(deadline, "VERBOSE STATUS")) {
    }
    if (buffer_.empty()) fail(where() + " closed the connection before answering VERBOSE STATUS");
    std::string reply = std::move(buffer_);
    close();
    return reply;
}

RasClient::MonitorEnd RasClient::monitor(const std::function<bool(const std::string&)>& on_event,
                                         std::optional<std::chrono::milliseconds> quiet) {
    const auto deadline = Clock::now() + timeout_;
    send_line("MONITOR", deadline, "MONITOR");
    const std::string ok = read_line(deadline, "MONITOR");
    if (ok != "OK")
        throw RasMonitorRefused(where() + " refused MONITOR (NCCL 2.29 and later have it): " + ras::quoted(ok));
    std::string event;
    for (;;) {
        const auto nl = buffer_.find('\n');
        if (nl == std::string::npos) {
            // Events come when peers change, perhaps hours apart: no deadline here unless the caller bounds the
            // quiet; the byte cap stays.
            if (quiet && wait(POLLIN, Clock::now() + *quiet) == 0) return MonitorEnd::quiet;
            if (!fill(deadline, "MONITOR", true)) {
                if (!event.empty()) fail(where() + " closed the connection in the middle of an event");
                return MonitorEnd::closed;
            }
            continue;
        }
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        if (line.ends_with('\r')) line.pop_back();
        // A JSON event is an object over several lines, closed by "}" alone (rasClientsNotifyEvent).
        if (json_ && (!event.empty() || line == "{")) {
            event += line + "\n";
            if (event.size() > max_reply_)
                fail(where() + ": an event larger than " + std::to_string(max_reply_) + " bytes; stopped reading");
            if (line != "}") continue;
        } else {
            event = line;
        }
        if (event.empty()) continue;
        if (!on_event(event)) return MonitorEnd::stopped;
        event.clear();
    }
}

std::optional<std::string> split_address(const std::string& text, std::string& host, std::string& port) {
    std::string rest;
    if (text.starts_with('[')) {
        const auto close = text.find(']');
        if (close == std::string::npos) return "\"" + text + "\": no closing ] after the IPv6 address";
        host = text.substr(1, close - 1);
        rest = text.substr(close + 1);
        if (!rest.empty() && !rest.starts_with(':')) return "\"" + text + "\": expected :PORT after ]";
        if (!rest.empty()) rest.erase(0, 1);
    } else if (const auto colon = text.rfind(':'); colon != std::string::npos) {
        host = text.substr(0, colon);
        rest = text.substr(colon + 1);
    } else {
        host = text;
    }
    port = rest.empty() ? "28028" : rest;
    int value = 0;
    const auto r = std::from_chars(port.data(), port.data() + port.size(), value);
    if (host.empty()) return "\"" + text + "\": no host";
    if (r.ec != std::errc() || r.ptr != port.data() + port.size() || value < 1 || value > 65535)
        return "\"" + text + "\": the port must be 1-65535";
    return std::nullopt;
}

records::RasStatus read_status(const RasClient& client, const std::string& bytes) {
    const bool json = client.json();
    auto status = json ? records::read_ras_json(bytes, client.where()) : records::read_ras_text(bytes, client.where());
    if (status) return std::move(status).value();
    if (json) {
        // RAS ends its JSON with "}\n"; anything else ended early.
        std::string_view end(bytes);
        while (!end.empty() && (end.back() == '\n' || end.back() == ' ')) end.remove_suffix(1);
        if (!end.ends_with('}'))
            throw RasClientError(client.where() + " closed the connection mid-reply (after " +
                                 std::to_string(bytes.size()) + " bytes of JSON status)");
    }
    throw RasClientError(status.error().message());
}

}  // namespace meshscope::ras
