// What `meshscope serve --otlp-export URL` sends, as OTLP/HTTP JSON bodies (docs/collector-metrics.md, "OTLP export"):
// each finding change as a log record (POST URL/v1/logs), each job's rank states, findings by kind and communicators as
// gauges (POST URL/v1/metrics) under the names and attributes GET /metrics writes. Plain functions of plain values: the
// exporter's thread (otlp_exporter.h) calls them, the tests read what they write.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collector/communicator_series.h"
#include "meshscope/monitor/finding.h"
#include "meshscope/monitor/monitor.h"

namespace meshscope::server {

// The resource attributes of every request: service.name "meshscope", and the job under this key.
inline constexpr std::string_view otlp_service_name = "meshscope";
inline constexpr std::string_view otlp_job_attribute = "meshscope.job";
inline constexpr std::string_view otlp_finding_event = "meshscope.finding";
// A finding's ranks beyond this many are left out of its "ranks" attribute ("rank_count" has them all): a
// missing_rank of a 16,384-rank job would otherwise be one log record of 100 KB.
inline constexpr std::size_t otlp_max_ranks = 256;

// One finding change to send: a finding added, updated or removed (then only finding.id and finding.kind are set).
struct FindingChange {
    std::string job;
    ChangeKind change = ChangeKind::finding_added;
    Finding finding;
    double time = 0;  // the collector's clock, seconds since the Unix epoch
};

// Where on the meshes a finding is, read from its id where the monitor or the records put it there
// ("slow_group/ep/1", "communicator_not_formed/efsdp/0", "collective_stuck/ep/1": dim and group;
// "group_disagreement/ep/5", "creation_order_mismatch/efsdp", "straggler/flight_recorder/ep": dim). mesh follows from
// the dim (model: mp_replicate, mp_shard; data: dp, cp; expert: edp, efsdp, ep, expert_cp); a dim outside those is
// not one, and nothing is set. Imported findings (records/N) carry none.
struct FindingPlace {
    std::string mesh, dim;
    std::optional<std::int64_t> group;
};
[[nodiscard]] FindingPlace finding_place(const Finding& finding);

// OTLP's severity of a finding kind: FATAL (21) for a verdict, WARN (13) for straggler, stale_rank and slow_group,
// ERROR (17) for the rest; a removed finding is INFO (9).
struct OtlpSeverity {
    int number = 17;
    std::string_view text = "ERROR";
};
[[nodiscard]] OtlpSeverity otlp_severity(FindingKind kind, ChangeKind change = ChangeKind::finding_added);

// One log record (an OTLP LogRecord in JSON) of a change.
[[nodiscard]] std::string otlp_log_record(const FindingChange& change);
// An ExportLogsServiceRequest of log records otlp_log_record wrote for `job` ... : one resourceLogs per job, in the
// order of first appearance.
struct JobRecord {
    std::string_view job;
    std::string_view record;  // otlp_log_record's text
};
[[nodiscard]] std::string otlp_logs_body(std::span<const JobRecord> records);
// An ExportMetricsServiceRequest: for each job one resourceMetrics with the gauges meshscope_ranks{slurm_job_id,
// state} and meshscope_findings{slurm_job_id, kind}, every state and kind (zeros included), at `time`; and where
// `communicators` has the job (communicator_series: the cap applied), its per-communicator gauges as GET /metrics
// writes them, meshscope_communicator_ranks{slurm_job_id, comm_name, nranks, dim, group, source},
// meshscope_communicator_state{..., state} (every state, 1 for the one it is in) and
// meshscope_communicators_omitted{slurm_job_id}, the attributes strings as the labels are.
[[nodiscard]] std::string otlp_metrics_body(std::span<const JobSummary> jobs, double time,
                                            std::span<const JobCommunicators> communicators = {});

}  // namespace meshscope::server
