// What a storm dashboard reads from the collector's stream (`GET /api/v1/stream`, meshscope.stream/1):
// the ranks of one job that a message shows turning `ready`. Both forms of the stream are accepted: one
// change per message ({"type": "rank_changed", ...}) and batches ({"type": "changes", "changes": [...]}).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace meshscope::sim::storm {

// The ranks of `job` that `message` shows in state "ready", in message order. Anything else (hello,
// findings, other jobs, other states, text that is not JSON) gives none.
[[nodiscard]] std::vector<std::int64_t> ready_ranks_in_message(std::string_view message, std::string_view job);

}  // namespace meshscope::sim::storm
