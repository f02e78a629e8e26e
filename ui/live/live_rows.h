// The rows the Live page shows, parsed from the collector's JSON (GET /api/v1/jobs, /ranks, /findings and
// the WebSocket change stream). The desktop reads the same API whether the collector is embedded or remote.
// Ranks, findings and changes are read by core's readers (rank_state_from_json, finding_from_json,
// change_from_json), so the shape is known in one place. Parsing never throws. A rank, finding or change core
// refuses is left out with a warning on the terminal (`meshscope: a finding from the collector is left out:
// field "id" is required`). Names this build does not know, from a collector newer than it, are kept
// (UnknownNames): a finding of an unknown kind is listed under its name, an unknown rank state reads as pending,
// an unknown phase as none, and a change of an unknown type is ignored (the next snapshot shows its effect).
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "meshscope/monitor/event.h"
#include "meshscope/monitor/hang_position.h"
#include "meshscope/monitor/rank_state.h"

namespace meshscope::ui {

// Where a phase sits in the order a healthy rank reports them (core's Phase); -1 when unknown.
[[nodiscard]] int phase_index(const QString& phase);
[[nodiscard]] int phase_index(std::optional<Phase> phase);  // -1 for none

struct JobRow {
    QString job;
    std::int64_t world_size = 0;
    std::int64_t ranks_seen = 0;
    std::int64_t ranks_ready = 0;
    std::int64_t findings = 0;
    std::int64_t events = 0;
    std::optional<ReportedTopology> topology;
    std::optional<HangSummary> hang;  // a job with imported records: where its ranks stand (core's words)
    friend bool operator==(const JobRow&, const JobRow&) = default;
};

struct RankRow {
    int rank = 0;
    RankStateKind state = RankStateKind::pending;  // an unknown name reads as pending
    QString host;
    int local_rank = -1;
    std::optional<Phase> phase;    // the latest report's; none before the first (or an unknown name)
    std::optional<Status> status;  // of its last phase; none before it reported one
    QStringList findings;          // kinds of the findings naming this rank (unknown ones after the known)
    QString error;                 // "RuntimeError: ..." when the rank reported one
    std::optional<ReportedTopology> topology;
    std::array<PhaseTiming, phase_count> timings{};  // by core's Phase; a phase not reported is not seen()
    std::optional<HangPosition> position;            // where it stands in a hang its records show
    friend bool operator==(const RankRow&, const RankRow&) = default;
};

struct FindingRow {
    QString id;
    QString kind;
    QList<int> ranks;
    QString message;
    QString fix;
    QString from;  // "From: ..." for a finding read from records (core's sources_line), else empty
    friend bool operator==(const FindingRow&, const FindingRow&) = default;
};

// One message of the change stream (meshscope.stream/1).
struct LiveChange {
    enum class Type { hello, job_added, rank_changed, finding_added, finding_updated, finding_removed, unknown };
    Type type = Type::unknown;
    QString job;
    int rank = -1;
    std::optional<RankStateKind> state;  // absent or unknown: the rank keeps its state
    std::optional<Phase> phase;          // absent or unknown: the rank keeps its phase
    FindingRow finding;                  // finding_added/updated: all of it; finding_removed: id and kind
};

[[nodiscard]] std::vector<JobRow> parse_jobs(const nlohmann::json& body);            // {"jobs": [...]}
[[nodiscard]] std::optional<JobRow> parse_job(const nlohmann::json& value);          // one summary
[[nodiscard]] std::vector<RankRow> parse_ranks(const nlohmann::json& body);          // {"ranks": [...]}
[[nodiscard]] std::vector<FindingRow> parse_findings(const nlohmann::json& body);    // {"findings": [...]}
[[nodiscard]] std::optional<FindingRow> parse_finding(const nlohmann::json& value);  // nullopt: left out
[[nodiscard]] LiveChange parse_change(const nlohmann::json& value);

// "3", "3, 7", "0–7, 12" (runs of three or more collapse), at most `limit` items then "… (+n)".
[[nodiscard]] QString ranks_text(const QList<int>& ranks, int limit = 12);

}  // namespace meshscope::ui
