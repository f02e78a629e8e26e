#include "simulation.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <random>
#include <thread>

#include "meshscope/mesh/plan.h"
#include "meshscope/mesh/topology.h"
#include "meshscope/monitor/event.h"

namespace meshscope::sim {

namespace {
using nlohmann::json;

// Simulated durations (seconds). Healthy ranks vary a little, so robust statistics see a tight crowd.
constexpr double launch_seconds = 1.0;
constexpr double communicator_seconds = 2.0;
constexpr double straggler_seconds = 30.0;  // far beyond median + max(5 MAD, 1 s, 50 %)
constexpr int max_fault_count = 1000;

std::string topology_text(std::int64_t dp, std::int64_t cp, std::int64_t ep) {
    return "(" + std::to_string(dp) + ", " + std::to_string(cp) + ", " + std::to_string(ep) + ")";
}

CreationOrder other_order(CreationOrder order) {
    return order == CreationOrder::torch29 ? CreationOrder::torch28 : CreationOrder::torch29;
}

// A rank that can carry creation_order_mismatch: along some dim its group (2+ ranks) comes at another index in
// the other PyTorch's order, and neither it nor the group the others create at that index holds a rank in
// `blocked` (the other faulty ranks, and the groups of earlier picks), so that the others outvote it there.
// Returns the ranks of both groups, to block for the next pick; empty when the rank cannot carry it.
std::vector<std::int64_t> creation_fault_groups(const Plan& plan, std::int64_t rank, const std::vector<bool>& blocked) {
    for (const PlanMesh& m : plan.meshes()) {
        if (m.name == model_mesh_name) continue;  // not simulated
        for (std::size_t d = 0; d < m.mesh.ndim(); ++d) {
            if (m.mesh.dim_size(d) < 2) continue;
            const std::int64_t mine = m.mesh.group_index(rank, d, plan.order());
            const std::int64_t theirs = m.mesh.group_index(rank, d, other_order(plan.order()));
            if (mine == theirs) continue;
            std::vector<std::int64_t> ranks = m.mesh.group_of(rank, d);
            const auto there = m.mesh.group(d, theirs, plan.order());
            ranks.insert(ranks.end(), there.begin(), there.end());
            if (std::none_of(ranks.begin(), ranks.end(),
                             [&](std::int64_t r) { return blocked[static_cast<std::size_t>(r)]; }))
                return ranks;
        }
    }
    return {};
}

// Faults that make a rank behave differently for the whole run; each faulty rank has exactly one.
struct RankScript {
    std::int64_t rank = 0;
    std::optional<FindingKind> fault;
};

// The dim a group_disagreement fault is injected on: the first dim (outside the model mesh) whose groups hold 2 ranks
// or more and fewer than the world; {nullptr, 0} when the plan has none.
std::pair<const PlanMesh*, std::size_t> disagreeable_dim(const Plan& plan) {
    for (const PlanMesh& candidate : plan.meshes())
        if (candidate.name != model_mesh_name)
            for (std::size_t d = 0; d < candidate.mesh.ndim(); ++d)
                if (candidate.mesh.dim_size(d) >= 2 && candidate.mesh.dim_size(d) < plan.topology().world())
                    return {&candidate, d};
    return {nullptr, 0};
}

class ScriptWriter {
public:
    ScriptWriter(const Scenario& scenario, const Plan& plan, const ScenarioOptions& options, std::mt19937_64& rng)
        : scenario_(scenario), plan_(plan), options_(options), rng_(rng) {}

    // One rank's whole script, step by step: launch, meshes, then either a fault that ends it or the
    // communicator up to ready. The random draws happen in a fixed order, so a seed always gives one script.
    void write(const RankScript& script, std::vector<ScheduledEvent>& out) {
        if (script.fault == FindingKind::missing_rank) return;  // never starts
        RankRun run{script.rank, script.fault, jitter(0.0, 0.05), out};
        launch(run);
        build_meshes(run);
        if (run.fault == FindingKind::reinit_mismatch) return initialize_again(run);
        run.t += 0.1;
        emit(run, run.t, base(run, Phase::communicator, Status::started));
        if (run.fault == FindingKind::rank_error) return fail_communicator(run);
        become_ready(run);
    }

