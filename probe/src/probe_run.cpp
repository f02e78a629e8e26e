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

namespace {
// One rank's run, step by step: the rendezvous, the layout announced, then every group in creation order.
class ProbeRun {
public:
    ProbeRun(const Plan& plan, const RunSettings& s, KeyValue& store, Backend& backend, const EventSink& send,
             std::ostream& out)
        : plan_(plan), s_(s), store_(store), backend_(backend), events_(s, send), out_(out) {}

    int run() {
        events_.send(events_.base("launch", "started"));
        if (const int failed = rendezvous(); failed != exit_ok) return failed;
        const auto schedule = rank_schedule(plan_, s_.rank);
        announce_layout(schedule);

        // Every group in creation order.
        events_.send(events_.base("communicator", "started"));
        if (!s_.dump_dir.empty()) dump_.open(s_.dump_dir + "/rank" + std::to_string(s_.rank) + ".jsonl", std::ios::app);
        int status = exit_ok;
        for (std::size_t k = 0; k < schedule.size(); ++k) {
            const GroupSpec& g = schedule[k];
            const bool last_of_dim = k + 1 == schedule.size() || schedule[k + 1].dim != g.dim;
            if (g.dim == s_.absent_dim) {
                out_ << "rank " << s_.rank << ": skipping the " << group_text(g) << " (--inject-absent)\n";
                continue;
            }
            const int group_status = probe_group(g, last_of_dim);
            if (group_status == exit_wrong_result)
                status = group_status;
            else if (group_status != exit_ok)
                return group_status;
        }
        if (status == exit_ok) events_.send(events_.base("communicator", "done"));
        events_.exit(status == exit_ok);
        return status;
    }

private:
    // Every rank's plan, compared before any group exists: exit_ok when they all agree.
    int rendezvous() {
        events_.send(events_.base("process_group", "started"));
        PlanVerdict verdict;
        try {
            verdict = exchange_plans(store_, plan_, s_.rank, s_.world, s_.timeout);
        } catch (const std::exception& e) {
            out_ << "rank " << s_.rank << ": " << e.what() << "\n";
            events_.failed("process_group", "RendezvousError", e.what());
            events_.exit(false);
            return exit_mismatch;
        }
        if (!verdict.agreed()) {
            const std::string message = verdict.message(s_.timeout);
            out_ << "rank " << s_.rank << ": " << message << "\n";
            events_.failed("process_group", "PlanMismatch", message);
            // Name the first group of this rank that cannot form: its members' own plans put them elsewhere.
            if (const auto u = first_unformable_group(verdict, s_.rank)) {
                const std::string why = ranks_text(u->missing) + " would create another group at creation index " +
                                        std::to_string(u->group.creation) + " (its plan differs)";
                out_ << "rank " << s_.rank << ": the " << group_text(u->group) << " communicator cannot form: " << why
                     << "\n";
                json e = events_.base("communicator", "failed");
                e["error"] = {{"type", "PlanMismatch"}, {"message", message}};
                e["communicators"] = json::array({not_formed_entry(u->group, u->missing, why)});
                events_.send(std::move(e));
            }
            events_.exit(false);
            return exit_mismatch;
        }
        events_.send(events_.base("process_group", "done"));
        return exit_ok;
    }

    // What the rank builds: the meshes, its topology and its groups (the monitor checks them as usual).
    void announce_layout(const std::vector<GroupSpec>& schedule) {
        for (const PlanMesh& pm : plan_.meshes()) {
            json e = events_.base("device_mesh", "done");
            e["mesh"] = {{"name", pm.name}, {"dim_names", pm.mesh.dim_names()}, {"shape", pm.mesh.shape()}};
            events_.send(std::move(e));
        }
        json state = events_.base("parallel_state", "done");
        state["topology"] = {{"dp", plan_.topology().dp}, {"cp", plan_.topology().cp}, {"ep", plan_.topology().ep}};
        for (const GroupSpec& g : schedule) state["groups"][g.dim] = g.members;
        events_.send(std::move(state));
    }

