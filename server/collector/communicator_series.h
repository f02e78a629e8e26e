// The per-communicator series of a job (docs/collector-metrics.md, "Per-communicator series"), as GET /metrics writes
// them (meshscope_communicator_ranks, meshscope_communicator_state, meshscope_communicators_omitted) and the OTLP
// export sends them as gauges (docs/collector-metrics.md, "OTLP export"): one list, read from
// Monitor::communicators_json, so that both carry the same communicators under the same attributes and the same cap.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace meshscope::server {

inline constexpr std::string_view communicator_ranks_metric = "meshscope_communicator_ranks";
inline constexpr std::string_view communicator_state_metric = "meshscope_communicator_state";
inline constexpr std::string_view communicators_omitted_metric = "meshscope_communicators_omitted";
// At most this many communicators of a job are written, those not formed, stuck or failed first; the rest are
// counted in meshscope_communicators_omitted.
inline constexpr std::size_t communicator_series_cap = 256;
// Every state a communicator's state series writes (1 for the one it is in, 0 for the others).
inline constexpr std::array<std::string_view, 5> communicator_states = {"formed", "not_formed", "stuck", "failed",
                                                                        "wrong_result"};

// One communicator's series: its labels (attributes) besides the job, the ranks that reported it or that the
// records name, and its state.
struct CommunicatorSeries {
    std::string comm_name;  // meshscope-probe's groups: "<dim> group <index>"; records: NCCL's commHash as Inspector
    std::string nranks;     // its size, as the label writes it
    std::string dim;
    std::string group;  // its index along the dim, empty when none
    std::string source;
    std::int64_t ranks = 0;
    std::string state;
};

// The series of a job's communicators, the cap applied: those in trouble first (in the order the monitor gives
// them), then the formed ones. `omitted` counts those past the cap.
struct JobCommunicators {
    std::string job;
    std::vector<CommunicatorSeries> series;
    std::size_t omitted = 0;
};
[[nodiscard]] JobCommunicators communicator_series(const std::string& job, const nlohmann::json& communicators);

}  // namespace meshscope::server
