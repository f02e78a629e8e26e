#include "kv_client.h"

#include <stdexcept>
#include <thread>

#include <curl/curl.h>

namespace meshscope::probe {

namespace {
std::size_t collect(char* data, std::size_t size, std::size_t count, void* out) {
    static_cast<std::string*>(out)->append(data, size * count);
    return size * count;
}

bool plain(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("._-:@+=").find(c) != std::string_view::npos;
}
}  // namespace

CollectorKeyValue::CollectorKeyValue(std::string url, std::string token, std::string job,
                                     std::chrono::milliseconds request_timeout)
    : url_(std::move(url)), job_(std::move(job)), request_timeout_(request_timeout) {
    while (!url_.empty() && url_.back() == '/') url_.pop_back();
    curl_global_init(CURL_GLOBAL_DEFAULT);
    curl_ = curl_easy_init();
    if (!curl_) throw std::runtime_error("libcurl could not start");
    curl_slist* headers = nullptr;
    if (!token.empty()) headers = curl_slist_append(headers, ("Authorization: Bearer " + token).c_str());
    headers = curl_slist_append(headers, "Content-Type: application/octet-stream");
    headers_ = headers;
}

CollectorKeyValue::~CollectorKeyValue() {
    curl_easy_cleanup(static_cast<CURL*>(curl_));
    curl_slist_free_all(static_cast<curl_slist*>(headers_));
}

std::string CollectorKeyValue::key_url(const std::string& key) const {
    std::string escaped;
    for (const char c : key) escaped += plain(c) ? c : ':';
    return url_ + "/api/v1/jobs/" + job_ + "/kv/" + escaped;
}

CollectorKeyValue::Answer CollectorKeyValue::request(const char* method, const std::string& key,
                                                     const std::string* body) {
    CURL* curl = static_cast<CURL*>(curl_);
    curl_easy_reset(curl);
    Answer answer;
    const std::string target = key_url(key);
    curl_easy_setopt(curl, CURLOPT_URL, target.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, static_cast<curl_slist*>(headers_));
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 2000L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(request_timeout_.count()));
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer.body);
    if (body) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body->data());
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body->size()));
    }
    const CURLcode rc = curl_easy_perform(curl);
    if (rc != CURLE_OK) {
        answer.error = curl_easy_strerror(rc);
        return answer;
    }
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &answer.status);
    return answer;
}

void CollectorKeyValue::set(const std::string& key, const std::string& value) {
    // A collector that is briefly busy (503) or a connection reset gets a few more tries.
    Answer a;
    for (int attempt = 0; attempt < 5; ++attempt) {
        a = request("PUT", key, &value);
        if (a.status == 200) return;
        if (a.status != 0 && a.status != 503 && a.status != 429) break;
        std::this_thread::sleep_for(std::chrono::milliseconds{100 << attempt});
    }
    throw std::runtime_error("the collector's key-value store at " + url_ + " refused \"" + key +
                             "\": " + (a.status ? "HTTP " + std::to_string(a.status) + " " + a.body : a.error));
}

std::optional<std::string> CollectorKeyValue::try_get(const std::string& key) {
    const Answer a = request("GET", key, nullptr);
    if (a.status == 200) return a.body;
    if (a.status == 404) return std::nullopt;
    if (a.status == 0 || a.status == 503 || a.status == 429) return std::nullopt;  // try again on the next poll
    throw std::runtime_error("the collector's key-value store at " + url_ + " answered HTTP " +
                             std::to_string(a.status) + " " + a.body);
}

}  // namespace meshscope::probe