    // One group: its communicator, its turn (--one-group-at-a-time), its measurements, its report. Returns
    // exit_ok, exit_wrong_result (the run goes on), or the status that ends the run.
    int probe_group(const GroupSpec& g, bool last_of_dim) {
        json entry = {{"dim", g.dim}, {"index", g.index}, {"members", g.members}, {"state", "formed"}};
        const auto started = clock::now();
        std::unique_ptr<Communicator> comm;
        try {
            comm = backend_.create(g, s_.timeout);
            if (last_of_dim) backend_.dim_done(g.dim);
        } catch (const NotFormed& e) {
            out_ << "rank " << s_.rank << ": the " << group_text(g) << " communicator did not form: " << e.what()
                 << "\n";
            return group_failed(not_formed_entry(g, e.missing(), e.what()), "CommunicatorTimeout",
                                "the " + group_text(g) + " communicator did not form: " + e.what(), exit_not_formed);
        } catch (const std::exception& e) {
            out_ << "rank " << s_.rank << ": the " << group_text(g) << " communicator failed: " << e.what() << "\n";
            return failed_entry(entry, backend_.name() + "Error", e.what(), e.what());
        }
        entry["create_seconds"] = seconds_since(started);
        entry["results"] = json::array();
        if (s_.one_group_at_a_time && g.creation > 0) {
            const std::string before = "measured." + std::to_string(g.creation - 1);
            if (!store_.wait_get(before, s_.timeout)) {
                const std::string why = "the group created before it did not finish measuring within --timeout (" +
                                        std::to_string(s_.timeout.count() / 1000) + " s)";
                out_ << "rank " << s_.rank << ": the " << group_text(g) << " was not measured: " << why << "\n";
                return failed_entry(entry, "RendezvousError", why, "the " + group_text(g) + ": " + why);
            }
        }
        std::string wrong;
        try {
            wrong = measure(g, *comm, entry);
        } catch (const std::exception& e) {
            out_ << "rank " << s_.rank << ": " << group_text(g) << ": " << e.what() << "\n";
            return failed_entry(entry, backend_.name() + "Error", e.what(), e.what());
        }
        // The group's first member tells the next group that this one is done (--one-group-at-a-time).
        if (s_.one_group_at_a_time && g.position == 0) store_.set("measured." + std::to_string(g.creation), "1");
        json ev = events_.base("communicator", "started");
        int status = exit_ok;
        if (!wrong.empty()) {
            entry["state"] = "wrong_result";
            entry["error"] = wrong;
            ev = events_.base("communicator", "failed");
            ev["error"] = {{"type", "WrongResult"}, {"message", wrong}};
            out_ << "rank " << s_.rank << ": " << wrong << "\n";
            status = exit_wrong_result;
        }
        ev["communicators"] = json::array({entry});
        events_.send(std::move(ev));
        return status;
    }

    // Each collective of the group's dim at every size: checked against the exact result, timed, reported on
    // `out` and added to entry["results"]. Returns the first wrong result's text, "" when every one was right.
    std::string measure(const GroupSpec& g, Communicator& comm, json& entry) {
        const auto n = static_cast<std::int64_t>(g.members.size());
        std::string wrong;
        for (const Collective c : n > 1 ? collectives_of(g.dim) : std::span<const Collective>{}) {
            for (const std::int64_t bytes : s_.sizes) {
                const Shape shape = shape_of(c, bytes, g.members.size());
                comm.load(c, input_of(g.members[g.position], shape.input), shape.output);
                for (int w = 0; w < std::max(s_.warmup, 1); ++w) comm.launch();
                comm.wait();
                const auto expected = expected_output(c, g.members, g.position, shape);
                const auto got = comm.output();
                if (dump_.is_open()) {
                    dump_ << json{{"dim", g.dim},
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
                const double seconds = median_call_seconds(comm, s_.iters);
                const auto input_bytes = static_cast<std::int64_t>(shape.input * sizeof(float));
                const Bandwidth bw = bandwidth(c, input_bytes, n, seconds);
                entry["results"].push_back({{"collective", to_string(c)},
                                            {"bytes", input_bytes},
                                            {"seconds", seconds},
                                            {"algbw", bw.algbw},
                                            {"busbw", bw.busbw}});
                out_ << "rank " << s_.rank << " " << group_text(g) << " " << to_string(c) << " "
                     << size_text(input_bytes) << ": " << number("%.3f", seconds * 1e3) << " ms, algbw "
                     << number("%.3f", bw.algbw) << " GB/s, busbw " << number("%.3f", bw.busbw) << " GB/s"
                     << (wrong.empty() ? "" : " WRONG") << "\n";
            }
        }
        return wrong;
    }

    // The group's entry marked failed with `why`, reported with the error (type, message); the run ends.
    int failed_entry(json entry, const std::string& type, const std::string& why, const std::string& message) {
        entry["state"] = "failed";
        entry["error"] = why;
        return group_failed(std::move(entry), type, message, exit_failed);
    }

    // A communicator failed event carrying `entry` and the error; the rank's exit; `status` returned.
    int group_failed(json entry, const std::string& type, const std::string& message, int status) {
        json ev = events_.base("communicator", "failed");
        ev["error"] = {{"type", type}, {"message", message}};
        ev["communicators"] = json::array({std::move(entry)});
        events_.send(std::move(ev));
        events_.exit(false);
        return status;
    }

    const Plan& plan_;
    const RunSettings& s_;
    KeyValue& store_;
    Backend& backend_;
    const Events events_;
    std::ostream& out_;
    std::ofstream dump_;
};
}  // namespace

int run_probe(const Plan& plan, const RunSettings& s, KeyValue& store, Backend& backend, const EventSink& send,
              std::ostream& out) {
    return ProbeRun(plan, s, store, backend, send, out).run();
}

}  // namespace meshscope::probe
