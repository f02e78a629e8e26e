// ChangeBatch: the WebSocket stream's changes of one window (at most 100 ms), each serialized on the monitor
// thread as it happens, and joined on the network thread into one {"type": "changes", "seq": N, "changes": [...]}
// message. Successive rank_changed of one (job, rank) collapse to the last, which takes the place of the last;
// the message is serialized once and shared by every subscriber (docs/live-at-scale.md). Serializing where the
// change is made keeps the network thread, which also reads every rank's requests, to joining strings: in a
// 16,384-rank start-up storm that is what lets 20 dashboards see each change within a second.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "meshscope/monitor/monitor.h"

namespace meshscope::server {

// to_json(change) as the stream sends it (invalid UTF-8 replaced).
[[nodiscard]] std::string change_text(const Change& change);

class ChangeBatch {
public:
    // A change and its change_text. Not thread-safe: the hub guards it.
    void add(const Change& change, std::string text);
    [[nodiscard]] std::size_t size() const noexcept { return kept_; }
    [[nodiscard]] bool empty() const noexcept { return kept_ == 0; }
    // {"type":"changes","seq":seq,"changes":[...]} of the kept changes in order, and the batch empties;
    // nullptr when it held none.
    [[nodiscard]] std::shared_ptr<const std::string> take_message(std::uint64_t seq);

private:
    std::vector<std::string> texts_;  // in arrival order; "" where a later rank_changed of its rank replaced it
    std::map<std::pair<std::string, std::int64_t>, std::size_t> last_rank_change_;  // (job, rank) -> index
    std::size_t kept_ = 0;
    std::size_t bytes_ = 0;
};

}  // namespace meshscope::server
