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

#include "meshscope/records/nccl_ras.h"

namespace meshscope::ras {

class RasClientError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct RasReply {
    std::string bytes;
    bool json = false;  // SET FORMAT json was accepted (NCCL 2.28.7 and later); else the text form
    long server_protocol = 0;
};

class RasClient {
public:
    using Clock = std::chrono::steady_clock;
    // host:port as the user wrote it, for messages; timeout bounds each exchange (connect + handshake, or one
    // command and its whole reply).
    RasClient(std::string host, std::string port, std::chrono::milliseconds timeout, std::size_t max_reply);
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

    // MONITOR, its OK, then each event as it comes (a text line, or a JSON object of several lines) until the
    // server closes the connection; on_event returning false stops. No deadline between events.
    void monitor(const std::function<bool(const std::string&)>& on_event);

    void close();

private:
    void send_line(const std::string& line, Clock::time_point deadline, const std::string& waiting_for);
    // One line of an answer (without its '\n'); closing before it is an error naming `what`.
    std::string read_line(Clock::time_point deadline, const std::string& what);
    // Reads into buffer_ until the deadline; false at the end of the stream.
    bool fill(Clock::time_point deadline, const std::string& what, bool no_deadline = false);
    [[noreturn]] void fail(const std::string& what) const;

    std::string host_, port_;
    std::chrono::milliseconds timeout_;
    std::size_t max_reply_;
    int fd_ = -1;
    bool json_ = false;
    std::string buffer_;
};

// "host:port", "[::1]:port" or "host" (RAS's default port 28028, NCCL_RAS_ADDR's form) into host and port; the
// reason when it is none of these ("\"x:0\": the port must be 1-65535").
[[nodiscard]] std::optional<std::string> split_address(const std::string& text, std::string& host, std::string& port);

// A VERBOSE STATUS reply read into a RasStatus (JSON when the client's SET FORMAT json was taken, else the text
// form); RasClientError with the one-line reason when it is not one (a JSON reply cut short says so).
[[nodiscard]] records::RasStatus read_status(const RasClient& client, const std::string& bytes);

}  // namespace meshscope::ras
