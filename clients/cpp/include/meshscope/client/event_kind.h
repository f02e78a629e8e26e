// Which kind of event a serialized meshscope.event/1 object is, read from its top-level "phase" without
// parsing the rest (the client links no JSON library): the bounded queue drops heartbeats first.
#pragma once

#include <string_view>

#include "meshscope/client/rank_queue.h"

namespace meshscope::client {

// heartbeat when the object's own "phase" is "heartbeat"; lifecycle for anything else, malformed included
// (an event the reporter cannot read is kept, and the collector judges it).
EventKind event_kind(std::string_view json) noexcept;

}  // namespace meshscope::client
