// KeyValue over the collector's job store: PUT and GET <url>/api/v1/jobs/{job}/kv/{key} with the bearer
// token (docs/collector.md). Keys are escaped to the store's characters ('/' from gloo's prefixes becomes ':').
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "key_value.h"

namespace meshscope::probe {

class CollectorKeyValue : public KeyValue {
public:
    CollectorKeyValue(std::string url, std::string token, std::string job,
                      std::chrono::milliseconds request_timeout = std::chrono::milliseconds{5000});
    ~CollectorKeyValue() override;
    CollectorKeyValue(const CollectorKeyValue&) = delete;
    CollectorKeyValue& operator=(const CollectorKeyValue&) = delete;

    void set(const std::string& key, const std::string& value) override;
    [[nodiscard]] std::optional<std::string> try_get(const std::string& key) override;

private:
    struct Answer {
        long status = 0;
        std::string body;
        std::string error;
    };
    Answer request(const char* method, const std::string& key, const std::string* body);
    [[nodiscard]] std::string key_url(const std::string& key) const;

    std::string url_;
    std::string job_;
    void* curl_ = nullptr;     // CURL*, one keep-alive connection
    void* headers_ = nullptr;  // curl_slist*
    std::chrono::milliseconds request_timeout_;
};

}  // namespace meshscope::probe
