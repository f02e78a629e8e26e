// Ingest: folds one event into its rank's record and the job's indices, then (flush) re-evaluates only the
// findings those changes touch.
#include <algorithm>

#include "meshscope/mesh/plan_json.h"
#include "meshscope/monitor/finding_text.h"
#include "monitor/model_mesh_report.h"
#include "monitor/monitor_impl.h"

namespace meshscope {

namespace {
std::string mesh_value(const std::vector<std::string>& names, const std::vector<std::int64_t>& shape) {
    std::string out = "(";
    for (std::size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
    out += ") = (";
    for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
    return out + ")";
}

void keep_min(std::optional<double>& slot, double value) {
    if (!slot || value < *slot) slot = value;
}
void keep_max(std::optional<double>& slot, double value) {
    if (!slot || value > *slot) slot = value;
}

template <typename T>
void push_unique(std::vector<T>& list, const T& value) {
    if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

// Starts a rank over when a new process reports it after the old one exited (a relaunch in the same job).
void restart(monitor::RankRecord& record, const monitor::Identity& identity) {
    record.identities = {identity};
    record.failed = record.exited = record.ready = record.stale = false;
    record.failed_phase.reset();
    record.failed_when.reset();
    record.failure.reset();
    record.reinit.reset();
    record.state.timings = {};
    record.started_received = {};
    record.state.error.reset();
}

// The job's counters and clocks.
void count_event(monitor::Job& job, const Event& e, double at) {
    ++job.events;
    keep_min(job.first_event, at);
    keep_max(job.last_event, at);
    if (e.ts) {
        keep_min(job.first_ts, *e.ts);
        keep_max(job.last_ts, *e.ts);
    }
}

struct FoundRecord {
    monitor::RankRecord& record;
    bool first_seen;  // the record was made for this event
};

FoundRecord record_for(monitor::Job& job, std::int64_t rank) {
    if (monitor::RankRecord* record = job.find(rank)) return {*record, false};
    job.slots.set(rank, static_cast<std::int32_t>(job.records.size()));
    monitor::RankRecord& record = job.records.emplace_back();
    record.state.rank = rank;
    return {record, true};
}

// Which process reports this rank: a second live one is a duplicate; one after an exit is a relaunch.
void note_process(monitor::Job& job, monitor::RankRecord& rec, const Event& e) {
    if (!e.host && !e.pid) return;
    // Compared in place: most events come from the process already known, and copying costs.
    const bool known = std::any_of(rec.identities.begin(), rec.identities.end(), [&](const monitor::Identity& i) {
        return (!i.host || !e.host || *i.host == *e.host) && (!i.pid || !e.pid || *i.pid == *e.pid);
    });
    if (known) return;
    const monitor::Identity identity{e.host, e.pid};
    if (rec.identities.empty()) {
        rec.identities.push_back(identity);
    } else if (rec.exited) {
        restart(rec, identity);
        push_unique(job.dirty_ranks, e.rank);
    } else if (rec.identities.size() < 8) {
        rec.identities.push_back(identity);
        push_unique(job.dirty_ranks, e.rank);
    }
}

// The rank's clocks and identity fields. Returns whether this event is at least as recent as anything the
// rank sent before (by the sender's clock; events without ts count as newest): older events fill gaps but
// never overwrite.
bool take_reported_facts(RankState& s, const Event& e, double at) {
    const bool newer = !e.ts || !s.last_ts || *e.ts >= *s.last_ts;
    ++s.events;
    keep_min(s.first_seen, at);
    keep_max(s.last_seen, at);
    if (e.ts) keep_max(s.last_ts, *e.ts);
    auto take = [newer](auto& slot, const auto& value) {
        if (value && (newer || !slot)) slot = value;
    };
    take(s.host, e.host);
    take(s.pid, e.pid);
    take(s.local_rank, e.local_rank);
    take(s.device, e.device);
    take(s.device_uuid, e.device_uuid);
    return newer;
}

// The latest phase by the sender's clock and the phase's timing; heartbeats only prove the rank is alive.
void note_phase(monitor::RankRecord& rec, const Event& e, double at) {
    if (e.phase == Phase::heartbeat) return;
    RankState& s = rec.state;
    if (!e.ts || !rec.phase_order || *e.ts >= *rec.phase_order) {
        s.phase = e.phase;
        s.status = e.status;
        if (e.ts) rec.phase_order = e.ts;
    }
    const auto p = index_of(e.phase);
    const double when = e.ts.value_or(at);
    PhaseTiming& timing = s.timings[p];
    switch (e.status) {
        case Status::started:
            keep_min(timing.started, when);
            keep_min(rec.started_received[p], at);
            break;
        case Status::done: keep_min(timing.done, when); break;
        case Status::failed: keep_min(timing.failed, when); break;
    }
}

// Errors, failures, exit and ready.
void note_outcome(monitor::Job& job, monitor::RankRecord& rec, const Event& e, bool newer, double at) {
    RankState& s = rec.state;
    if (e.error && (newer || !s.error)) s.error = e.error;
    if (e.status == Status::failed || e.phase == Phase::error) {
        // The earliest failure (sender's clock) names the phase and the error; any failure may carry
        // FSDPTurbo's re-initialization error, whatever order the events arrive in.
        const double when = e.ts.value_or(at);
        if (!rec.failed || when < *rec.failed_when) {
            rec.failed_phase = e.phase;
            rec.failed_when = when;
            if (e.error) rec.failure = e.error;
        } else if (!rec.failure && e.error) {
            rec.failure = e.error;
        }
        if (e.error && !rec.reinit) rec.reinit = monitor::parse_reinit_message(e.error->message);
        rec.failed = true;
        push_unique(job.dirty_ranks, e.rank);
    }
    for (const auto& c : e.communicators) job.communicators.record(e.rank, c);
    if (e.phase == Phase::exit) rec.exited = true;
    if (e.phase == Phase::ready && e.status == Status::done) rec.ready = true;
}
}  // namespace

monitor::Job& Monitor::Impl::job_for(const std::string& name) {
    if (last_job && last_job->name == name) return *last_job;
    auto it = jobs.find(name);
    if (it == jobs.end()) {
        auto job = std::make_unique<monitor::Job>();
        job->name = name;
        it = jobs.emplace(name, std::move(job)).first;
        Change change;
        change.kind = ChangeKind::job_added;
        change.job = name;
        emit(std::move(change));
    }
    last_job = it->second.get();
    return *last_job;
}

// The steps of one event, in this order: counters, the rank's record, its process, its reported facts, the
// phase, how it ended, that it is alive, then what every rank must agree on; last its state.
void Monitor::Impl::ingest_one(monitor::Job& job, const Event& e, double at) {
    ++events;
    count_event(job, e, at);
    auto [rec, first_seen] = record_for(job, e.rank);
    const std::optional<Phase> previous_phase = rec.state.phase;
    note_process(job, rec, e);
    const bool newer = take_reported_facts(rec.state, e, at);
    note_phase(rec, e, at);
    note_outcome(job, rec, e, newer, at);
    note_alive(job, rec, first_seen);
    if (e.phase != Phase::heartbeat) rec.held = false;  // its held-back events are arriving
    note_agreement(job, rec, e, newer);
    update_state(job, rec, previous_phase);
    if (e.phase != Phase::heartbeat) note_straggler_report(job, rec);
}

void Monitor::Impl::note_alive(monitor::Job& job, monitor::RankRecord& rec, bool first_seen) {
    // Any event proves the rank is alive and was seen.
    const std::int64_t rank = rec.state.rank;
    if (rec.stale) {
        rec.stale = false;
        auto stale = job.stale;
        stale.erase(std::remove(stale.begin(), stale.end(), rank), stale.end());
        set_rank_list_finding(job, job.stale, std::move(stale), FindingKind::stale_rank);
    }
    // A missing rank that reports is no longer missing, named or only counted.
    if (first_seen && job.missing_count > 0 && rank < job.reference_world && !job.was_heard(rank)) {
        auto missing = job.missing;
        if (const auto it = std::lower_bound(missing.begin(), missing.end(), rank); it != missing.end() && *it == rank)
            missing.erase(it);
        set_missing(job, std::move(missing), job.missing_count - 1);
    }
}

void Monitor::Impl::note_agreement(monitor::Job& job, monitor::RankRecord& rec, const Event& e, bool newer) {
    // What every rank must agree on. Older reports do not replace newer ones.
    RankState& s = rec.state;
    if (newer || !s.world_size) {
        if (s.world_size != e.world_size) {
            const auto before = s.world_size ? std::optional(std::to_string(*s.world_size)) : std::nullopt;
            s.world_size = e.world_size;
            vote(job, job.world, e.rank, before, std::to_string(e.world_size));
        }
    }
    if (e.topology && (newer || !s.topology) && s.topology != e.topology) {
        const auto before = s.topology ? std::optional(s.topology->tuple_string()) : std::nullopt;
        s.topology = e.topology;
        vote(job, job.topology, e.rank, before, e.topology->tuple_string());
        // Whether this rank's groups are judged depends on its topology matching the reference.
        for (const auto& [dim, report] : rec.groups) job.dirty_groups.emplace_back(dim, e.rank);
    }
    // A topology with (mp_replicate, mp_shard) reports LlamaFactory's model mesh, judged like any other mesh.
    const auto model_mesh = e.topology ? monitor::model_mesh_of(*e.topology) : std::nullopt;
    for (const ReportedMesh* mesh : {e.mesh ? &*e.mesh : nullptr, model_mesh ? &*model_mesh : nullptr}) {
        if (!mesh) continue;
        auto it = s.meshes.find(mesh->name);
        if (it == s.meshes.end() || (newer && it->second != *mesh)) {
            const auto before =
                it == s.meshes.end() ? std::nullopt : std::optional(mesh_value(it->second.dim_names, it->second.shape));
            s.meshes[mesh->name] = *mesh;
            auto& aspect = job.meshes[mesh->name];
            if (aspect.name.empty()) {
                aspect.name = "mesh/" + mesh->name;
                if (job.plan)
                    if (const PlanMesh* pm = job.plan->mesh(mesh->name))
                        aspect.declared = mesh_value(pm->mesh.dim_names(), pm->mesh.shape());
            }
            vote(job, aspect, e.rank, before, mesh_value(mesh->dim_names, mesh->shape));
            // Whether this rank's model groups are judged depends on its model mesh matching the reference.
            if (monitor::model_shape_of(*mesh))
                for (const auto& [dim, report] : rec.groups) job.dirty_groups.emplace_back(dim, e.rank);
        }
    }
    if (e.plan && (!job.plan_json || *job.plan_json != *e.plan)) declare_plan(job, *e.plan);
    if (newer || rec.groups.empty())
        for (const auto& [dim, members] : e.groups) report_group(job, rec, dim, members);
    if (newer || rec.creation.empty())
        for (const auto& [dim, index] : e.creation_index) report_creation(job, rec, dim, index);
}

void Monitor::Impl::vote(monitor::Job& job, monitor::Aspect& aspect, std::int64_t rank,
                         const std::optional<std::string>& before, const std::string& now) {
    if (before) {
        const auto it = aspect.holders.find(*before);
        if (it != aspect.holders.end()) {
            auto& ranks = it->second;
            const auto pos = std::find(ranks.begin(), ranks.end(), rank);
            if (pos != ranks.end()) {
                *pos = ranks.back();
                ranks.pop_back();
            }
            if (ranks.empty()) aspect.holders.erase(it);
        }
        aspect.dirty_values.push_back(*before);
    }
    aspect.holders[now].push_back(rank);
    aspect.dirty_values.push_back(now);
    if (!aspect.dirty) {
        aspect.dirty = true;
        job.dirty_aspects.push_back(&aspect);
    }
}

void Monitor::Impl::refresh_aspect(monitor::Job& job, monitor::Aspect& aspect) {
    aspect.dirty = false;
    // The reference: the declared plan's value, else the most common value; a tie goes to the value held by
    // the lowest rank, so that every collector picks the same one.
    std::string reference;
    monitor::Aspect::Basis basis = monitor::Aspect::Basis::none;
    if (aspect.declared) {
        reference = *aspect.declared;
        basis = monitor::Aspect::Basis::plan;
    } else {
        std::size_t best = 0;
        const std::vector<std::int64_t>* best_ranks = nullptr;
        bool tie = false;
        for (const auto& [value, ranks] : aspect.holders) {
            if (ranks.size() < best) continue;
            if (ranks.size() == best) {
                tie = true;
                if (monitor::lowest(ranks) > monitor::lowest(*best_ranks)) continue;
            } else {
                tie = false;
            }
            best = ranks.size();
            best_ranks = &ranks;
            reference = value;
        }
        if (!reference.empty()) basis = tie ? monitor::Aspect::Basis::tie : monitor::Aspect::Basis::majority;
    }
    const bool reference_changed = reference != aspect.reference || basis != aspect.basis;
    aspect.reference = reference;
    aspect.basis = basis;

    if (&aspect == &job.world) {
        if (job.plan)
            job.reference_world = job.plan->topology().world();
        else
            job.reference_world = reference.empty() ? job.records_world : std::stoll(reference);
    }
    if (&aspect == &job.topology && reference_changed) {
        std::optional<ReportedTopology> topology;
        if (job.plan) {
            const auto& t = job.plan->topology();
            topology = ReportedTopology{t.dp, t.cp, t.ep};
        } else if (!reference.empty()) {
            topology = job.find(aspect.holders.at(reference).front())->state.topology;
        } else {
            topology = job.records_topology;
        }
        set_reference_topology(job, topology);
    }
    if (reference_changed && aspect.name == monitor::model_aspect_name()) set_reference_model(job);

    // Re-state the findings of the values whose holders changed; of every value when the reference moved.
    std::vector<std::string> values;
    values.swap(aspect.dirty_values);
    if (reference_changed) {
        values.clear();
        for (const auto& [value, ranks] : aspect.holders) values.push_back(value);
        values.insert(values.end(), aspect.finding_values.begin(), aspect.finding_values.end());
    }
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    for (const auto& value : values) {
        const auto it = aspect.holders.find(value);
        if (it == aspect.holders.end() || value == reference) {
            // Nothing to drop in the common case: a rank joining the reference.
            if (aspect.finding_values.erase(value)) drop_finding(job, "topology_mismatch/" + aspect.name + "/" + value);
            continue;
        }
        std::vector<std::int64_t> ranks = it->second;
        std::sort(ranks.begin(), ranks.end());
        Finding f = monitor::topology_mismatch(aspect, value, std::move(ranks));
        aspect.finding_values.insert(value);
        put_finding(job, std::move(f));
    }
}

void Monitor::Impl::set_reference_topology(monitor::Job& job, std::optional<ReportedTopology> topology) {
    if (topology == job.reference_topology && (job.expected || !topology)) return;
    job.reference_topology = topology;
    rebuild_expected(job);
}

void Monitor::Impl::declare_plan(monitor::Job& job, const nlohmann::json& document) {
    auto plan = plan_from_json(document);
    if (!plan) return;  // parse_events validated it; a plan that stopped parsing is ignored
    job.plan_json = document;
    job.plan = std::move(plan).value();
    const auto& t = job.plan->topology();
    auto declare = [&](monitor::Aspect& aspect, std::optional<std::string> value) {
        aspect.declared = std::move(value);
        aspect.basis = monitor::Aspect::Basis::none;  // forces a full refresh: the basis becomes "plan" or changes
        if (!aspect.dirty) {
            aspect.dirty = true;
            job.dirty_aspects.push_back(&aspect);
        }
    };
    declare(job.topology, ReportedTopology{t.dp, t.cp, t.ep}.tuple_string());
    declare(job.world, std::to_string(t.world()));
    for (auto& [name, aspect] : job.meshes) {
        const PlanMesh* pm = job.plan->mesh(name);
        declare(aspect, pm ? std::optional(mesh_value(pm->mesh.dim_names(), pm->mesh.shape())) : std::nullopt);
    }
}

void Monitor::Impl::refresh_rank_findings(monitor::Job& job, monitor::RankRecord& rec) {
    const std::int64_t rank = rec.state.rank;
    const std::string suffix = "/" + std::to_string(rank);
    if (rec.failed && rec.reinit) {
        put_finding(job, monitor::reinit_mismatch(rank, rec.reinit->first, rec.reinit->second));
    } else {
        drop_finding(job, "reinit_mismatch" + suffix);
    }
    if (rec.failed && !rec.reinit) {
        put_finding(job,
                    monitor::rank_error(rank, rec.failed_phase.value_or(Phase::error), rec.failure, rec.state.host));
    } else {
        drop_finding(job, "rank_error" + suffix);
    }
    if (rec.identities.size() > 1)
        put_finding(job, monitor::duplicate_rank(rank, rec.identities));
    else
        drop_finding(job, "duplicate_rank" + suffix);
}

void Monitor::Impl::flush(monitor::Job& job) {
    // Aspects first: a new reference topology changes how every group is judged.
    for (std::size_t i = 0; i < job.dirty_aspects.size(); ++i) refresh_aspect(job, *job.dirty_aspects[i]);
    job.dirty_aspects.clear();

    if (job.all_groups_dirty) {
        job.all_groups_dirty = false;
        job.dirty_groups.clear();
        for (auto& rec : job.records)
            for (const auto& [dim, report] : rec.groups) job.dirty_groups.emplace_back(dim, rec.state.rank);
    }
    if (!job.dirty_groups.empty()) {
        std::sort(job.dirty_groups.begin(), job.dirty_groups.end());
        job.dirty_groups.erase(std::unique(job.dirty_groups.begin(), job.dirty_groups.end()), job.dirty_groups.end());
        for (const auto& [dim, rank] : job.dirty_groups) {
            evaluate_group(job, dim, rank);
            // Whether the rank's creation index counts depends on its group being judged right.
            if (const monitor::RankRecord* rec = job.find(rank))
                if (const auto index = rec->creation_of(dim); index && !agrees_at(job, *rec, dim, *index))
                    job.dirty_creations.emplace_back(dim, *index);
        }
        job.dirty_groups.clear();
    }
    if (!job.dirty_creations.empty()) refresh_creation_findings(job);
    for (const auto rank : job.dirty_ranks)
        if (monitor::RankRecord* rec = job.find(rank)) refresh_rank_findings(job, *rec);
    job.dirty_ranks.clear();
    if (job.communicators.dirty) refresh_communicator_findings(job);
}

}  // namespace meshscope
