#include "admission.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "meshscope/monitor/event.h"

namespace meshscope::relay {

std::optional<double> parse_rank_timeout(std::string_view value) {
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
    if (value.empty()) return std::nullopt;
    double seconds = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    if (ec != std::errc{} || end != value.data() + value.size() || !std::isfinite(seconds) || seconds <= 0)
        return std::nullopt;
    return std::clamp(seconds, 0.001, 600.0);
}

void Admission::answered(std::int64_t bodies, double seconds) {
    if (bodies <= 0 || !(seconds >= 0)) return;
    constexpr double decay = 0.7;
    bodies_ = bodies_ * decay + static_cast<double>(bodies);
    seconds_ = seconds_ * decay + std::max(seconds, 1e-4);
}

double Admission::drain_rate() const {
    return seconds_ > 0 ? bodies_ / seconds_ * max_in_flight_ : 0;
}

double Admission::expected_wait(std::int64_t ahead, double stalled_s) const {
    const double rate = drain_rate();
    // Unknown rate (nothing answered yet): only a stall says anything; the queued-body deadline still holds.
    const double drain = rate > 0 ? static_cast<double>(ahead + 1) / rate : 0;
    return std::max(drain, stalled_s);
}

int Admission::retry_after(double wait_s, double now_s) {
    const double rate = drain_rate();
    horizon_s_ = std::max(horizon_s_, now_s + std::max(wait_s, 0.0));
    horizon_s_ = std::min(horizon_s_ + (rate > 0 ? 1.0 / rate : 0.0), now_s + max_retry_after_s_);
    const double jittered = horizon_s_ - now_s + std::uniform_real_distribution<double>(0.0, 1.0)(random_);
    return std::clamp(static_cast<int>(std::ceil(jittered)), 1, std::max(1, max_retry_after_s_));
}

BodySenders body_senders(std::string_view body) {
    BodySenders senders;
    const auto events = parse_events(body);
    if (!events || events->empty()) return senders;
    senders.heartbeats_only = true;
    senders.ranks.reserve(events->size());
    for (const Event& e : *events) {
        senders.heartbeats_only = senders.heartbeats_only && e.phase == Phase::heartbeat;
        if (senders.ranks.empty() || senders.ranks.back().first != e.job || senders.ranks.back().second != e.rank)
            senders.ranks.emplace_back(e.job, e.rank);
    }
    return senders;
}

}  // namespace meshscope::relay
