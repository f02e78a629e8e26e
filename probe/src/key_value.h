// Where the ranks meet: a key-value store every rank can reach (the collector's /api/v1/jobs/{job}/kv, see
// kv_client.h; an in-memory one in tests). Values are set once and read after a wait.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace meshscope::probe {

class KeyValue {
public:
    virtual ~KeyValue() = default;
    // Throws std::runtime_error when the store cannot be reached or refuses the value.
    virtual void set(const std::string& key, const std::string& value) = 0;
    // The value, or nullopt when it is not set (yet). Throws when the store cannot be reached.
    [[nodiscard]] virtual std::optional<std::string> try_get(const std::string& key) = 0;
    // Polls until the key is set; nullopt after `timeout`.
    [[nodiscard]] virtual std::optional<std::string> wait_get(const std::string& key,
                                                              std::chrono::milliseconds timeout);
};

}  // namespace meshscope::probe
