// What the Live page tests feed a real collector: a 16-rank job (dp=8 cp=2 ep=2, two hosts of 8 GPUs) whose
// findings are known exactly, as protocol events (NDJSON), so every test can say what the page must show.
//   rank 5 reports ep=4       -> topology_mismatch [5]
//   rank 9 fails in parallel_state -> rank_error [9], state failed
//   rank 15 never reports     -> missing_rank [15] (once missing_after passed)
//   everyone else: launch .. ready done on host node-0 (ranks 0-7) or node-1 (8-15)
#pragma once

#include <cstdint>
#include <string>

#include "meshscope/monitor/event.h"
#include "test_events.h"

namespace meshscope::test {

inline constexpr const char* standard_job = "job-16";
inline constexpr int standard_world = 16;
inline constexpr int standard_ready = 14;  // 0..14 but the failed rank 9
inline constexpr int standard_seen = 15;

// One rank of the standard job as it reports: its host, process and GPU, and the topology it believes.
inline Event rank_event(const std::string& job, int rank, Phase phase, Status status, double ts, std::int64_t ep = 2) {
    Event e = event(job, rank, standard_world, phase, status);
    e.ts = ts;
    e.host = rank < 8 ? "node-0" : "node-1";
    e.pid = 1000 + rank;
    e.local_rank = rank % 8;
    e.topology = ReportedTopology{8, 2, ep};
    return e;
}

inline std::string standard_job_ndjson(const std::string& job = standard_job) {
    static constexpr Phase phases[] = {Phase::launch,         Phase::process_group, Phase::device_mesh,
                                       Phase::parallel_state, Phase::communicator,  Phase::ready};
    std::vector<Event> events;
    const double t0 = 1000.0;
    for (int rank = 0; rank < standard_world - 1; ++rank) {
        const std::int64_t ep = rank == 5 ? 4 : 2;
        double t = t0 + rank * 0.01;
        for (const Phase phase : phases) {
            events.push_back(rank_event(job, rank, phase, Status::started, t, ep));
            if (rank == 9 && phase == Phase::parallel_state) {
                Event failed = rank_event(job, rank, phase, Status::failed, t + 0.2, ep);
                failed.error = ReportedError{"RuntimeError", "NCCL error: unhandled system error"};
                events.push_back(failed);
                break;
            }
            t += 0.1 + 0.01 * rank;
            events.push_back(rank_event(job, rank, phase, Status::done, t, ep));
        }
    }
    return ndjson(events);
}

}  // namespace meshscope::test
