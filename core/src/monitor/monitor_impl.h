// Monitor::Impl: the monitor's state and the steps of ingest and tick (monitor_ingest.cpp,
// monitor_groups.cpp, monitor_tick.cpp, monitor.cpp). Internal to core.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "meshscope/monitor/monitor.h"
#include "monitor/job.h"

namespace meshscope {

struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const noexcept { return std::hash<std::string_view>{}(text); }
};

struct Monitor::Impl {
    Options options;
    ChangeListener listener;
    std::vector<Change> changes;
    std::int64_t events = 0;
    std::unordered_map<std::string, std::unique_ptr<monitor::Job>, StringHash, std::equal_to<>> jobs;
    monitor::Job* last_job = nullptr;  // consecutive events of one job skip the lookup

    // monitor.cpp
    void emit(Change change);
    void put_finding(monitor::Job& job, Finding finding);
    void drop_finding(monitor::Job& job, const std::string& id);
    // Recomputes the rank's state from its flags; tells rank_changed when state or phase changed.
    void update_state(monitor::Job& job, monitor::RankRecord& record, std::optional<Phase> previous_phase);

    // monitor_ingest.cpp
    monitor::Job& job_for(const std::string& name);
    void ingest_one(monitor::Job& job, const Event& event, double received_at);
    void note_alive(monitor::Job& job, monitor::RankRecord& record, bool first_seen);  // ends stale / missing
    void note_agreement(monitor::Job& job, monitor::RankRecord& record, const Event& event, bool newer);
    void flush(monitor::Job& job);  // re-evaluates what the events of this call made dirty
    void vote(monitor::Job& job, monitor::Aspect& aspect, std::int64_t rank, const std::optional<std::string>& before,
              const std::string& now);
    void refresh_aspect(monitor::Job& job, monitor::Aspect& aspect);
    void declare_plan(monitor::Job& job, const nlohmann::json& plan);
    void refresh_rank_findings(monitor::Job& job, monitor::RankRecord& record);
    void set_reference_topology(monitor::Job& job, std::optional<ReportedTopology> topology);

    // monitor_model_mesh.cpp
    void set_reference_model(monitor::Job& job);  // after the "model" mesh's reference changed
    void rebuild_expected(monitor::Job& job);     // from reference_topology and reference_model

    // monitor_groups.cpp
    void report_group(monitor::Job& job, monitor::RankRecord& record, const std::string& dim, const Group& report);
    void evaluate_group(monitor::Job& job, int dim, std::int64_t rank);

    // monitor_creation.cpp: creation_order_mismatch from the ranks' creation indices
    void report_creation(monitor::Job& job, monitor::RankRecord& record, const std::string& dim, std::int64_t index);
    // Whether the rank's group at that creation index is the one every voting claimer there agreed on (or does not
    // vote) while the dim has no rank at fault: then its report changes no judgment, and the index is not re-judged.
    [[nodiscard]] bool agrees_at(const monitor::Job& job, const monitor::RankRecord& rec, int dim,
                                 std::int64_t index) const;
    // Re-judges the ranks claiming each dirty (dim, creation index) and restates the findings of the dims that changed.
    void refresh_creation_findings(monitor::Job& job);

    // monitor_communicators.cpp: slow_group and communicator_not_formed from the job's CommunicatorBook
    void refresh_communicator_findings(monitor::Job& job);

    // monitor_tick.cpp
    void tick_job(monitor::Job& job, double now);
    void judge_straggler(monitor::Job& job, Phase phase, double now);
    void put_straggler_finding(monitor::Job& job, Phase phase);  // from job.stragglers
    // After an event of a rank a straggler finding names as still running: ends that, when the phase has ended.
    void note_straggler_report(monitor::Job& job, const monitor::RankRecord& rec);
    void set_rank_list_finding(monitor::Job& job, std::vector<std::int64_t>& current, std::vector<std::int64_t> ranks,
                               FindingKind kind);
    // missing_rank: the lowest missing ranks (at most monitor::missing_named_limit) and how many are missing.
    void set_missing(monitor::Job& job, std::vector<std::int64_t> named, std::int64_t count);
};

}  // namespace meshscope
