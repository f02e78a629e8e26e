// One keep-alive HTTP connection that POSTs JSON bodies (libcurl easy handle), used by one thread: the reporter's
// sender, `meshscope import --collector`, `serve --otlp-export`.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <string_view>

namespace meshscope::client {

struct PostResult {
    long status = 0;          // the HTTP status; 0 when no answer came (connection refused, timeout, aborted)
    std::string error;        // libcurl's message or the collector's {"error": ...} body
    double retry_after = -1;  // seconds from a 503 / 429's Retry-After (delta or HTTP-date); < 0: none
    std::string body;         // a 2xx answer's body (OTLP's partial success, the collector's duplicates)
};

// Seconds to wait from a Retry-After value: delta-seconds ("5") or an HTTP-date relative to `now` (seconds
// since the epoch). < 0 when empty or unreadable; capped to [0, 300]: a rank never goes quiet for longer.
double parse_retry_after(std::string_view value, double now);

class HttpPost {
public:
    // `abort` is polled during transfers so that shutdown never waits a whole request timeout.
    // `ca_file`: the CAs an https:// collector is verified against (empty: $MESHSCOPE_CA_FILE, else the
    // system's). Peer and host verification stay on.
    HttpPost(std::string url, const std::string& token, const std::string& ca_file,
             std::chrono::milliseconds connect_timeout, std::chrono::milliseconds request_timeout,
             const std::atomic<bool>& abort);
    ~HttpPost();
    HttpPost(const HttpPost&) = delete;
    HttpPost& operator=(const HttpPost&) = delete;

    // One more header line ("Name: value") on every request from now on (an OTLP endpoint's API key).
    void add_header(const std::string& line);

    PostResult post(const std::string& body);

private:
    void* curl_ = nullptr;     // CURL*
    void* headers_ = nullptr;  // curl_slist*
    std::string url_;
    std::string response_;
    std::string retry_after_;  // the answer's Retry-After header, raw
    const std::atomic<bool>& abort_;
};

}  // namespace meshscope::client
