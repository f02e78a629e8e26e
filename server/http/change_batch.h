// ChangeBatch: the WebSocket stream's changes of one window (at most 100 ms), gathered on the monitor
// thread and turned into one {"type": "changes", "seq": N, "changes": [...]} message. Successive rank_changed of one
// (job, rank) collapse to the last, which takes the place of the last; the message is serialized once and
// shared by every subscriber (docs/live-at-scale.md).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "meshscope/monitor.h"

namespace meshscope::server {

// The changes of a window, with repeated rank_changed of one rank dropped but for the last.
[[nodiscard]] std::vector<const Change*> collapse_changes(const std::vector<Change>& changes);
// {"type":"changes","seq":seq,"changes":[to_json(change), ...]} of the collapsed changes; nullptr when none.
[[nodiscard]] std::shared_ptr<const std::string> changes_message(const std::vector<Change>& changes, std::uint64_t seq);

}  // namespace meshscope::server
