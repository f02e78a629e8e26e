// RanksCache: GET /api/v1/jobs/{job}/ranks served from serialized rows kept per job. A request compares
// the monitor's ranks with the ones behind the cached rows and serializes again only those that changed,
// so a 16,384-rank job costs a copy and a comparison per request instead of building and dumping a JSON
// tree of every rank (docs/live-at-scale.md). Only ranks that reported or that records place (a hang position)
// are kept: any other rank never seen is written from one template per page, so a job that claims 2^20 ranks costs what
// its reporting ranks cost, and a page at most max_page rows. Used on the monitor thread only (Collector::query).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "meshscope/monitor/monitor.h"

namespace meshscope::server {

class RanksCache {
public:
    // The most rows one answer holds, with or without ?limit=: the largest job that reports through relays
    // (docs/live-at-scale.md). A larger world is read in pages (offset, limit).
    static constexpr std::size_t max_page = 131072;

    // {"ranks": [rows offset .. offset+limit), "total": every rank}, or nullopt for an unknown job.
    [[nodiscard]] std::optional<std::string> page(const Monitor& monitor, const std::string& job, std::size_t offset,
                                                  std::optional<std::size_t> limit);
    // Rows serialized by the last page() of a job (for tests and benchmarks).
    [[nodiscard]] std::size_t last_rebuilt() const noexcept { return last_rebuilt_; }
    // Rows kept for a job (ranks that reported and were asked for); for tests.
    [[nodiscard]] std::size_t kept(const std::string& job) const;

private:
    struct Row {
        RankState state;  // what the row was made from
        std::string row;  // to_json(state).dump()
    };
    std::unordered_map<std::string, std::unordered_map<std::int64_t, Row>> jobs_;
    std::size_t last_rebuilt_ = 0;
};

}  // namespace meshscope::server
