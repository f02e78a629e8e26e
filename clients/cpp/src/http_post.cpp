#include "http_post.h"

#include <curl/curl.h>

#include <mutex>

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

int progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    return static_cast<const std::atomic<bool>*>(user)->load(std::memory_order_relaxed) ? 1 : 0;
}
}  // namespace

HttpPost::HttpPost(std::string url, const std::string& token, std::chrono::milliseconds connect_timeout,
                   std::chrono::milliseconds request_timeout, const std::atomic<bool>& abort)
    : url_(std::move(url)), abort_(abort) {
    global_init();
    CURL* curl = curl_easy_init();
    curl_ = curl;
    if (!curl) return;
    auto* headers = curl_slist_append(nullptr, "Content-Type: application/json");
    headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip
    if (!token.empty()) headers = curl_slist_append(headers, ("Authorization: Bearer " + token).c_str());
    headers_ = headers;
    curl_easy_setopt(curl, CURLOPT_URL, url_.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM for DNS timeouts
    curl_easy_setopt(curl, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(connect_timeout.count()));
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(request_timeout.count()));
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response_);
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, progress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &abort_);
    curl_easy_setopt(curl, CURLOPT_PROXY, "");  // the collector is reached directly, never via http_proxy
}

HttpPost::~HttpPost() {
    if (curl_) curl_easy_cleanup(static_cast<CURL*>(curl_));
    if (headers_) curl_slist_free_all(static_cast<curl_slist*>(headers_));
}

PostResult HttpPost::post(const std::string& body) {
    PostResult result;
    auto* curl = static_cast<CURL*>(curl_);
    if (!curl) {
        result.error = "curl_easy_init failed";
        return result;
    }
    response_.clear();
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    const CURLcode code = curl_easy_perform(curl);
    if (code != CURLE_OK) {
        result.error = curl_easy_strerror(code);
        return result;
    }
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &result.status);
    if (result.status < 200 || result.status >= 300) result.error = response_;
    return result;
}

}  // namespace meshscope::client
