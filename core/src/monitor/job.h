// What the monitor keeps per job: rank records, the indices findings are computed from, and the findings.
// Internal to core (src/monitor); the public face is meshscope/monitor.h.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "meshscope/mesh/plan.h"
#include "meshscope/monitor/finding.h"
#include "meshscope/monitor/group.h"
#include "meshscope/monitor/rank_index.h"
#include "meshscope/monitor/rank_state.h"
#include "meshscope/monitor/records_import.h"
#include "monitor/communicator_book.h"
#include "monitor/group_tally.h"

namespace meshscope::monitor {

// A rank a straggler finding names.
struct SlowRank {
    std::int64_t rank = 0;
    double seconds = 0;    // the phase's duration; for a running rank, the threshold it has passed
    bool running = false;  // still in the phase
};

// One process that reported a rank. A missing host or pid matches any.
struct Identity {
    std::optional<std::string> host;
    std::optional<std::int64_t> pid;
    [[nodiscard]] bool matches(const Identity& other) const noexcept {
        return (!host || !other.host || *host == *other.host) && (!pid || !other.pid || *pid == *other.pid);
    }
    [[nodiscard]] std::string text() const;  // "node-a pid 100"
};

struct RankRecord {
    RankState state;                            // state.groups stays empty: groups live in `groups` below, compactly
    std::vector<std::pair<int, Group>> groups;  // dim id -> this rank's report
    std::vector<std::pair<int, std::int64_t>> creation;                 // dim id -> its group's creation index
    std::array<std::optional<double>, phase_count> started_received{};  // collector clock
    std::vector<Identity> identities;                                   // distinct processes seen
    std::optional<double> phase_order;  // order key (ts or arrival) of the event that set state.phase
    bool failed = false;
    bool exited = false;
    bool ready = false;
    bool stale = false;
    // A relay holds back lifecycle events of this rank (refused under load, Monitor::seen): until the next one
    // arrives, how long it seems to run a phase on the collector's clock says nothing, so it is not judged a
    // "still running" straggler.
    bool held = false;
    // Named by imported records (Monitor::import_records) and not yet by a hook event: its state is pending, and
    // the job's summary counts it so (its world's states add up).
    bool records_only = false;
    std::optional<Phase> failed_phase;
    std::optional<double> failed_when;
    std::optional<ReportedError> failure;                       // the error that came with the failure
    std::optional<std::pair<std::string, std::string>> reinit;  // FSDPTurbo's (current, new) tuples

    [[nodiscard]] const Group* group(int dim) const noexcept {
        for (const auto& [d, g] : groups)
            if (d == dim) return &g;
        return nullptr;
    }
    [[nodiscard]] std::optional<std::int64_t> creation_of(int dim) const noexcept {
        for (const auto& [d, index] : creation)
            if (d == dim) return index;
        return std::nullopt;
    }
};

// One thing every rank of a job must agree on: its topology, world size, or one mesh.
struct Aspect {
    enum class Basis { none, plan, majority, tie };
    Aspect() = default;
    explicit Aspect(std::string aspect_name) : name(std::move(aspect_name)) {}

    std::string name;                                          // "topology", "world_size", "mesh/expert"
    std::map<std::string, std::vector<std::int64_t>> holders;  // value text -> ranks reporting it (unordered)
    std::optional<std::string> declared;                       // the declared plan's value
    std::string reference;                                     // the value ranks are compared with ("" = none)
    Basis basis = Basis::none;
    std::set<std::string> finding_values;   // values with a topology_mismatch finding now
    std::vector<std::string> dirty_values;  // values whose holders changed since the last refresh (may repeat)
    bool dirty = false;
};

[[nodiscard]] inline std::int64_t lowest(const std::vector<std::int64_t>& ranks) noexcept {
    return ranks.empty() ? 0 : *std::min_element(ranks.begin(), ranks.end());
}

struct Job {
    std::string name;
    std::deque<RankRecord> records;  // arrival order; deque keeps references stable
    RankIndex slots;                 // rank -> index in records (memory by the ranks seen, not by their size)
    std::int64_t events = 0;
    std::optional<double> first_event, last_event, first_ts, last_ts;
    std::array<std::int64_t, rank_state_kind_count> state_counts{};  // over seen ranks
    std::int64_t records_only_ranks = 0;                             // seen ranks with records_only set
    // The world the last import of records establishes (its world_size, else one past the highest rank it names):
    // the job's world while no hook event says one.
    std::int64_t records_world = 0;
    // The (dp, cp, ep) the last import placed its records on (given or proposed): the job's topology while no
    // declared plan or hook report says one. Where its ranks stand in the hang, summed up (HangSummary).
    std::optional<ReportedTopology> records_topology;
    std::optional<HangSummary> hang;
    // The communicators the last import shows (GET .../communicators "records", the per-communicator series).
    std::vector<RecordsCommunicator> records_communicators;

