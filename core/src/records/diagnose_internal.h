// Shared by the diagnosis's parts: the plan's groups looked up by members, and the finding texts' helpers.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "meshscope/mesh/plan.h"
#include "meshscope/records/diagnose.h"

namespace meshscope::records::detail {

// "mesh_ep" (DeviceMesh's group_desc) -> "ep"; a bare dim name stays; anything else -> "".
[[nodiscard]] std::string dim_from_desc(std::string_view desc);
// "[0, 1, 2]" or "[0, 2, 4, ..., 30] (16 ranks)"
[[nodiscard]] std::string members_text(std::span<const std::int64_t> members);
// "rank 5", "ranks 3, 7", "ranks 16-23, 40" (the monitor's words)
[[nodiscard]] std::string ranks_words(std::span<const std::int64_t> ranks);

class PlanIndex {
public:
    PlanIndex(const Plan& plan) : plan_(plan) {}  // NOLINT(google-explicit-constructor)
    [[nodiscard]] std::int64_t world() const { return plan_.topology().world(); }
    // The plan's group with exactly these members (sorted); hint (a dim name) decides between dims that share it.
    [[nodiscard]] std::optional<PlanPlace> exact(std::span<const std::int64_t> members, std::string_view hint) const;
    // A group of `size` whose member at position k is r for every (k, r) seen (an NCCL comm rank is the index in
    // the sorted group, as torch's new_group sorts its ranks); seen may be incomplete.
    [[nodiscard]] std::optional<PlanPlace> by_positions(std::int64_t size,
                                                        std::span<const std::pair<std::int64_t, std::int64_t>> seen,
                                                        std::string_view hint) const;
    // rank's group along the named dim (hint from a group's desc), when the plan has that dim.
    [[nodiscard]] std::optional<PlanPlace> along(std::string_view dim, std::int64_t rank) const;
    // The plan's group most like seen (Jaccard: shared ranks over ranks in either; ties: the smaller group).
    [[nodiscard]] std::pair<std::optional<PlanPlace>, std::int64_t> nearest(std::span<const std::int64_t> seen) const;
    // "(dp, cp, ep) = (8, 1, 4)"
    [[nodiscard]] std::string layout_text() const;

private:
    struct Dim {
        const PlanMesh* mesh;
        std::size_t dim;
        std::string name;
    };
    [[nodiscard]] std::vector<Dim> dims(std::string_view hint) const;
    [[nodiscard]] PlanPlace place(const Dim& d, std::int64_t rank) const;
    const Plan& plan_;
};

// A group seen under a dim's name (Flight Recorder's "mesh_ep"), perhaps not every member: the largest such
// group of a dim gives the dim's size.
struct NamedGroup {
    std::string dim;
    std::vector<std::int64_t> seen;  // sorted
};

// Every (dp, cp, ep) of `world` whose plan has each of `groups` (sorted members, complete) as one of its groups,
// and along each named dim a group of the largest named group's size holding each named group's ranks.
[[nodiscard]] std::vector<Topology> explaining_layouts(std::int64_t world,
                                                       const std::vector<std::vector<std::int64_t>>& groups,
                                                       const std::vector<NamedGroup>& named = {});

}  // namespace meshscope::records::detail

