// A client of NCCL RAS's socket (`ncclras`'s protocol, src/ras/client.cc): plain POSIX sockets and poll(2), every
// wait bounded by a deadline and every reply by a byte cap. Each failure is a RasClientError whose message names
// host:port and says what happened, on one line. `meshscope ras` reads a job's RAS with it in the terminal, the
// collector (`meshscope serve --ras`, RasPoller) into a job.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "meshscope/records/nccl_ras.h"

namespace meshscope::ras {

using Clock = std::chrono::steady_clock;

class RasClientError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A wait ended by RasStop::stop (another thread's): "{host:port}: stopped".
class RasClientStopped : public RasClientError {
public:
    using RasClientError::RasClientError;
};

// MONITOR answered with anything but OK (a RAS before 2.29): "{host:port} refused MONITOR (...): {answer}".
class RasMonitorRefused : public RasClientError {
public:
    using RasClientError::RasClientError;
};

// Ends the waits of the clients given it, from any thread (an eventfd each wait polls beside its socket): the
// collector's RAS threads stop at once, whatever RAS is doing, instead of at the end of a timeout.
class RasStop {
public:
    RasStop();  // RasClientError "cannot make an eventfd: ..." when the system has none left
    ~RasStop();
    RasStop(const RasStop&) = delete;
    RasStop& operator=(const RasStop&) = delete;

    void stop() noexcept;  // any thread, any number of times; every wait from now on ends at once
    [[nodiscard]] bool stopped() const noexcept;
    // Waits until stop() or for `for_at_most`; true when stopped.
    bool wait(std::chrono::milliseconds for_at_most) const noexcept;
    [[nodiscard]] int fd() const noexcept { return fd_; }

private:
    int fd_ = -1;
};

struct RasReply {
    std::string bytes;
    bool json = false;  // SET FORMAT json was accepted (NCCL 2.28.7 and later); else the text form
    long server_protocol = 0;
};

class RasClient {
public:
    using Clock = ras::Clock;
    // host:port as the user wrote it, for messages; timeout bounds each exchange (connect + handshake, or one
    // command and its whole reply); stop, when given (it must outlive the client), ends any wait at once with
    // RasClientStopped. The name lookup (getaddrinfo) is the one step neither bounds.
    RasClient(std::string host, std::string port, std::chrono::milliseconds timeout, std::size_t max_reply,
              const RasStop* stop = nullptr);
    ~RasClient();
    RasClient(const RasClient&) = delete;
    RasClient& operator=(const RasClient&) = delete;

    [[nodiscard]] std::string where() const { return host_ + ":" + port_; }

    // Connects and exchanges CLIENT PROTOCOL / SERVER PROTOCOL; then SET FORMAT json when want_json (an older
    // server's "ERROR: Unknown command" leaves the text form). Returns the server's protocol version.
    long open(bool want_json);
    [[nodiscard]] bool json() const { return json_; }

    // VERBOSE STATUS and its reply, read until the server closes the connection (RAS's end of a reply).
    std::string verbose_status();

    // MONITOR, its OK (else RasMonitorRefused), then each event as it comes (a text line, or a JSON object of
    // several lines) until the server closes the connection (closed), on_event returns false (stopped), or, when
    // quiet is given, that long passes without a byte (quiet; none: no deadline between events).
    enum class MonitorEnd { closed, stopped, quiet };
    MonitorEnd monitor(const std::function<bool(const std::string&)>& on_event,
                       std::optional<std::chrono::milliseconds> quiet = std::nullopt);

    void close();

private:
    void send_line(const std::string& line, Clock::time_point deadline, const std::string& waiting_for);
    // One line of an answer (without its '\n'); closing before it is an error naming `what`.
    std::string read_line(Clock::time_point deadline, const std::string& what);
    // Reads into buffer_ until the deadline; false at the end of the stream.
    bool fill(Clock::time_point deadline, const std::string& what, bool no_deadline = false);
    // poll(2) for events on the socket until the deadline (none: -1), and on the stop's eventfd: RasClientStopped
    // when it is set. Returns poll's result for the socket (0: the deadline passed).
    int wait(short events, Clock::time_point deadline, bool no_deadline = false);
    [[noreturn]] void fail(const std::string& what) const;

    std::string host_, port_;
    std::chrono::milliseconds timeout_;
    std::size_t max_reply_;
    const RasStop* stop_;
    int fd_ = -1;
    bool json_ = false;
    std::string buffer_;
};

// The socket steps RasClient and the torch debug-server client (server/torch_debug) share. A TCP connection to
// host:port made within the deadline (each address of the name in turn), non-blocking: RasClientError "cannot resolve
// host:port: ...", "cannot connect to host:port: no connection within 10 s" (timeout, as the deadline's length) or
// "cannot connect to host:port: Connection refused"; RasClientStopped when stop is set meanwhile.
[[nodiscard]] int connect_socket(const std::string& host, const std::string& port, Clock::time_point deadline,
                                 std::chrono::milliseconds timeout, const RasStop* stop);
// poll(2) for events on fd until the deadline (no_deadline: none) and on stop's eventfd: RasClientStopped
// "{where}: stopped" when it is set. Returns poll's result for the socket (0: the deadline passed).
int wait_socket(int fd, short events, Clock::time_point deadline, const RasStop* stop, const std::string& where,
                bool no_deadline = false);
// "10 s", "0.5 s": a timeout as the clients' messages write it.
[[nodiscard]] std::string seconds(std::chrono::milliseconds ms);
// An answer as a terminal is shown it, in quotes, cut at 60 characters: "HTTP/1.0 400 Bad Request".
[[nodiscard]] std::string quoted(std::string_view text);

// "host:port", "[::1]:port" or "host" (RAS's default port 28028, NCCL_RAS_ADDR's form) into host and port; the
// reason when it is none of these ("\"x:0\": the port must be 1-65535").
[[nodiscard]] std::optional<std::string> split_address(const std::string& text, std::string& host, std::string& port);

// A VERBOSE STATUS reply read into a RasStatus (JSON when the client's SET FORMAT json was taken, else the text
// form); RasClientError with the one-line reason when it is not one (a JSON reply cut short says so).
[[nodiscard]] records::RasStatus read_status(const RasClient& client, const std::string& bytes);

}  // namespace meshscope::ras
