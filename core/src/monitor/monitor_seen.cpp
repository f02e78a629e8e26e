// Monitor::seen: a rank proved it is alive without an event the collector keeps (a heartbeat shed under
// load, docs/live-at-scale.md). Shedding must never make a false stale_rank.
#include <algorithm>

#include "monitor/monitor_impl.h"

namespace meshscope {

bool Monitor::seen(std::string_view job, std::int64_t rank, double received_at, bool held) {
    const auto it = impl_->jobs.find(job);
    if (it == impl_->jobs.end()) return false;
    monitor::Job& j = *it->second;
    monitor::RankRecord* record = j.find(rank);
    if (!record) {
        // Alive, but none of its events is stored yet (a relay refused them under load): not missing.
        if (rank >= 0 && rank < j.reference_world) j.heard.insert(rank);
        return false;
    }
    if (held) record->held = true;
    RankState& s = record->state;
    if (!s.last_seen || received_at > *s.last_seen) s.last_seen = received_at;
    if (record->stale) {
        record->stale = false;
        auto stale = j.stale;
        stale.erase(std::remove(stale.begin(), stale.end(), rank), stale.end());
        impl_->set_rank_list_finding(j, j.stale, std::move(stale), FindingKind::stale_rank);
        impl_->update_state(j, *record, s.phase);
    }
    return true;
}

}  // namespace meshscope