namespace meshscope::records::detail {

// What every part adds to: the plan (may be null), the global rank of every NCCL process, the diagnosis.
struct Context {
    const RecordSet& records;
    const PlanIndex* plan = nullptr;
    std::int64_t world = 0;
    std::vector<std::pair<NcclProcess, std::int64_t>> process_ranks;  // sorted by process
    Diagnosis& out;
    // RAS polled by `serve --ras` (RasPollDiagnosis): the communicators stalled at this poll. Then a communicator's
    // ranks behind are a finding only when it is among them; null for one status read alone.
    const std::vector<RasStall>* ras_stalls = nullptr;
    // Where ranks stand, as the NCCL log and RAS tell it (Flight Recorder's are read by find_verdicts itself): the
    // blocked positions, and the ranks RAS cannot reach (rank -> RAS's words, the status's file).
    std::vector<Position> positions;
    std::map<std::int64_t, std::pair<std::string, std::string>> unreachable;
    [[nodiscard]] std::optional<std::int64_t> rank_of(const NcclProcess& p) const;
};

// Adds a rank the records name to diagnosis.ranks (kept sorted by rank), with its host and pid when known and the
// rank has none yet.
void note_rank(Diagnosis& diagnosis, std::int64_t rank, const std::string& host, std::optional<std::int64_t> pid);

// The processes' global ranks from the NCCL log (launcher prefixes, else the largest communicator) and the world.
void find_process_ranks(Context& context);
// Communicators assembled from their init lines: placed, and communicator_not_formed / group_disagreement.
void diagnose_nccl(Context& context);
// Flight Recorder process groups: placed; collective_mismatch, collective_stuck and the per-dim progress.
void diagnose_flight_recorder(Context& context);
// RAS communicators: placed; peer_unreachable, communicator_not_formed, collective_stuck.
void diagnose_ras(Context& context);

// Who waits on whom across groups, followed to the ends of the chains: the verdicts, each added as the first of the
// findings with the findings it explains marked (verdict.cpp).
void find_verdicts(Context& context);

// The complete groups each part sees (for proposing a layout without a plan).
[[nodiscard]] std::vector<std::vector<std::int64_t>> complete_nccl_groups(const Context& context);
[[nodiscard]] std::vector<std::vector<std::int64_t>> complete_fr_groups(const Context& context);
[[nodiscard]] std::vector<NamedGroup> named_fr_groups(const Context& context);

// Places an observed group on the plan, or on its nearest group.
void place_group(const Context& context, ObservedGroup& group,
                 std::span<const std::pair<std::int64_t, std::int64_t>> positions, std::string_view hint);

}  // namespace meshscope::records::detail

namespace meshscope::records::detail {

// When a group's members entered one of its sequence ids (time_created_ns): the first and the last of those that
// entered it, and how many did.
struct SeqArrival {
    std::int64_t seq = 0, first_ns = 0, last_ns = 0;
    std::int64_t entered = 0;
};

// A Flight Recorder group as the straggler rule reads it.
struct FrGroupArrivals {
    std::string dim;               // the plan's dim, or the group's desc
    std::string label;             // "efsdp group 2 [2, 6, 10, 14]"
    std::int64_t with_dump = 0;    // members whose dump was read
    std::vector<SeqArrival> seqs;  // sorted by seq
};

// The rule over every rank's arrivals (stragglers.cpp): dumps by rank, each dump's groups (by FrGroupName::index)
// as indices into groups.
[[nodiscard]] Stragglers find_stragglers(const std::map<std::int64_t, const FrDump*>& by_rank,
                                         const std::map<const FrDump*, std::vector<std::size_t>>& group_ids,
                                         const std::vector<FrGroupArrivals>& groups, const StragglerRule& rule);
// One straggler finding per dim with late ranks, sourced from their dumps.
[[nodiscard]] std::vector<SourcedFinding> straggler_findings(const Stragglers& stragglers,
                                                             const std::map<std::int64_t, const FrDump*>& by_rank);
// "2004.1 ms"
[[nodiscard]] std::string ms_text(std::int64_t ns);

// A rank blocked in a communicator an NCCL log or RAS names: the Position's group fields from its place on the plan,
// or, unplaced, its label with `unplaced_key` (the communicator's id or hash) as its findings' key.
inline Position blocked_in(const ObservedGroup& group, std::int64_t rank, std::string source,
                           const std::string& unplaced_key) {
    Position p;
    p.rank = rank;
    p.state = Position::State::blocked;
    p.source = std::move(source);
    if (group.place) {
        p.mesh = group.place->mesh;
        p.dim = group.place->dim;
        p.index = group.place->index;
    }
    p.label = group.label();
    p.name = group.place ? group.place->dim + " group " + std::to_string(group.place->index) : group.label();
    p.key = group.place ? group.place->dim + "/" + std::to_string(group.place->index) : unplaced_key;
    return p;
}

}  // namespace meshscope::records::detail
