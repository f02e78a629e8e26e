// bench_history: what a long job does to the history. A 16,384-rank FSDPTurbo job (dp 4096, cp 4,
// ep 32) stores its lifecycle events, then heartbeat rounds (every rank once per round, as every 5 s), each
// round in commits of --batch heartbeats (the collector's group commit, synchronous=FULL), through the
// same EventStore::append (and fold_heartbeats when due) the store writer thread calls. Reports the database and WAL
// size after each stage, the writer's CPU per heartbeat, and how long Collector::open takes to rebuild the job
// afterwards. A day is 17,280 rounds; run as many as --seconds allows (the history stops growing once the heartbeat log
// has been folded and refilled). Commands and figures: docs/benchmarks.md.
//
//   bench_history [--db PATH] [--ranks-dp 4096] [--rounds 17280] [--seconds 180] [--batch 3300]
//   bench_history --db PATH --reopen 1     # only the restart, on a history an earlier run left
//   bench_history --model-mesh 0 ...        # lifecycles without the model mesh's groups
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "collector/collector.h"
#include "meshscope/mesh/model_mesh.h"
#include "meshscope/mesh/plan.h"
#include "store/event_store.h"

namespace {
using namespace meshscope;
using server::StoredEvent;

double thread_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double process_cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double mib(std::uintmax_t bytes) {
    return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

std::uintmax_t file_size(const std::string& path) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    return ec ? 0 : size;
}

struct Sizes {
    std::uintmax_t db = 0;
    std::uintmax_t wal = 0;
};
Sizes sizes(const std::string& path) {
    return {file_size(path), file_size(path + "-wal")};
}

void print_sizes(const char* stage, const std::string& path) {
    const Sizes s = sizes(path);
    std::printf("%-28s db %9.2f MiB  wal %7.2f MiB\n", stage, mib(s.db), mib(s.wal));
    std::fflush(stdout);
}

Event base_event(std::int64_t rank, std::int64_t world, Phase phase, Status status, double ts) {
    Event e;
    e.job = "bench-history";
    e.rank = rank;
    e.world_size = world;
    e.phase = phase;
    e.status = status;
    e.ts = ts;
    e.host = "node-" + std::to_string(rank / 8);
    e.pid = 10000 + rank;
    return e;
}

// A rank's lifecycle as bench/monitor/bench_monitor.cpp sends it (groups of every dim but dp, whose 4,096
// members per rank would say nothing about heartbeats). With model_mesh, the parallel_state event also names
// LlamaFactory's model mesh and its groups, as the Python reporter and `meshscope simulate` send them: mp_shard
// is every rank, a 16,384-member list per rank until groups travelled as {first, step, count}
// (docs/benchmarks.md, "The model mesh's groups"); without it, they are left out.
std::vector<Event> lifecycle(const Plan& plan, const Topology& topology, std::int64_t r, double t, bool model_mesh) {
    const std::int64_t world = topology.world();
    std::vector<Event> out;
    auto add = [&](Phase phase, Status status) -> Event& {
        out.push_back(base_event(r, world, phase, status, t += 0.5));
        return out.back();
    };
    add(Phase::launch, Status::started);
    add(Phase::launch, Status::done);
    add(Phase::process_group, Status::started);
    add(Phase::process_group, Status::done);
    for (const auto& pm : plan.meshes())
        if (pm.name == "data")
            add(Phase::device_mesh, Status::done).mesh = ReportedMesh{"data", pm.mesh.dim_names(), pm.mesh.shape()};
    Event& state = add(Phase::parallel_state, Status::done);
    state.topology = ReportedTopology{topology.dp, topology.cp, topology.ep};
    if (model_mesh) {  // as the Python reporter sends it when LlamaFactory has a model mesh
        state.topology->mp_replicate = topology.mp_replicate;
        state.topology->mp_shard = topology.mp_shard;
    }
    for (const auto& pm : plan.meshes())
        for (std::size_t d = 0; d < pm.mesh.ndim() && (model_mesh || pm.name != model_mesh_name); ++d)
            if (pm.mesh.dim_names()[d] != "dp")
                state.groups[pm.mesh.dim_names()[d]] = Group::from(pm.mesh.group_of(r, d));
    add(Phase::communicator, Status::started);
    add(Phase::communicator, Status::done);
    add(Phase::ready, Status::done);
    return out;
}

struct Args {
    std::string db = "/tmp/meshscope-bench-history.db";
    std::int64_t dp = 4096;
    std::int64_t rounds = 17280;
    double seconds = 180;
    std::size_t batch = 3300;
    bool reopen = false;
    bool model_mesh = true;
};

Args parse(int argc, char** argv) {
    Args a;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string key = argv[i];
        const char* value = argv[i + 1];
        if (key == "--db")
            a.db = value;
        else if (key == "--ranks-dp")
            a.dp = std::atoll(value);
        else if (key == "--rounds")
            a.rounds = std::atoll(value);
        else if (key == "--seconds")
            a.seconds = std::atof(value);
        else if (key == "--batch")
            a.batch = static_cast<std::size_t>(std::atoll(value));
        else if (key == "--reopen")
            a.reopen = std::string(value) != "0";
        else if (key == "--model-mesh")
            a.model_mesh = std::string(value) != "0";
        else {
            std::fprintf(stderr, "bench_history: unknown option %s\n", key.c_str());
            std::exit(2);
        }
    }
    return a;
}
}  // namespace

