// The gloo backend (Debian's libgloo, the CPU collective library behind torch's gloo backend) over TCP: one
// rendezvous::Context per group, connected through the job's key-value store under a prefix keyed by the
// group's creation index and members, so ranks whose plans disagree can never silently meet.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "communicator.h"
#include "key_value.h"

namespace meshscope::probe {

struct GlooOptions {
    std::string bind_address = "127.0.0.1";  // the interface gloo's TCP pairs listen on
    // Test hook (--inject-slow-group): this group sleeps this long before every collective.
    std::string slow_dim;
    std::int64_t slow_index = -1;
    std::chrono::milliseconds slow_delay{0};
};

[[nodiscard]] std::unique_ptr<Backend> make_gloo_backend(KeyValue& store, GlooOptions options);

}  // namespace meshscope::probe
