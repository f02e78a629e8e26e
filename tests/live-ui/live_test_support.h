// What the Live page tests feed a real collector: a 16-rank job (dp=8 cp=2 ep=2, two hosts of 8 GPUs) whose
// findings are known exactly, as protocol events (NDJSON), so every test can say what the page must show.
//   rank 5 reports ep=4       -> topology_mismatch [5]
//   rank 9 fails in parallel_state -> rank_error [9], state failed
//   rank 15 never reports     -> missing_rank [15] (once missing_after passed)
//   everyone else: launch .. ready done on host node-0 (ranks 0-7) or node-1 (8-15)
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace meshscope::test {

inline constexpr const char* standard_job = "job-16";
inline constexpr int standard_world = 16;
inline constexpr int standard_ready = 14;  // 0..14 but the failed rank 9
inline constexpr int standard_seen = 15;

inline nlohmann::json rank_event(const std::string& job, int rank, const char* phase, const char* status, double ts,
                                 std::int64_t ep = 2) {
    return {{"job", job},
            {"rank", rank},
            {"world_size", standard_world},
            {"phase", phase},
            {"status", status},
            {"ts", ts},
            {"host", rank < 8 ? "node-0" : "node-1"},
            {"pid", 1000 + rank},
            {"local_rank", rank % 8},
            {"topology", {{"dp", 8}, {"cp", 2}, {"ep", ep}}}};
}

inline std::string standard_job_ndjson(const std::string& job = standard_job) {
    static constexpr const char* phases[] = {"launch",         "process_group", "device_mesh",
                                             "parallel_state", "communicator",  "ready"};
    std::string out;
    const double t0 = 1000.0;
    for (int rank = 0; rank < standard_world - 1; ++rank) {
        const std::int64_t ep = rank == 5 ? 4 : 2;
        double t = t0 + rank * 0.01;
        for (const char* phase : phases) {
            if (rank == 9 && std::string(phase) == "parallel_state") {
                auto failed = rank_event(job, rank, "parallel_state", "failed", t + 0.2, ep);
                failed["error"] = {{"type", "RuntimeError"}, {"message", "NCCL error: unhandled system error"}};
                out += rank_event(job, rank, phase, "started", t, ep).dump() + "\n" + failed.dump() + "\n";
                break;
            }
            out += rank_event(job, rank, phase, "started", t, ep).dump() + "\n";
            t += 0.1 + 0.01 * rank;
            out += rank_event(job, rank, phase, "done", t, ep).dump() + "\n";
        }
    }
    return out;
}

}  // namespace meshscope::test
