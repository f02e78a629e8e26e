// RanksCache: GET /api/v1/jobs/{job}/ranks served from serialized rows kept per job. A request compares
// the monitor's ranks with the ones behind the cached rows and serializes again only those that changed,
// so a 16,384-rank job costs a copy and a comparison per request instead of building and dumping a JSON
// tree of every rank (docs/live-at-scale.md). Used on the monitor thread only (Collector::query).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "meshscope/monitor.h"

namespace meshscope::server {

class RanksCache {
public:
    // {"ranks": [rows offset .. offset+limit), "total": every rank}, or nullopt for an unknown job.
    [[nodiscard]] std::optional<std::string> page(const Monitor& monitor, const std::string& job, std::size_t offset,
                                                  std::optional<std::size_t> limit);
    // Rows serialized by the last page() of a job (for tests and benchmarks).
    [[nodiscard]] std::size_t last_rebuilt() const noexcept { return last_rebuilt_; }

private:
    struct Rows {
        std::vector<RankState> states;  // what each row was made from
        std::vector<std::string> rows;  // to_json(state).dump()
    };
    std::unordered_map<std::string, Rows> jobs_;
    std::size_t last_rebuilt_ = 0;
};

}  // namespace meshscope::server