int restart(const std::string& path);

int main(int argc, char** argv) {
    const Args args = parse(argc, argv);
    if (args.reopen) return restart(args.db);
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(args.db + suffix);
    const auto topology = Topology::make(args.dp, 4, 32).value();
    const auto plan = Plan::make(topology, 8).value();
    const std::int64_t world = topology.world();
    std::printf("bench_history: %lld ranks (dp %lld, cp 4, ep 32), commits of %zu, synchronous=FULL, %s\n",
                static_cast<long long>(world), static_cast<long long>(args.dp), args.batch, args.db.c_str());

    auto opened = server::EventStore::open(args.db, server::Durability::full);
    if (!opened) {
        std::fprintf(stderr, "bench_history: %s\n", opened.error().message().c_str());
        return 1;
    }
    auto store = std::move(opened).value();
    print_sizes("empty", args.db);

    // Lifecycle: every rank's events, in commits of about --batch events. Receive times are the
    // collector's clock when the commit is made (the day is compressed; the sender ts says 5 s apart).
    const double day_start = server::Collector::now();
    std::vector<StoredEvent> commit;
    std::int64_t lifecycle_events = 0;
    std::int64_t folds = 0;
    auto flush = [&] {
        if (commit.empty()) return;
        if (auto error = store->append(commit)) {
            std::fprintf(stderr, "bench_history: %s\n", error->message().c_str());
            std::exit(1);
        }
        commit.clear();
        // What the store writer does after a commit's answers (server/store/store_writer.cpp).
        if (store->logged_heartbeats() >= server::heartbeat_fold_rows) {
            if (auto error = store->fold_heartbeats()) {
                std::fprintf(stderr, "bench_history: %s\n", error->message().c_str());
                std::exit(1);
            }
            ++folds;
        }
    };
    for (std::int64_t r = 0; r < world; ++r) {
        for (const Event& e : lifecycle(plan, topology, r, day_start, args.model_mesh))
            commit.push_back(server::stored_event(e, server::Collector::now()));  // with its identity, as stored
        lifecycle_events += 9;
        if (commit.size() >= args.batch) flush();
    }
    flush();
    std::printf("lifecycle: %lld events\n", static_cast<long long>(lifecycle_events));
    print_sizes("after lifecycle", args.db);
    const Sizes after_lifecycle = sizes(args.db);

    // Heartbeat rounds. The JSON is made outside the timed part (the collector makes it on the network
    // thread); the timed part is append and the log's fold when due, what the writer thread does per commit.
    const auto started = std::chrono::steady_clock::now();
    double cpu = 0, wall = 0, max_commit = 0;
    std::int64_t heartbeats = 0, commits = 0, rounds = 0;
    std::uintmax_t max_wal = 0;
    Sizes after_round_1;
    for (; rounds < args.rounds; ++rounds) {
        const double at = day_start + 60 + static_cast<double>(rounds) * 5.0;
        for (std::int64_t r = 0; r < world; ++r) {
            const Event e = base_event(r, world, Phase::heartbeat, Status::done, at);
            commit.push_back(server::stored_event(e, server::Collector::now()));
            if (commit.size() >= args.batch || r + 1 == world) {
                const double cpu0 = thread_cpu_seconds();
                const auto wall0 = std::chrono::steady_clock::now();
                flush();
                const double w = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
                cpu += thread_cpu_seconds() - cpu0;
                wall += w;
                max_commit = std::max(max_commit, w);
                ++commits;
                max_wal = std::max(max_wal, sizes(args.db).wal);
            }
        }
        heartbeats += world;
        if (rounds == 0) after_round_1 = sizes(args.db);
        const auto n = rounds + 1;
        if (n <= 3 || n % 20 == 0) {
            const std::string stage = "after heartbeat round " + std::to_string(n);
            print_sizes(stage.c_str(), args.db);
        }
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() > args.seconds) {
            ++rounds;
            break;
        }
    }
    const Sizes after_rounds = sizes(args.db);
    std::printf("after %lld rounds", static_cast<long long>(rounds));
    print_sizes("", args.db);
    std::printf(
        "heartbeats: %lld in %lld commits and %lld folds; writer CPU %.2f us per heartbeat (%.1f ms per "
        "commit), wall %.1f ms per commit (max %.1f ms, a fold included); WAL peak %.2f MiB\n",
        static_cast<long long>(heartbeats), static_cast<long long>(commits), static_cast<long long>(folds),
        cpu / static_cast<double>(heartbeats) * 1e6, cpu / static_cast<double>(commits) * 1e3,
        wall / static_cast<double>(commits) * 1e3, max_commit * 1e3, mib(max_wal));
    std::printf("growth: lifecycle %.2f MiB; heartbeat round 1 %.2f MiB; rounds 2..%lld %.2f MiB (db + wal)\n",
                mib(after_lifecycle.db + after_lifecycle.wal),
                mib(after_round_1.db + after_round_1.wal) - mib(after_lifecycle.db + after_lifecycle.wal),
                static_cast<long long>(rounds),
                mib(after_rounds.db + after_rounds.wal) - mib(after_round_1.db + after_round_1.wal));
    const double day_cpu = cpu / static_cast<double>(heartbeats) * static_cast<double>(world) * 17280.0;
    std::printf("a day (17,280 rounds, %.0f M heartbeats) at this rate: %.0f s of writer CPU (%.2f%% of a core)\n",
                static_cast<double>(world) * 17280.0 / 1e6, day_cpu, day_cpu / 86400.0 * 100.0);
    store.reset();
    print_sizes("closed", args.db);

    return restart(args.db);
}

