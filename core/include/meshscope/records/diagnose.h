// A post-mortem of a job from what NCCL and PyTorch recorded (NCCL INFO logs, Flight Recorder dumps, NCCL RAS
// status), placed on the plan's meshes: every communicator or process group found is named as the plan's group
// it is (mesh, dim, index, members) or "not in the plan" with its nearest group, every rank gets its coordinates,
// and the findings speak the monitor's vocabulary (docs/findings.md), each naming the records it comes from.
// Without a plan, the (dp, cp, ep) whose meshes explain the groups seen is proposed (or none is).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "meshscope/mesh/plan.h"
#include "meshscope/monitor/finding.h"
#include "meshscope/monitor/records_import.h"
#include "meshscope/records/flight_recorder.h"
#include "meshscope/records/nccl_log.h"
#include "meshscope/records/nccl_ras.h"
#include "meshscope/records/stragglers.h"
#include "meshscope/records/verdict.h"

namespace meshscope::records {

struct RecordSet {
    NcclLog nccl;
    std::vector<FrDump> dumps;
    std::vector<RasStatus> ras;
    std::vector<ReadProblem> problems;  // files that could not be read, with where and why
};

// A group of the plan: mesh "model", "data" or "expert" (or "world" for the default group of every rank).
struct PlanPlace {
    std::string mesh, dim;
    std::int64_t index = 0;  // in the plan's creation order
    std::vector<std::int64_t> members;
    [[nodiscard]] std::string label() const;  // "ep group 1 [4, 5, 6, 7]"
};

struct ObservedGroup {
    std::string source;  // "NCCL log", "Flight Recorder", "NCCL RAS"
    std::string id;      // "commId 0x5ae77eb5ea4ec1ee", "process group 5 (mesh_ep)"
    std::int64_t size = 0;
    std::vector<std::int64_t> seen;           // global ranks that recorded it, sorted
    std::optional<PlanPlace> place;           // the plan's group it is
    std::optional<PlanPlace> nearest;         // when not in the plan: the plan's group sharing most of its ranks
    std::int64_t shared = 0;                  // ranks shared with nearest
    std::vector<std::string> sources;         // "nccl.log:12", "nccl_trace_rank_3"
    std::string record_name;                  // Flight Recorder's process group name ("5"); empty for others
    [[nodiscard]] std::string label() const;  // the plan's label, or "communicator commId 0x.. (8 ranks)"
};

struct SourcedFinding {
    SourcedFinding() = default;
    SourcedFinding(Finding f, std::vector<std::string> from, std::string of = {})
        : finding(std::move(f)), sources(std::move(from)), consequence_of(std::move(of)) {}
    Finding finding;
    std::vector<std::string> sources;
    // The verdict's id ("verdict/13") when this finding is one of its consequences: a group that waits on the
    // verdict's rank, or the rank itself seen by one source.
    std::string consequence_of;
};

struct Diagnosis {
    std::optional<Topology> topology;  // the plan's, or the one proposed
    bool proposed = false;             // no plan was given; topology explains every complete group seen
    std::vector<Topology> candidates;  // every (dp, cp, ep) that explains them (when proposed)
    std::string plan_note;             // why nothing is proposed, when nothing is
    std::int64_t world = 0;
    std::vector<ObservedGroup> groups;
    std::vector<std::string> progress;  // per dim: "every efsdp group (4) reached seq 2"
    // per dim, Flight Recorder's latest arrival: "ep: rank 6 arrived last at seq 2 (all_reduce) of the ep group 1
    // [4, 5, 6, 7], 3.2 ms after the first member"
    std::vector<std::string> arrivals;
    // Flight Recorder's arrivals over the whole window: per dim the rule's figures, per rank its lags and score.
    Stragglers stragglers;
    // The root causes of the hang (verdict.h), first the one most groups wait on; each is also the first of the
    // findings (kind verdict), the findings it explains marked consequence_of.
    std::vector<Verdict> verdicts;
    std::vector<SourcedFinding> findings;
    // Where each rank of the world stands in the hang (hang_position.h), sorted by rank: the hang map. Empty when
    // no record says where any rank is (NCCL init lines alone).
    std::vector<std::pair<std::int64_t, HangPosition>> positions;
    std::vector<ReadProblem> problems;
    // Every rank the records name (an NCCL process, a Flight Recorder dump, a RAS rank), sorted, with the host and
    // pid of its process where NCCL's lines or RAS give them.
    std::vector<RecordsRank> ranks;
};

// plan may be null: then a layout is proposed from the groups seen.
[[nodiscard]] Diagnosis diagnose(const RecordSet& records, const Plan* plan);

// `meshscope serve --ras`'s diagnosis of one RAS server, poll after poll (the stall rule, docs/records-live.md): as
// diagnose of the one status, except that a communicator's ranks behind in operation counts (collective_stuck)
// are a finding only once RasStallWatch names the communicator stalled, its same differing counts at two
// successive polls, and then read "...; rank 7 is behind, and no count changed since the previous poll (NCCL
// RAS)". Counts that differ but move between polls (ranks running ahead of each other) are no finding. A poll
// that could not be read is not given to next: the polls around it count as successive. A poll out of turn
// (in_turn false: one a MONITOR event asked for) is not counted: it shows stalled only what the last poll in turn
// found stalled and it still shows with the same counts.
class RasPollDiagnosis {
public:
    [[nodiscard]] Diagnosis next(const RasStatus& status, const Plan* plan, bool in_turn = true);

private:
    RasStallWatch watch_;
};

// Control characters (escape sequences, line breaks) of text read from records, as '?': what a terminal is shown.
[[nodiscard]] std::string printable(std::string text);

// The hang map's summary of the diagnosis's positions ("root cause: rank 13; waiting in ep seq 2: 3 ranks; ..."),
// none without positions.
[[nodiscard]] std::optional<HangSummary> hang_summary(const Diagnosis& diagnosis);

// What `meshscope import` posts (meshscope.records/1): the findings with their sources, and the ranks.
[[nodiscard]] RecordsImport to_records_import(const Diagnosis& diagnosis);

// meshscope.diagnosis/1
[[nodiscard]] nlohmann::json to_json(const Diagnosis& diagnosis, const Plan* plan);
[[nodiscard]] std::string to_text(const Diagnosis& diagnosis);

}  // namespace meshscope::records