    std::vector<std::int64_t> take_heartbeating() { return std::move(heartbeating_); }

private:
    double jitter(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng_); }

    // The rank whose script is being written and the simulated clock it has reached.
    struct RankRun {
        std::int64_t rank = 0;
        std::optional<FindingKind> fault;
        double t = 0;
        std::vector<ScheduledEvent>& out;
    };

    // What every event of the rank carries: who sends it, from which host and process.
    Event base(const RankRun& run, Phase phase, Status status) const {
        Event e;
        e.job = scenario_.job;
        e.rank = run.rank;
        e.world_size = scenario_.world_size;
        e.phase = phase;
        e.status = status;
        e.host = "node" + std::to_string(plan_.placement().node_of(run.rank));
        e.pid = 10000 + run.rank;
        return e;
    }

    void emit(RankRun& run, double at, Event e) const {
        e.ts = scenario_.start_ts + at;
        run.out.push_back({at, run.rank, std::move(e)});
    }

    // launch started (with its GPU), launch done, process_group done; a duplicated rank launches twice.
    void launch(RankRun& run) {
        Event started = base(run, Phase::launch, Status::started);
        started.local_rank = plan_.placement().local_rank_of(run.rank);
        started.device = "cuda:" + std::to_string(*started.local_rank);
        emit(run, run.t, started);
        if (run.fault == FindingKind::duplicate_rank) {
            // A second process claims the same rank (a launcher started it twice).
            Event twin = started;
            twin.host = "node" + std::to_string(plan_.placement().nodes()) + "-stray";
            twin.pid = 90000 + run.rank;
            emit(run, run.t + 0.01, twin);
        }
        run.t += launch_seconds + jitter(0.0, 0.05);
        emit(run, run.t, base(run, Phase::launch, Status::done));
        run.t += 0.2;
        emit(run, run.t, base(run, Phase::process_group, Status::done));
    }

    // LlamaFactory's model mesh, the data mesh and, when ep > 1, the expert mesh, with this rank's groups along
    // every dim, as the Python reporter sends them: the model mesh's mp_shard group is every rank by default
    // (a Group keeps it as three numbers, and so does the wire). A rank with the wrong topology built FSDPTurbo's
    // meshes from it: it reports what it believes and no groups of ours.
    void build_meshes(RankRun& run) {
        const bool mismatched = run.fault == FindingKind::topology_mismatch;
        ReportedTopology reported =
            mismatched ? wrong_topology() : ReportedTopology{options_.dp, options_.cp, options_.ep};
        reported.mp_replicate = plan_.topology().mp_replicate;
        reported.mp_shard = plan_.topology().mp_shard;
        for (const PlanMesh& m : plan_.meshes()) {
            const bool own_mesh = m.name == "data" || m.name == model_mesh_name;  // not built from the topology
            run.t += 0.1;
            Event e = base(run, own_mesh ? Phase::device_mesh : Phase::parallel_state, Status::done);
            e.topology = reported;
            if (!mismatched || own_mesh) e.mesh = ReportedMesh{m.name, m.mesh.dim_names(), m.mesh.shape()};
            if (!mismatched) {
                e.groups = groups_of(run, m);
                e.creation_index = creation_index_of(run, m);
            }
            emit(run, run.t, std::move(e));
        }
        disagreed_ = false;
    }

    // The rank's group along every dim of `m`; a disagreeing rank gets its first multi-rank group wrong.
    std::map<std::string, Group> groups_of(const RankRun& run, const PlanMesh& m) {
        std::map<std::string, Group> groups;
        for (std::size_t d = 0; d < m.mesh.ndim(); ++d) {
            auto members = m.mesh.group_of(run.rank, d);
            if (run.fault == FindingKind::group_disagreement && d == disagreeing_dim(m) && !disagreed_) {
                members = disagree(members);
                disagreed_ = true;
            }
            groups[m.mesh.dim_names()[d]] = Group::from(members);
        }
        return groups;
    }

