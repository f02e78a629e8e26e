#include "meshscope/client/rank_queue.h"

#include <utility>

namespace meshscope::client {

bool RankQueue::push(std::int64_t rank, std::string event) {
    if (events_ + 1 > max_events_ || bytes_ + event.size() > max_bytes_) return false;
    Entry& entry = ranks_[rank];
    bytes_ += event.size();
    ++events_;
    entry.events.push_back(std::move(event));
    list(rank, entry);
    return true;
}

void RankQueue::list(std::int64_t rank, Entry& entry) {
    if (entry.in_flight || entry.listed || entry.events.empty()) return;
    entry.listed = true;
    ready_.push_back(rank);
}

std::optional<RankQueue::Batch> RankQueue::take(std::size_t max_events, std::size_t max_bytes) {
    if (ready_.empty()) return std::nullopt;
    const std::int64_t rank = ready_.front();
    ready_.pop_front();
    Entry& entry = ranks_.at(rank);
    entry.listed = false;
    entry.in_flight = true;
    Batch batch;
    batch.rank = rank;
    while (!entry.events.empty() && batch.events.size() < max_events &&
           (batch.events.empty() || batch.bytes + entry.events.front().size() <= max_bytes)) {
        batch.bytes += entry.events.front().size();
        batch.events.push_back(std::move(entry.events.front()));
        entry.events.pop_front();
    }
    return batch;
}

void RankQueue::complete(Batch batch, bool delivered) {
    auto it = ranks_.find(batch.rank);
    if (it == ranks_.end()) return;  // not ours
    Entry& entry = it->second;
    entry.in_flight = false;
    if (delivered) {
        events_ -= batch.events.size();
        bytes_ -= batch.bytes;
    } else {
        for (auto e = batch.events.rbegin(); e != batch.events.rend(); ++e) entry.events.push_front(std::move(*e));
    }
    if (entry.events.empty()) {
        ranks_.erase(it);
        return;
    }
    list(batch.rank, entry);
}

std::size_t RankQueue::clear_waiting() {
    std::size_t removed = 0;
    for (auto it = ranks_.begin(); it != ranks_.end();) {
        Entry& entry = it->second;
        for (const auto& e : entry.events) bytes_ -= e.size();
        removed += entry.events.size();
        events_ -= entry.events.size();
        entry.events.clear();
        entry.listed = false;
        if (!entry.in_flight)
            it = ranks_.erase(it);
        else
            ++it;
    }
    ready_.clear();
    return removed;
}

}  // namespace meshscope::client