// Restart: Collector::open replays the events, then one heartbeat summary per rank, then ticks.
int restart(const std::string& path) {
    print_sizes("before restart", path);
    server::CollectorOptions options;
    options.database = path;
    const double cpu0 = process_cpu_seconds();  // the rebuild parses on several threads
    const auto open_start = std::chrono::steady_clock::now();
    auto collector = server::Collector::open(options);
    const double open_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - open_start).count();
    const double open_cpu = process_cpu_seconds() - cpu0;
    if (!collector) {
        std::fprintf(stderr, "bench_history: %s\n", collector.error().message().c_str());
        return 1;
    }
    const auto job = (*collector)->call([](const Monitor& m) { return m.job("bench-history"); });
    std::printf(
        "restart: Collector::open %.3f s (%.3f s CPU, all threads); %lld events rebuilt; %lld ranks seen, %lld ready\n",
        open_seconds, open_cpu, static_cast<long long>((*collector)->stats().events_rebuilt),
        static_cast<long long>(job ? job->ranks_seen : 0), static_cast<long long>(job ? job->ranks_ready : 0));
    if (job) {
        std::printf("states:");
        for (std::size_t i = 0; i < rank_state_kind_count; ++i)
            std::printf(" %s %lld", std::string(to_string(static_cast<RankStateKind>(i))).c_str(),
                        static_cast<long long>(job->states[i]));
        std::printf("; findings %lld\n", static_cast<long long>(job->findings));
    }
    return 0;
}