    // Where each of the rank's groups comes in its dim's creation order; a rank with the other PyTorch creates
    // them in the other order.
    std::map<std::string, std::int64_t> creation_index_of(const RankRun& run, const PlanMesh& m) const {
        // The scenarios' fault is in FSDPTurbo's meshes: the model mesh's groups come in PyTorch's order.
        const bool other = run.fault == FindingKind::creation_order_mismatch && m.name != model_mesh_name;
        const CreationOrder order = other ? other_order(plan_.order()) : plan_.order();
        std::map<std::string, std::int64_t> indices;
        for (std::size_t d = 0; d < m.mesh.ndim(); ++d)
            indices[m.mesh.dim_names()[d]] = m.mesh.group_index(run.rank, d, order);
        return indices;
    }

    // The seed's RuntimeError: initialize() again with another ep in the same process, then exit.
    void initialize_again(RankRun& run) const {
        run.t += 0.1;
        Event e = base(run, Phase::parallel_state, Status::failed);
        const std::int64_t other_ep = options_.ep == 1 ? std::max<std::int64_t>(2, options_.dp) : 1;
        e.error = ReportedError{"RuntimeError", "FSDPTurbo parallel state is already initialized with " +
                                                    topology_text(options_.dp, options_.cp, options_.ep) + ", got " +
                                                    topology_text(options_.dp, options_.cp, other_ep) + "."};
        emit(run, run.t, std::move(e));
        emit(run, run.t + 0.05, base(run, Phase::exit, Status::failed));
    }

    // NCCL fails while building the communicator; the process exits.
    void fail_communicator(RankRun& run) const {
        Event e = base(run, Phase::communicator, Status::failed);
        e.error = ReportedError{"DistBackendError",
                                "NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)"};
        emit(run, run.t + 0.3, std::move(e));
        emit(run, run.t + 0.35, base(run, Phase::exit, Status::failed));
    }

    // communicator done (late for a straggler), ready, the first heartbeat; a stale rank then hangs.
    void become_ready(RankRun& run) {
        run.t += run.fault == FindingKind::straggler ? straggler_seconds : communicator_seconds + jitter(0.0, 0.1);
        emit(run, run.t, base(run, Phase::communicator, Status::done));
        run.t += 0.1;
        emit(run, run.t, base(run, Phase::ready, Status::done));
        run.t += 0.5;
        emit(run, run.t, base(run, Phase::heartbeat, Status::done));
        if (run.fault == FindingKind::stale_rank) return;  // hangs: no more heartbeats, no exit
        heartbeating_.push_back(run.rank);
    }

    // Another (dp, cp, ep) a confused rank could hold: ep doubled, else halved.
    ReportedTopology wrong_topology() const {
        ReportedTopology t{options_.dp, options_.cp, options_.ep};
        t.ep = options_.dp % (options_.ep * 2) == 0 ? options_.ep * 2
                                                    : (options_.ep > 1 ? options_.ep / 2 : options_.ep + 1);
        return t;
    }

    // The dim whose group the disagreeing rank gets wrong: the first dim whose groups hold 2 ranks or more and not
    // the whole world (a group of every rank has no outsider to put in it).
    std::size_t disagreeing_dim(const PlanMesh& m) const {
        const auto [mesh, dim] = disagreeable_dim(plan_);
        return mesh == &m ? dim : m.mesh.ndim();
    }

    // The group with its last member replaced by a rank from outside it (an off-by-one in a rank list).
    std::vector<std::int64_t> disagree(std::vector<std::int64_t> members) const {
        if (static_cast<std::int64_t>(members.size()) >= scenario_.world_size) return members;  // no outsider
        std::int64_t outsider = (members.back() + 1) % scenario_.world_size;
        while (std::find(members.begin(), members.end(), outsider) != members.end())
            outsider = (outsider + 1) % scenario_.world_size;
        members.back() = outsider;
        std::sort(members.begin(), members.end());
        return members;
    }

    const Scenario& scenario_;
    const Plan& plan_;
    const ScenarioOptions& options_;
    std::mt19937_64& rng_;
    bool disagreed_ = false;
    std::vector<std::int64_t> heartbeating_;
};
}  // namespace

