#include "meshscope/client/http_post.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <system_error>

namespace meshscope::client {

namespace {
// curl_global_init is not thread-safe; do it once for the whole process.
void global_init() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::size_t collect(char* data, std::size_t size, std::size_t count, void* user) {
    auto* out = static_cast<std::string*>(user);
    const std::size_t n = size * count;
    if (out->size() < 4096) out->append(data, std::min(n, 4096 - out->size()));  // enough for an error text
    return n;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

// Keeps the value of a Retry-After header line (curl calls this once per header line).
std::size_t header(char* data, std::size_t size, std::size_t count, void* user) {
    const std::size_t n = size * count;
    constexpr std::string_view name = "retry-after:";
    const std::string_view line(data, n);
    if (line.size() > name.size() && std::equal(name.begin(), name.end(), line.begin(), [](char a, char b) {
            return a == std::tolower(static_cast<unsigned char>(b));
        }))
        static_cast<std::string*>(user)->assign(trim(line.substr(name.size())));
    return n;
}

int progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    return static_cast<const std::atomic<bool>*>(user)->load(std::memory_order_relaxed) ? 1 : 0;
}
}  // namespace

HttpPost::HttpPost(std::string url, const std::string& token, const std::string& ca_file,
                   std::chrono::milliseconds connect_timeout, std::chrono::milliseconds request_timeout,
                   const std::atomic<bool>& abort)
    : url_(std::move(url)), abort_(abort) {
    global_init();
    CURL* curl = curl_easy_init();
    curl_ = curl;
    if (!curl) return;
    auto* headers = curl_slist_append(nullptr, "Content-Type: application/json");
    headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip
    if (!token.empty()) headers = curl_slist_append(headers, ("Authorization: Bearer " + token).c_str());
    // How long this client waits for an answer (CURLOPT_TIMEOUT_MS, connect included): a relay never queues
    // a request longer (docs/live-at-scale.md).
    const std::string wait = "MeshScope-Timeout: " + std::to_string(request_timeout.count() / 1000) + "." +
                             std::to_string(1000 + request_timeout.count() % 1000).substr(1);
    headers = curl_slist_append(headers, wait.c_str());
    headers_ = headers;
    curl_easy_setopt(curl, CURLOPT_URL, url_.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM for DNS timeouts
    curl_easy_setopt(curl, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(connect_timeout.count()));
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(request_timeout.count()));
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response_);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &retry_after_);
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, progress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &abort_);
    curl_easy_setopt(curl, CURLOPT_PROXY, "");  // the collector is reached directly, never via http_proxy
    // https://: libcurl verifies the peer and its name by default; only the CAs to trust may change.
    const char* from_env = std::getenv("MESHSCOPE_CA_FILE");
    const std::string cas = !ca_file.empty() ? ca_file : (from_env ? std::string(from_env) : std::string());
    if (!cas.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, cas.c_str());  // libcurl copies the string
}

HttpPost::~HttpPost() {
    if (curl_) curl_easy_cleanup(static_cast<CURL*>(curl_));
    if (headers_) curl_slist_free_all(static_cast<curl_slist*>(headers_));
}

void HttpPost::add_header(const std::string& line) {
    if (!curl_) return;
    headers_ = curl_slist_append(static_cast<curl_slist*>(headers_), line.c_str());
    curl_easy_setopt(static_cast<CURL*>(curl_), CURLOPT_HTTPHEADER, headers_);
}

PostResult HttpPost::post(const std::string& body) {
    PostResult result;
    auto* curl = static_cast<CURL*>(curl_);
    if (!curl) {
        result.error = "curl_easy_init failed";
        return result;
    }
    response_.clear();
    retry_after_.clear();
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    const CURLcode code = curl_easy_perform(curl);
    if (code != CURLE_OK) {
        result.error = curl_easy_strerror(code);
        return result;
    }
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &result.status);
    if (result.status < 200 || result.status >= 300)
        result.error = response_;
    else
        result.body = response_;
    if (result.status == 503 || result.status == 429)
        result.retry_after = parse_retry_after(retry_after_, static_cast<double>(std::time(nullptr)));
    return result;
}

double parse_retry_after(std::string_view value, double now) {
    constexpr double cap = 300;
    value = trim(value);
    if (value.empty()) return -1;
    if (std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        unsigned long long seconds = 0;
        const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
        if (error == std::errc::result_out_of_range) return cap;
        return std::min(static_cast<double>(seconds), cap);
    }
    // An HTTP-date always ends in GMT; curl_getdate also reads other date forms, which are not Retry-After.
    if (value.size() < 4 || value.substr(value.size() - 4) != " GMT") return -1;
    const std::string text(value);
    const time_t when = curl_getdate(text.c_str(), nullptr);
    if (when == -1) return -1;
    return std::clamp(static_cast<double>(when) - now, 0.0, cap);
}

}  // namespace meshscope::client
