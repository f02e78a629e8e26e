#include "meshscope/client/rank_queue.h"

#include <algorithm>
#include <utility>

namespace meshscope::client {

bool RankQueue::push(std::int64_t rank, std::string event, EventKind kind) {
    const auto fits = [&] { return events_ + 1 <= max_events_ && bytes_ + event.size() <= max_bytes_; };
    if (kind == EventKind::heartbeat && event.size() > max_bytes_) return false;  // would never fit
    while (!fits() && evict_oldest_heartbeat()) {
    }
    if (!fits()) {
        if (kind == EventKind::heartbeat) return false;
        ++over_bound_;  // a lifecycle event is never dropped for room
    }
    Entry& entry = ranks_[rank];
    bytes_ += event.size();
    ++events_;
    const std::uint64_t seq = next_seq_++;
    if (kind == EventKind::heartbeat) heartbeats_.emplace(seq, rank);
    entry.events.push_back(Item{std::move(event), kind, seq});
    list(rank, entry);
    return true;
}

bool RankQueue::evict_oldest_heartbeat() {
    if (heartbeats_.empty()) return false;
    const auto [seq, rank] = *heartbeats_.begin();
    heartbeats_.erase(heartbeats_.begin());
    auto it = ranks_.find(rank);
    if (it == ranks_.end()) return true;  // cannot happen: waiting heartbeats are listed here
    auto& waiting = it->second.events;
    const auto at = std::lower_bound(waiting.begin(), waiting.end(), seq,
                                     [](const Item& item, std::uint64_t s) { return item.seq < s; });
    if (at == waiting.end() || at->seq != seq) return true;
    bytes_ -= at->json.size();
    --events_;
    waiting.erase(at);
    ++heartbeats_evicted_;
    // An entry left empty stays in ready_ (take() skips it) or in flight (complete() removes it).
    return true;
}

void RankQueue::list(std::int64_t rank, Entry& entry) {
    if (entry.in_flight || entry.listed || entry.events.empty()) return;
    entry.listed = true;
    ready_.push_back(rank);
}

std::optional<RankQueue::Batch> RankQueue::take(std::size_t max_events, std::size_t max_bytes) {
    while (!ready_.empty()) {
        const std::int64_t rank = ready_.front();
        ready_.pop_front();
        auto it = ranks_.find(rank);
        if (it == ranks_.end()) continue;
        Entry& entry = it->second;
        entry.listed = false;
        if (entry.events.empty()) {  // its heartbeats were evicted meanwhile
            if (!entry.in_flight) ranks_.erase(it);
            continue;
        }
        entry.in_flight = true;
        Batch batch;
        batch.rank = rank;
        while (!entry.events.empty() && batch.events.size() < max_events &&
               (batch.events.empty() || batch.bytes + entry.events.front().json.size() <= max_bytes)) {
            Item& item = entry.events.front();
            if (item.kind == EventKind::heartbeat) heartbeats_.erase({item.seq, rank});
            batch.bytes += item.json.size();
            batch.kinds.push_back(item.kind);
            batch.seqs.push_back(item.seq);
            batch.events.push_back(std::move(item.json));
            entry.events.pop_front();
        }
        return batch;
    }
    return std::nullopt;
}

std::size_t RankQueue::complete(Batch batch, bool delivered) {
    auto it = ranks_.find(batch.rank);
    if (it == ranks_.end()) return 0;  // not ours
    Entry& entry = it->second;
    entry.in_flight = false;
    std::size_t heartbeats_dropped = 0;
    if (delivered) {
        events_ -= batch.events.size();
        bytes_ -= batch.bytes;
    } else {
        for (std::size_t i = batch.events.size(); i-- > 0;) {
            if (batch.kinds[i] == EventKind::heartbeat) {  // not retried: the next heartbeat follows
                events_ -= 1;
                bytes_ -= batch.events[i].size();
                ++heartbeats_dropped;
                continue;
            }
            entry.events.push_front(Item{std::move(batch.events[i]), batch.kinds[i], batch.seqs[i]});
        }
    }
    if (entry.events.empty()) {
        if (!entry.listed) ranks_.erase(it);
        return heartbeats_dropped;
    }
    list(batch.rank, entry);
    return heartbeats_dropped;
}

std::size_t RankQueue::clear_waiting() {
    std::size_t removed = 0;
    for (auto it = ranks_.begin(); it != ranks_.end();) {
        Entry& entry = it->second;
        for (const auto& e : entry.events) bytes_ -= e.json.size();
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
    heartbeats_.clear();
    return removed;
}

}  // namespace meshscope::client