Expected<FaultCounts> parse_faults(std::string_view text) {
    FaultCounts counts;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find(',', start), text.size());
        const std::string_view item = text.substr(start, end - start);
        start = end + 1;
        if (item.empty()) {
            if (end >= text.size()) break;
            continue;
        }
        const std::size_t eq = item.find('=');
        const std::string_view name = item.substr(0, eq);
        const auto kind = parse_finding_kind(name);
        if (!kind) return ValueError("--faults: unknown finding kind '" + std::string(name) + "'");
        int count = 1;
        if (eq != std::string_view::npos) {
            const std::string number(item.substr(eq + 1));
            char* stop = nullptr;
            const long value = std::strtol(number.c_str(), &stop, 10);
            if (number.empty() || *stop != '\0' || value < 0 || value > max_fault_count)
                return ValueError("--faults: '" + std::string(item) + "' needs a count from 0 to " +
                                  std::to_string(max_fault_count));
            count = static_cast<int>(value);
        }
        counts[*kind] += count;
        if (end >= text.size()) break;
    }
    return counts;
}

Expected<Scenario> make_scenario(const ScenarioOptions& options) {
    const auto topology = Topology::make(options.dp, options.cp, options.ep);
    if (!topology) return topology.error();
    const auto plan = Plan::make(*topology, options.gpus_per_node);
    if (!plan) return plan.error();

    Scenario scenario;
    scenario.world_size = topology->world();
    scenario.gpus_per_node = options.gpus_per_node;
    scenario.job = options.job.empty() ? "sim-" + std::to_string(options.seed) : options.job;
    scenario.start_ts =
        options.start_ts > 0
            ? options.start_ts
            : std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();

    // Faulty ranks: distinct, drawn with the seed. The healthy majority must stay a clear majority and
    // large enough for the straggler statistics (8 peers).
    std::int64_t faulty = 0;
    for (const auto& [kind, n] : options.faults) faulty += n;
    const std::int64_t needed =
        options.faults.count(FindingKind::straggler) && options.faults.at(FindingKind::straggler) > 0
            ? std::max<std::int64_t>(2 * faulty + 1, faulty + 9)
            : 2 * faulty + 1;
    if (faulty > 0 && scenario.world_size < needed)
        return ValueError("--faults: " + std::to_string(faulty) + " faulty ranks need a world of at least " +
                          std::to_string(needed) + ", got " + std::to_string(scenario.world_size));
    if (options.faults.count(FindingKind::group_disagreement) &&
        options.faults.at(FindingKind::group_disagreement) > 0 && !disagreeable_dim(*plan).first)
        return ValueError(
            "--faults: group_disagreement needs a mesh dim whose groups hold from 2 ranks to fewer than "
            "the world, for a rank to report one with an outsider in it; (dp, cp, ep) = " +
            topology_text(options.dp, options.cp, options.ep) + " has none");
    std::mt19937_64 rng(options.seed);
    std::vector<std::int64_t> order(static_cast<std::size_t>(scenario.world_size));
    std::iota(order.begin(), order.end(), 0);
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng() % i]);

    std::vector<RankScript> scripts(static_cast<std::size_t>(scenario.world_size));
    for (std::int64_t r = 0; r < scenario.world_size; ++r) scripts[static_cast<std::size_t>(r)].rank = r;
    std::size_t next = 0;
    std::vector<bool> blocked(static_cast<std::size_t>(scenario.world_size), false);  // creation_order_mismatch
    for (const auto& [kind, n] : options.faults) {
        for (int i = 0; i < n; ++i) {
            if (kind == FindingKind::creation_order_mismatch) {
                // (last in the enum, so the other kinds' ranks are drawn as before) the first rank in the drawn
                // order that can carry it
                std::size_t k = next;
                std::vector<std::int64_t> groups;
                for (; k < order.size(); ++k)
                    if (!(groups = creation_fault_groups(*plan, order[k], blocked)).empty()) break;
                if (k == order.size())
                    return ValueError("--faults: creation_order_mismatch=" + std::to_string(n) +
                                      " needs ranks whose groups PyTorch 2.8 and 2.9 create in different orders (an "
                                      "expert mesh with cp > 1 and ep > 1), apart from the other faults; (dp, cp, ep) "
                                      "= " +
                                      topology_text(options.dp, options.cp, options.ep) + " has room for " +
                                      std::to_string(i));
                std::swap(order[next], order[k]);
                for (const std::int64_t r : groups) blocked[static_cast<std::size_t>(r)] = true;
            }
            const std::int64_t r = order[next++];
            scripts[static_cast<std::size_t>(r)].fault = kind;
            scenario.injected[kind].push_back(r);
            blocked[static_cast<std::size_t>(r)] = true;
        }
        if (n > 0) std::sort(scenario.injected[kind].begin(), scenario.injected[kind].end());
    }

    ScriptWriter writer(scenario, *plan, options, rng);
    for (const RankScript& script : scripts) writer.write(script, scenario.events);
    scenario.heartbeating = writer.take_heartbeating();
    std::stable_sort(scenario.events.begin(), scenario.events.end(),
                     [](const ScheduledEvent& a, const ScheduledEvent& b) { return a.at < b.at; });
    scenario.end_at = scenario.events.empty() ? 0 : scenario.events.back().at;
    return scenario;
}