    // Declared plan and the expected layout ranks are compared with.
    std::optional<nlohmann::json> plan_json;
    std::optional<Plan> plan;
    Aspect topology{"topology"};
    Aspect world{"world_size"};
    std::map<std::string, Aspect> meshes;  // by mesh name
    std::optional<ReportedTopology> reference_topology;
    std::optional<Plan> expected;  // built from reference_topology (and reference_model)
    // The model mesh (mp_replicate, mp_shard) ranks are judged by: the "model" mesh's reference (declared plan or
    // majority). Without it (no rank reports one) or when it does not fit the world, expected's model mesh is not
    // used and model dims are judged by peers.
    std::optional<ModelMeshShape> reference_model;
    bool expected_has_model = false;
    // The declared plan's world, else the majority's, else the imported records' (0 before any report).
    std::int64_t reference_world = 0;

    // Group reports.
    static constexpr std::size_t max_dims = 64;  // distinct dim names per job; further ones are ignored
    std::vector<std::string> dim_names;
    std::unordered_map<std::string, int> dim_ids;
    // Where a dim lives in `expected` (mesh index, dim index, size, stride); nullopt: no such dim there.
    struct ExpectedDim {
        std::size_t mesh = 0;
        std::size_t dim = 0;
        std::int64_t size = 1;
        std::int64_t stride = 1;
    };
    // By dim id; an entry is looked up once per `expected` (cleared when it changes).
    std::vector<std::optional<std::optional<ExpectedDim>>> expected_dims;
    std::set<std::pair<int, std::int64_t>> flagged_groups;  // (dim, rank) with a finding
    // For dims judged by peers only: member -> the ranks whose report lists it (groups up to max_claimed_group).
    static constexpr std::int64_t max_claimed_group = 1024;
    std::vector<std::unordered_map<std::int64_t, std::vector<std::int64_t>>> claims;  // by dim id
    // Groups of more than max_claimed_group members, by dim id, with how many of their members agree: a rank of
    // such a group whose members all agree is judged without walking the group.
    std::vector<GroupTally> tallies;
    // creation_order_mismatch, by dim id: creation index -> the ranks that report their group at it, and the
    // ranks at fault now (sorted).
    std::vector<std::unordered_map<std::int64_t, std::vector<std::int64_t>>> creations;
    std::vector<std::vector<std::int64_t>> order_faulty;
    // By dim id: creation index -> the group every voting claimer there reported at its last judgment. A rank that
    // joins such an index with that group (or with none that votes) changes nothing, so it is not judged again:
    // in a start-up storm each index gains its claimers one by one, and judging all of them at every join was
    // the monitor's largest cost (docs/benchmarks.md).
    std::vector<std::unordered_map<std::int64_t, Group>> unanimous;

    std::map<std::string, Finding> findings;  // by id
    std::vector<std::int64_t> missing;        // ranks named by the missing_rank finding, sorted (the first ones)
    std::int64_t missing_count = 0;           // ranks of the world missing, named or not
    std::vector<std::int64_t> stale;          // ranks named by the stale_rank finding, sorted
    CommunicatorBook communicators;           // meshscope-probe's group measurements
    // Ranks never seen here that a relay heard from (Monitor::seen): their events wait in their reporters,
    // refused under load, so they are late, not missing. Only ranks below the job's world are kept (only those can
    // be missing), and only those never seen: a bit each where they are dense (128 KiB for a whole 2^20-rank
    // world), memory by the ranks heard where they are sparse, whatever ranks a batch's "seen" names.
    RankBits heard;
    [[nodiscard]] bool was_heard(std::int64_t rank) const { return heard.contains(rank); }

    // Work left for the end of the current ingest call.
    std::vector<Aspect*> dirty_aspects;
    std::vector<std::pair<int, std::int64_t>> dirty_groups;     // (dim id, rank)
    std::vector<std::pair<int, std::int64_t>> dirty_creations;  // (dim id, creation index)
    std::vector<std::int64_t> dirty_ranks;                      // per-rank findings to refresh
    bool all_groups_dirty = false;
    // The last straggler judgment of each timed phase (by index_of): its threshold and the slow ranks it named,
    // sorted by rank. A report from a named rank updates the list at once (a late done ends its "still running"),
    // without judging the whole phase again: that stays the tick's, O(ranks).
    struct StragglerJudgment {
        double threshold = 0;
        double median = 0;
        std::size_t peers = 0;
        std::vector<SlowRank> slow;
    };
    std::array<StragglerJudgment, phase_count> stragglers{};

    [[nodiscard]] RankRecord* find(std::int64_t rank) noexcept {
        const auto slot = slots.get(rank);
        return slot < 0 ? nullptr : &records[static_cast<std::size_t>(slot)];
    }
    [[nodiscard]] const RankRecord* find(std::int64_t rank) const noexcept {
        return const_cast<Job*>(this)->find(rank);
    }
    [[nodiscard]] int dim_id(const std::string& name) {
        const auto [it, added] = dim_ids.emplace(name, static_cast<int>(dim_names.size()));
        if (added) {
            dim_names.push_back(name);
            claims.emplace_back();
            tallies.emplace_back(max_claimed_group);
            creations.emplace_back();
            order_faulty.emplace_back();
            unanimous.emplace_back();
        }
        return it->second;
    }
};

}  // namespace meshscope::monitor
