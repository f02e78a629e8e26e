#include "probe_run.h"

#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <ostream>
#include <vector>

#include "bandwidth.h"
#include "group_schedule.h"
#include "pattern.h"
#include "plan_exchange.h"

namespace meshscope::probe {

namespace {
using nlohmann::json;
using clock = std::chrono::steady_clock;

double wall_now() {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

double seconds_since(clock::time_point start) {
    return std::chrono::duration<double>(clock::now() - start).count();
}

// Each call timed on its own (launched and waited for), and the median taken: a rank that the scheduler set
// aside for a while slows one call, not the figure, so a slow group is a slow link and not a busy machine.
// nccl-tests reports the mean of back-to-back launches instead; docs/probe.md says why we differ.
double median_call_seconds(Communicator& comm, int iters) {
    std::vector<double> calls;
    calls.reserve(static_cast<std::size_t>(std::max(iters, 1)));
    for (int i = 0; i < std::max(iters, 1); ++i) {
        const auto t0 = clock::now();
        comm.launch();
        comm.wait();
        calls.push_back(seconds_since(t0));
    }
    const auto middle = calls.begin() + static_cast<std::ptrdiff_t>(calls.size() / 2);
    std::nth_element(calls.begin(), middle, calls.end());
    return *middle;
}

std::string members_text(const std::vector<std::int64_t>& members) {
    std::string out = "[";
    for (std::size_t i = 0; i < members.size(); ++i) out += (i ? ", " : "") + std::to_string(members[i]);
    return out + "]";
}

std::string group_text(const GroupSpec& g) {
    return g.dim + " group " + std::to_string(g.index) + " " + members_text(g.members);
}

std::string number(const char* format, double value) {
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, format, value);
    return buffer;
}

class Events {
public:
    Events(const RunSettings& s, const EventSink& send) : s_(s), send_(send) {}
    json base(const char* phase, const char* status) const {
        json e = {{"job", s_.job},    {"rank", s_.rank},  {"world_size", s_.world}, {"phase", phase},
                  {"status", status}, {"ts", wall_now()}, {"pid", getpid()},        {"local_rank", s_.local_rank}};
        if (!s_.host.empty()) e["host"] = s_.host;
        return e;
    }
    void send(json e) const {
        if (send_) send_(std::move(e));
    }
    void failed(const char* phase, const std::string& type, const std::string& message) const {
        json e = base(phase, "failed");
        e["error"] = {{"type", type}, {"message", message}};
        send(std::move(e));
    }
    void exit(bool ok) const { send(base("exit", ok ? "done" : "failed")); }

private:
    const RunSettings& s_;
    const EventSink& send_;
};

json not_formed_entry(const GroupSpec& g, const std::vector<std::int64_t>& missing, const std::string& error) {
    json entry = {
        {"dim", g.dim}, {"index", g.index}, {"members", g.members}, {"state", "not_formed"}, {"error", error}};
    if (!missing.empty()) entry["missing"] = missing;
    return entry;
}
}  // namespace

std::string size_text(std::int64_t bytes) {
    static constexpr const char* units[] = {"B", "KiB", "MiB", "GiB"};
    std::size_t unit = 0;
    while (bytes >= 1024 && bytes % 1024 == 0 && unit + 1 < std::size(units)) {
        bytes /= 1024;
        ++unit;
    }
    return std::to_string(bytes) + " " + units[unit];
}

int run_probe(const Plan& plan, const RunSettings& s, KeyValue& store, Backend& backend, const EventSink& send,
              std::ostream& out) {
    const Events events(s, send);
    events.send(events.base("launch", "started"));

    // 1. Rendezvous: every rank's plan, compared before any group exists.
    events.send(events.base("process_group", "started"));
    PlanVerdict verdict;
    try {
        verdict = exchange_plans(store, plan, s.rank, s.world, s.timeout);
    } catch (const std::exception& e) {
        out << "rank " << s.rank << ": " << e.what() << "\n";
        events.failed("process_group", "RendezvousError", e.what());
        events.exit(false);
        return exit_mismatch;
    }
    if (!verdict.agreed()) {
        const std::string message = verdict.message(s.timeout);
        out << "rank " << s.rank << ": " << message << "\n";
        events.failed("process_group", "PlanMismatch", message);
        // Name the first group of this rank that cannot form: its members' own plans put them elsewhere.
        if (const auto u = first_unformable_group(verdict, s.rank)) {
            const std::string why = ranks_text(u->missing) + " would create another group at creation index " +
                                    std::to_string(u->group.creation) + " (its plan differs)";
            out << "rank " << s.rank << ": the " << group_text(u->group) << " communicator cannot form: " << why
                << "\n";
            json e = events.base("communicator", "failed");
            e["error"] = {{"type", "PlanMismatch"}, {"message", message}};
            e["communicators"] = json::array({not_formed_entry(u->group, u->missing, why)});
            events.send(std::move(e));
        }
        events.exit(false);
        return exit_mismatch;
    }
    events.send(events.base("process_group", "done"));

    // 2. What the rank builds: the meshes, its topology and its groups (the monitor checks them as usual).
    const auto schedule = rank_schedule(plan, s.rank);
    for (const PlanMesh& pm : plan.meshes()) {
        json e = events.base("device_mesh", "done");
        e["mesh"] = {{"name", pm.name}, {"dim_names", pm.mesh.dim_names()}, {"shape", pm.mesh.shape()}};
        events.send(std::move(e));
    }
    json state = events.base("parallel_state", "done");
    state["topology"] = {{"dp", plan.topology().dp}, {"cp", plan.topology().cp}, {"ep", plan.topology().ep}};
    for (const GroupSpec& g : schedule) state["groups"][g.dim] = g.members;
    events.send(std::move(state));

    // 3. Every group in creation order.
    events.send(events.base("communicator", "started"));
    int status = exit_ok;
    std::ofstream dump;
    if (!s.dump_dir.empty()) dump.open(s.dump_dir + "/rank" + std::to_string(s.rank) + ".jsonl", std::ios::app);
    for (std::size_t k = 0; k < schedule.size(); ++k) {
        const GroupSpec& g = schedule[k];
        const bool last_of_dim = k + 1 == schedule.size() || schedule[k + 1].dim != g.dim;
        if (g.dim == s.absent_dim) {
            out << "rank " << s.rank << ": skipping the " << group_text(g) << " (--inject-absent)\n";
            continue;
        }
        json entry = {{"dim", g.dim}, {"index", g.index}, {"members", g.members}, {"state", "formed"}};
        const auto started = clock::now();
        std::unique_ptr<Communicator> comm;
        try {
            comm = backend.create(g, s.timeout);
            if (last_of_dim) backend.dim_done(g.dim);
        } catch (const NotFormed& e) {
            out << "rank " << s.rank << ": the " << group_text(g) << " communicator did not form: " << e.what() << "\n";
            json ev = events.base("communicator", "failed");
            ev["error"] = {{"type", "CommunicatorTimeout"},
                           {"message", "the " + group_text(g) + " communicator did not form: " + e.what()}};
            ev["communicators"] = json::array({not_formed_entry(g, e.missing(), e.what())});
            events.send(std::move(ev));
            events.exit(false);
            return exit_not_formed;
        } catch (const std::exception& e) {
            out << "rank " << s.rank << ": the " << group_text(g) << " communicator failed: " << e.what() << "\n";
            json ev = events.base("communicator", "failed");
            ev["error"] = {{"type", backend.name() + "Error"}, {"message", e.what()}};
            entry["state"] = "failed";
            entry["error"] = e.what();
            ev["communicators"] = json::array({entry});
            events.send(std::move(ev));
            events.exit(false);
            return exit_failed;
        }
        entry["create_seconds"] = seconds_since(started);
        entry["results"] = json::array();
        if (s.one_group_at_a_time && g.creation > 0) {
            const std::string before = "measured." + std::to_string(g.creation - 1);
            if (!store.wait_get(before, s.timeout)) {
                const std::string why = "the group created before it did not finish measuring within --timeout (" +
                                        std::to_string(s.timeout.count() / 1000) + " s)";
                out << "rank " << s.rank << ": the " << group_text(g) << " was not measured: " << why << "\n";
                entry["state"] = "failed";
                entry["error"] = why;
                json ev = events.base("communicator", "failed");
                ev["error"] = {{"type", "RendezvousError"}, {"message", "the " + group_text(g) + ": " + why}};
                ev["communicators"] = json::array({entry});
                events.send(std::move(ev));
                events.exit(false);
                return exit_failed;
            }
        }
        const auto n = static_cast<std::int64_t>(g.members.size());
        std::string wrong;
        try {
            for (const Collective c : n > 1 ? collectives_of(g.dim) : std::span<const Collective>{}) {
                for (const std::int64_t bytes : s.sizes) {
                    const Shape shape = shape_of(c, bytes, g.members.size());
                    comm->load(c, input_of(g.members[g.position], shape.input), shape.output);
                    for (int w = 0; w < std::max(s.warmup, 1); ++w) comm->launch();
                    comm->wait();
                    const auto expected = expected_output(c, g.members, g.position, shape);
                    const auto got = comm->output();
                    if (dump.is_open()) {
                        dump << json{{"dim", g.dim},
                                     {"creation", g.creation},
                                     {"members", g.members},
                                     {"position", g.position},
                                     {"collective", to_string(c)},
                                     {"bytes", static_cast<std::int64_t>(shape.input * sizeof(float))},
                                     {"input", input_of(g.members[g.position], shape.input)},
                                     {"output", got}}
                                    .dump()
                             << "\n";
                    }
                    if (const auto at = first_difference(got, expected); at && wrong.empty()) {
                        wrong = "the " + group_text(g) + " gave a wrong " + std::string(to_string(c)) + " result at " +
                                size_text(bytes) + ": element " + std::to_string(*at) + " is " +
                                (*at < got.size() ? number("%g", got[*at]) : std::string("missing")) + ", expected " +
                                number("%g", expected[*at]);
                    }
                    const double seconds = median_call_seconds(*comm, s.iters);
                    const auto input_bytes = static_cast<std::int64_t>(shape.input * sizeof(float));
                    const Bandwidth bw = bandwidth(c, input_bytes, n, seconds);
                    entry["results"].push_back({{"collective", to_string(c)},
                                                {"bytes", input_bytes},
                                                {"seconds", seconds},
                                                {"algbw", bw.algbw},
                                                {"busbw", bw.busbw}});
                    out << "rank " << s.rank << " " << group_text(g) << " " << to_string(c) << " "
                        << size_text(input_bytes) << ": " << number("%.3f", seconds * 1e3) << " ms, algbw "
                        << number("%.3f", bw.algbw) << " GB/s, busbw " << number("%.3f", bw.busbw) << " GB/s"
                        << (wrong.empty() ? "" : " WRONG") << "\n";
                }
            }
        } catch (const std::exception& e) {
            out << "rank " << s.rank << ": " << group_text(g) << ": " << e.what() << "\n";
            entry["state"] = "failed";
            entry["error"] = e.what();
            json ev = events.base("communicator", "failed");
            ev["error"] = {{"type", backend.name() + "Error"}, {"message", e.what()}};
            ev["communicators"] = json::array({entry});
            events.send(std::move(ev));
            events.exit(false);
            return exit_failed;
        }
        // The group's first member tells the next group that this one is done (--one-group-at-a-time).
        if (s.one_group_at_a_time && g.position == 0) store.set("measured." + std::to_string(g.creation), "1");
        json ev = events.base("communicator", "started");
        if (!wrong.empty()) {
            entry["state"] = "wrong_result";
            entry["error"] = wrong;
            ev = events.base("communicator", "failed");
            ev["error"] = {{"type", "WrongResult"}, {"message", wrong}};
            out << "rank " << s.rank << ": " << wrong << "\n";
            status = exit_wrong_result;
        }
        ev["communicators"] = json::array({entry});
        events.send(std::move(ev));
    }
    if (status == exit_ok) events.send(events.base("communicator", "done"));
    events.exit(status == exit_ok);
    return status;
}

}  // namespace meshscope::probe