nlohmann::json summary_json(const Scenario& scenario) {
    json injected = json::object();
    for (const auto& [kind, ranks] : scenario.injected)
        if (!ranks.empty()) injected[std::string(to_string(kind))] = ranks;
    return {{"job", scenario.job}, {"world_size", scenario.world_size}, {"injected", std::move(injected)}};
}

RunResult run_scenario(const Scenario& scenario, client::Reporter& reporter, const RunOptions& options,
                       const std::atomic<bool>& stop) {
    const EventSink sink = [&reporter](const Event& event) {
        reporter.enqueue(event.rank, to_json(event).dump(-1, ' ', false, json::error_handler_t::replace));
    };
    return run_scenario(scenario, sink, options, stop);
}

RunResult run_scenario(const Scenario& scenario, const EventSink& sink, const RunOptions& options,
                       const std::atomic<bool>& stop) {
    using Clock = std::chrono::steady_clock;
    RunResult result;
    const auto start = Clock::now();
    const double scale = options.time_scale > 0 ? options.time_scale : 1.0;
    auto due = [&](double at) {
        return start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(at / scale));
    };
    auto send = [&](const Event& event) {
        sink(event);
        ++result.events;
    };
    for (const ScheduledEvent& e : scenario.events) {
        if (stop.load()) {
            result.stopped = true;
            return result;
        }
        const auto when = due(e.at);
        if (when > Clock::now() + std::chrono::milliseconds(1)) std::this_thread::sleep_until(when);
        send(e.event);
    }

    const auto event_for = [&](std::int64_t rank, Phase phase, double at) {
        Event e;
        e.job = scenario.job;
        e.rank = rank;
        e.world_size = scenario.world_size;
        e.phase = phase;
        e.status = Status::done;
        e.ts = scenario.start_ts + at;
        e.host = "node" + std::to_string(rank / scenario.gpus_per_node);
        e.pid = 10000 + rank;
        return e;
    };
    if (!options.hold) {
        const double at = scenario.end_at + 0.5;
        for (const std::int64_t r : scenario.heartbeating) send(event_for(r, Phase::exit, at));
        if (options.on_script_sent) options.on_script_sent();
        return result;
    }
    if (options.on_script_sent) options.on_script_sent();
    // Held: the healthy ranks keep heartbeating in real time until stopped.
    auto next = Clock::now();
    while (!stop.load()) {
        next += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.heartbeat_interval));
        while (Clock::now() < next && !stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        if (stop.load()) break;
        const double at = scenario.end_at + std::chrono::duration<double>(Clock::now() - start).count() * 1.0;
        for (const std::int64_t r : scenario.heartbeating) send(event_for(r, Phase::heartbeat, at));
    }
    result.stopped = true;
    return result;
}

}  // namespace meshscope::sim
