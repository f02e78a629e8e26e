// The storm's parent: turns the scenario into one plan per rank, forks the workers (each runs its share
// of the ranks on one event loop), runs the dashboards, gathers every rank's record through a pipe and
// summarizes. Workers start on a "go" written by the parent once the dashboards are connected, so the
// dashboards see every change; the go carries the run clock's origin (steady clock, shared by all).
#include "storm.h"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include "descriptor_limit.h"
#include "storm_dashboards.h"
#include "storm_worker.h"

namespace meshscope::sim {

namespace {
using storm::Clock;
using storm::RankPlan;
using storm::RankRecord;
constexpr std::int64_t descriptor_reserve = 64;

std::vector<RankPlan> make_plans(const Scenario& scenario, const StormOptions& options) {
    std::vector<RankPlan> plans(static_cast<std::size_t>(scenario.world_size));
    std::mt19937_64 rng(options.seed);
    std::uniform_real_distribution<double> start(0.0, std::max(options.start_window, 0.0));
    const double speed = options.speed > 0 ? options.speed : 1.0;
    for (std::int64_t r = 0; r < scenario.world_size; ++r) {
        RankPlan& p = plans[static_cast<std::size_t>(r)];
        p.rank = r;
        p.target = static_cast<std::size_t>(r) % options.targets.size();
        p.start = options.start_window > 0 ? start(rng) : 0.0;
        p.host = "node" + std::to_string(r / std::max<std::int64_t>(scenario.gpus_per_node, 1));
    }
    for (const ScheduledEvent& e : scenario.events) {
        RankPlan& p = plans[static_cast<std::size_t>(e.rank)];
        const bool ready = e.event.phase == Phase::ready && e.event.status == Status::done;
        p.items.push_back({p.start + e.at / speed,
                           to_json(e.event).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), ready,
                           e.event.phase == Phase::heartbeat});
        if (p.items.size() == 1) p.host = e.event.host.value_or(p.host);
    }
    for (const std::int64_t r : scenario.heartbeating) plans[static_cast<std::size_t>(r)].heartbeats = true;
    return plans;
}

bool write_all(int fd, const void* data, std::size_t size) {
    const char* p = static_cast<const char*>(data);
    while (size > 0) {
        const ssize_t n = ::write(fd, p, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

bool read_all(int fd, void* data, std::size_t size) {
    char* p = static_cast<char*>(data);
    while (size > 0) {
        const ssize_t n = ::read(fd, p, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

struct WorkerProcess {
    pid_t pid = -1;
    int go = -1;       // parent writes the origin here
    int results = -1;  // parent reads the records here
    std::string received;
    bool done = false;
};

// The child's whole life: wait for the go, run the ranks, send the records, leave without running the
// parent's destructors or atexit handlers.
[[noreturn]] void worker_main(std::span<const RankPlan> plans, storm::WorkerSettings settings, int go, int results,
                              const std::atomic<bool>& stop) {
    Clock::rep origin = 0;
    if (!read_all(go, &origin, sizeof origin)) ::_exit(3);
    ::close(go);
    settings.origin = Clock::time_point(Clock::duration(origin));
    net::raise_descriptor_limit();
    const std::vector<RankRecord> records = storm::run_worker(plans, settings, stop);
    const std::uint64_t count = records.size();
    const bool sent = write_all(results, &count, sizeof count) &&
                      write_all(results, records.data(), records.size() * sizeof(RankRecord));
    ::close(results);
    ::_exit(sent ? 0 : 4);
}

double percentile(std::vector<double> values, double p) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const auto at = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(values.size())));
    return values[std::min(values.size() - 1, at > 0 ? at - 1 : 0)];
}

// Rounded to `unit` (0.1, 0.001): divided by the scale, not multiplied by the unit, so that 6.8 prints as 6.8.
double rounded(double v, double unit) {
    const double scale = std::round(1.0 / unit);
    return std::round(v * scale) / scale;
}

// One rank's record as a JSON line (run clock seconds; null: never happened).
nlohmann::json record_json(const RankRecord& r, const RankPlan& plan) {
    auto at = [](double t) { return t >= 0 ? nlohmann::json(rounded(t, 0.001)) : nlohmann::json(nullptr); };
    nlohmann::json acks = nlohmann::json::array();
    for (std::size_t i = 0; i < plan.items.size() && i < storm::max_recorded_acks; ++i)
        acks.push_back(r.acks[i] > 0 ? nlohmann::json(rounded(r.acks[i], 0.001)) : nlohmann::json(nullptr));
    return {{"rank", r.rank},
            {"start_s", rounded(plan.start, 0.001)},
            {"first_connect_s", at(r.first_connect)},
            {"ready_due_s", at(r.ready_due)},
            {"ready_sent_s", at(r.ready_sent)},
            {"ready_ack_s", at(r.ready_ack)},
            {"acks_s", std::move(acks)},
            {"requests", r.requests},
            {"acknowledged", r.acknowledged},
            {"rejected", r.rejected},
            {"refusals", r.refusals},
            {"timeouts", r.timeouts},
            {"failures", r.failures},
            {"retries", r.retries},
            {"reconnects", r.reconnects},
            {"heartbeats",
             {{"sent", r.heartbeats_sent},
              {"acked", r.heartbeats_acked},
              {"refused", r.heartbeats_refused},
              {"failed", r.heartbeats_failed}}},
            {"last_error", std::string(r.last_error.data())}};
}

nlohmann::json spread(const std::vector<double>& values, double unit) {
    if (values.empty()) return nullptr;
    return {{"p50", rounded(percentile(values, 50), unit)},
            {"p99", rounded(percentile(values, 99), unit)},
            {"max", rounded(*std::max_element(values.begin(), values.end()), unit)}};
}
}  // namespace

Expected<std::vector<StormTarget>> parse_targets(std::string_view text) {
    std::vector<StormTarget> targets;
    std::size_t start = 0;
    while (true) {
        const std::size_t end = std::min(text.find(',', start), text.size());
        const std::string url(text.substr(start, end - start));
        auto bad = [&] { return ValueError("--target: '" + url + "' is not an http://HOST:PORT URL"); };
        constexpr std::string_view scheme = "http://";
        if (url.rfind(scheme, 0) != 0) return bad();
        std::string rest = url.substr(scheme.size());
        if (!rest.empty() && rest.back() == '/') rest.pop_back();
        std::string host, port;
        if (!rest.empty() && rest.front() == '[') {
            const std::size_t close = rest.find(']');
            if (close == std::string::npos || close + 1 >= rest.size() || rest[close + 1] != ':') return bad();
            host = rest.substr(1, close - 1);
            port = rest.substr(close + 2);
        } else {
            const std::size_t colon = rest.rfind(':');
            if (colon == std::string::npos) return bad();
            host = rest.substr(0, colon);
            port = rest.substr(colon + 1);
        }
        const bool digits = !port.empty() && port.size() <= 5 &&
                            std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (host.empty() || host.find('/') != std::string::npos || !digits || std::stoi(port) < 1 ||
            std::stoi(port) > 65535)
            return bad();
        targets.push_back({host, port, url});
        if (end >= text.size()) break;
        start = end + 1;
    }
    return targets;
}

std::int64_t max_ranks_per_process() {
    const auto hard = static_cast<std::int64_t>(net::hard_descriptor_limit(16000 + descriptor_reserve));
    return std::max<std::int64_t>(hard - descriptor_reserve, 1);
}

namespace {
storm::WorkerSettings worker_settings(const Scenario& scenario, const StormOptions& options) {
    storm::WorkerSettings settings;
    settings.targets = options.targets;
    settings.protocol = options.protocol;
    settings.token = options.token;
    settings.end_when_done = options.duration <= 0;
    settings.end_at = options.duration > 0 ? options.duration : options.max_run;
    settings.request_timeout = options.request_timeout;
    settings.heartbeat_interval = options.heartbeat_interval;
    settings.first_backoff = options.first_backoff;
    settings.backoff_max = options.backoff_max;
    settings.job = scenario.job;
    settings.world_size = scenario.world_size;
    return settings;
}

// Forks one worker per entry of `workers`, each with its share of the plans, while this process has one thread;
// the workers wait for the go. Returns what stopped the forking ("" when nothing did); the workers forked
// before it are in `workers`.
std::string fork_workers(const std::vector<RankPlan>& plans, const storm::WorkerSettings& settings, std::uint64_t seed,
                         const std::atomic<bool>& stop, std::vector<WorkerProcess>& workers) {
    const std::size_t n = plans.size();
    const std::size_t processes = workers.size();
    for (std::size_t k = 0; k < processes; ++k) {
        const std::size_t from = n * k / processes;
        const std::size_t to = n * (k + 1) / processes;
        int go[2], results[2];
        if (::pipe(go) != 0) return std::string("pipe: ") + std::strerror(errno);
        if (::pipe(results) != 0) {
            ::close(go[0]);
            ::close(go[1]);
            return std::string("pipe: ") + std::strerror(errno);
        }
        std::fflush(nullptr);
        const pid_t pid = ::fork();
        if (pid == 0) {
            ::close(go[1]);
            ::close(results[0]);
            for (const WorkerProcess& w : workers)
                if (w.pid > 0) {
                    ::close(w.go);
                    ::close(w.results);
                }
            storm::WorkerSettings own = settings;
            own.seed = seed * 1000003 + static_cast<std::uint64_t>(k) + 1;
            worker_main(std::span<const RankPlan>(plans).subspan(from, to - from), own, go[0], results[1], stop);
        }
        ::close(go[0]);
        ::close(results[1]);
        if (pid < 0) {
            ::close(go[1]);
            ::close(results[0]);
            return std::string("fork: ") + std::strerror(errno);
        }
        WorkerProcess& w = workers[k];
        w.pid = pid;
        w.go = go[1];
        w.results = results[0];
    }
    return {};
}

// Gives every forked worker the go (the run clock's origin) when `go`; a worker whose go pipe closes without
// one leaves at once.
void send_go(std::vector<WorkerProcess>& workers, Clock::time_point origin, bool go) {
    const Clock::rep origin_ticks = origin.time_since_epoch().count();
    for (WorkerProcess& w : workers)
        if (w.pid > 0) {
            if (go) write_all(w.go, &origin_ticks, sizeof origin_ticks);
            ::close(w.go);
        }
}

// Reads the workers' records until every pipe is closed; forwards a stop to the workers; kills those left
// past `give_up`.
void gather_records(std::vector<WorkerProcess>& workers, const std::atomic<bool>& stop, Clock::time_point give_up) {
    bool stop_forwarded = false, killed = false;
    while (true) {
        std::vector<pollfd> fds;
        std::vector<WorkerProcess*> owners;
        for (WorkerProcess& w : workers)
            if (w.pid > 0 && !w.done) {
                fds.push_back({w.results, POLLIN, 0});
                owners.push_back(&w);
            }
        if (fds.empty()) break;
        const int ready = ::poll(fds.data(), fds.size(), 100);
        if (ready < 0 && errno != EINTR) break;
        for (std::size_t i = 0; ready > 0 && i < fds.size(); ++i) {
            if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            char chunk[65536];
            const ssize_t got = ::read(fds[i].fd, chunk, sizeof chunk);
            if (got > 0)
                owners[i]->received.append(chunk, static_cast<std::size_t>(got));
            else if (got == 0 || errno != EINTR)
                owners[i]->done = true;
        }
        if (stop.load() && !stop_forwarded) {
            for (WorkerProcess& w : workers)
                if (w.pid > 0 && !w.done) ::kill(w.pid, SIGTERM);
            stop_forwarded = true;
        }
        if (!killed && Clock::now() > give_up) {
            for (WorkerProcess& w : workers)
                if (w.pid > 0 && !w.done) ::kill(w.pid, SIGKILL);
            killed = true;
        }
    }
}

// Reaps the workers and unpacks the records they sent; `worker_problem` names the first that sent no report.
std::vector<RankRecord> unpack_records(std::vector<WorkerProcess>& workers, std::size_t ranks,
                                       std::string& worker_problem) {
    std::vector<RankRecord> records;
    records.reserve(ranks);
    for (std::size_t k = 0; k < workers.size(); ++k) {
        WorkerProcess& w = workers[k];
        if (w.pid <= 0) continue;
        ::close(w.results);
        int status = 0;
        while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
        }
        std::uint64_t count = 0;
        if (w.received.size() >= sizeof count) std::memcpy(&count, w.received.data(), sizeof count);
        if (w.received.size() != sizeof count + count * sizeof(RankRecord) || count == 0) {
            if (worker_problem.empty())
                worker_problem = "worker " + std::to_string(k) + " (pid " + std::to_string(w.pid) +
                                 ") ended without a report (" +
                                 (WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                                      : "exit status " + std::to_string(WEXITSTATUS(status))) +
                                 ")";
            continue;
        }
        const std::size_t first = records.size();
        records.resize(first + count);
        std::memcpy(static_cast<void*>(records.data() + first), w.received.data() + sizeof count,
                    count * sizeof(RankRecord));
    }
    return records;
}

// The ranks' records added up.
struct Tally {
    std::uint64_t requests = 0, acknowledged = 0, rejected = 0, refusals = 0, timeouts = 0, failures = 0, retries = 0,
                  reconnects = 0, hb_sent = 0, hb_acked = 0, hb_refused = 0, hb_failed = 0, events = 0,
                  lifecycle_acked = 0, lifecycle_scripted = 0, exits_acked = 0;
    std::int64_t expected = 0, acked_ready = 0;
    double first_connect = std::numeric_limits<double>::max(), last_ready = -1;
    std::vector<double> latencies;
    std::vector<double> ready_ack, ready_sent;  // per rank, run clock seconds; -1: never
    std::vector<std::int64_t> never_ready;      // sorted
    std::string last_error;
};

Tally tally_records(const std::vector<RankRecord>& records, const std::vector<RankPlan>& plans,
                    std::int64_t world_size) {
    Tally t;
    t.ready_ack.assign(static_cast<std::size_t>(world_size), -1.0);
    t.ready_sent.assign(static_cast<std::size_t>(world_size), -1.0);
    std::set<std::int64_t> reported;
    for (const RankRecord& r : records) {
        reported.insert(r.rank);
        t.requests += r.requests;
        t.acknowledged += r.acknowledged;
        t.rejected += r.rejected;
        t.refusals += r.refusals;
        t.timeouts += r.timeouts;
        t.failures += r.failures;
        t.retries += r.retries;
        t.reconnects += r.reconnects;
        t.hb_sent += r.heartbeats_sent;
        t.hb_acked += r.heartbeats_acked;
        t.hb_refused += r.heartbeats_refused;
        t.hb_failed += r.heartbeats_failed;
        t.events += plans[static_cast<std::size_t>(r.rank)].items.size();
        t.lifecycle_acked += r.lifecycle_acked;
        t.exits_acked += r.exit_acked ? 1 : 0;
        for (const storm::ScriptItem& item : plans[static_cast<std::size_t>(r.rank)].items)
            t.lifecycle_scripted += item.heartbeat ? 0 : 1;
        if (r.first_connect >= 0) t.first_connect = std::min(t.first_connect, r.first_connect);
        if (!r.expects_ready) continue;
        ++t.expected;
        if (r.ready_ack >= 0) {
            ++t.acked_ready;
            t.last_ready = std::max(t.last_ready, r.ready_ack);
            t.latencies.push_back(r.ready_ack - r.ready_due);
            t.ready_ack[static_cast<std::size_t>(r.rank)] = r.ready_ack;
            t.ready_sent[static_cast<std::size_t>(r.rank)] = r.ready_sent;
        } else {
            t.never_ready.push_back(r.rank);
            if (r.last_error[0] != '\0') t.last_error = r.last_error.data();
        }
    }
    // Ranks of a worker that sent nothing: every one that should have said ready never did.
    for (const RankPlan& p : plans)
        if (!reported.count(p.rank) && std::any_of(p.items.begin(), p.items.end(), [](auto& i) { return i.ready; })) {
            ++t.expected;
            t.never_ready.push_back(p.rank);
        }
    std::sort(t.never_ready.begin(), t.never_ready.end());
    return t;
}

// --ranks-out: one JSON line per rank. Returns the problem, "" when written.
std::string write_rank_lines(const std::string& path, const std::vector<RankRecord>& records,
                             const std::vector<RankPlan>& plans) {
    std::ofstream out(path);
    for (const RankRecord& r : records)
        out << record_json(r, plans[static_cast<std::size_t>(r.rank)])
                   .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
            << "\n";
    return out ? std::string() : "--ranks-out: cannot write '" + path + "'";
}

// Each dashboard's view of the acknowledged readies, once the stream had a moment to deliver the last changes
// (it batches them). `shift`: the dashboards' clock (from their connect) ahead of the run clock, in seconds.
nlohmann::json dashboards_json(storm::Dashboards& dashboards, const Tally& t, double shift,
                               const std::atomic<bool>& stop) {
    const auto wait_until = Clock::now() + std::chrono::seconds(3);
    while (dashboards.least_seen() < t.acked_ready && Clock::now() < wait_until && !stop.load())
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    dashboards.stop();
    nlohmann::json out = nlohmann::json::array();
    for (const storm::DashboardReport& d : dashboards.reports()) {
        std::vector<double> delays, from_send;
        std::int64_t missed = 0;
        for (std::size_t r = 0; r < t.ready_ack.size(); ++r) {
            if (t.ready_ack[r] < 0) continue;
            if (d.ready_seen[r] < 0) {
                ++missed;
                continue;
            }
            delays.push_back((d.ready_seen[r] - shift - t.ready_ack[r]) * 1000.0);
            from_send.push_back((d.ready_seen[r] - shift - t.ready_sent[r]) * 1000.0);
        }
        nlohmann::json one = {{"seen", delays.size()},           {"missed", missed},
                              {"messages", d.messages},          {"bytes", d.bytes},
                              {"delay_ms", spread(delays, 0.1)}, {"delay_from_send_ms", spread(from_send, 0.1)}};
        if (!d.error.empty()) one["error"] = d.error;
        out.push_back(std::move(one));
    }
    return out;
}

// The run's figures into the summary (which already holds the scenario's).
void add_run_figures(nlohmann::json& s, const Scenario& scenario, const StormOptions& options, int processes,
                     const Tally& t) {
    s["mode"] = "per_rank";
    s["protocol"] = options.protocol == StormProtocol::otlp ? "otlp" : "meshscope";
    s["ranks"] = scenario.world_size;
    s["processes"] = processes;
    s["targets"] = options.targets.size();
    s["start_window_s"] = options.start_window;
    s["events"] = t.events;
    s["requests"] = t.requests;
    s["acknowledged"] = t.acknowledged;
    s["lifecycle_events_acked"] = t.lifecycle_acked;
    s["lifecycle_events_scripted"] = t.lifecycle_scripted;
    s["exits_acked"] = t.exits_acked;
    s["ready_expected"] = t.expected;
    s["ready_acked"] = t.acked_ready;
    s["ranks_never_ready"] = t.never_ready.size();
    if (!t.never_ready.empty())
        s["never_ready"] = std::vector<std::int64_t>(
            t.never_ready.begin(), t.never_ready.begin() + std::min<std::ptrdiff_t>(20, t.never_ready.size()));
    const bool connected = t.first_connect != std::numeric_limits<double>::max();
    s["first_connect_s"] = connected ? nlohmann::json(rounded(t.first_connect, 0.001)) : nlohmann::json(nullptr);
    s["last_ready_s"] = t.last_ready >= 0 ? nlohmann::json(rounded(t.last_ready, 0.001)) : nlohmann::json(nullptr);
    s["first_connect_to_last_ready_s"] = connected && t.last_ready >= 0
                                             ? nlohmann::json(rounded(t.last_ready - t.first_connect, 0.001))
                                             : nlohmann::json(nullptr);
    s["ready_latency_s"] = spread(t.latencies, 0.001);
    s["rejected"] = t.rejected;
    s["refusals"] = t.refusals;
    s["timeouts"] = t.timeouts;
    s["failures"] = t.failures;
    s["retries"] = t.retries;
    s["reconnects"] = t.reconnects;
    s["heartbeats"] = {{"sent", t.hb_sent}, {"acked", t.hb_acked}, {"refused", t.hb_refused}, {"failed", t.hb_failed}};
}
}  // namespace

StormResult run_storm(const Scenario& scenario, const StormOptions& options, const std::atomic<bool>& stop) {
    StormResult result;
    if (options.targets.empty()) {
        result.problem = "no target";
        return result;
    }
    const std::vector<RankPlan> plans = make_plans(scenario, options);
    const int processes = static_cast<int>(
        std::clamp<std::int64_t>(options.processes, 1, std::max<std::int64_t>(scenario.world_size, 1)));
    const storm::WorkerSettings settings = worker_settings(scenario, options);
    std::vector<WorkerProcess> workers(static_cast<std::size_t>(processes));
    result.problem = fork_workers(plans, settings, options.seed, stop, workers);

    // The dashboards connect before any rank starts, so that they see every change.
    const auto connect_at = Clock::now();
    std::optional<storm::Dashboards> dashboards;
    if (options.dashboards > 0 && result.problem.empty()) {
        const StormTarget& stream =
            options.stream_target.host.empty() ? options.targets.front() : options.stream_target;
        dashboards.emplace(stream, options.token, scenario.job, scenario.world_size, options.dashboards, connect_at);
        dashboards->start(std::chrono::seconds(5));
    }
    const auto origin = Clock::now();  // the dashboards count from connect_at: shifted in the tally
    send_go(workers, origin, result.problem.empty());

    // Never wait past the run's end plus a grace. The grace is long: on loopback a worker's system calls carry
    // the kernel's work for both ends of its connections (a flooded listener's SYN cookies included), so a
    // worker behind a drowning collector can take many seconds to wind down.
    gather_records(workers, stop,
                   origin + std::chrono::duration_cast<Clock::duration>(
                                std::chrono::duration<double>(settings.end_at + 2 * settings.request_timeout + 60)));
    std::string worker_problem;
    const std::vector<RankRecord> records = unpack_records(workers, plans.size(), worker_problem);
    const Tally t = tally_records(records, plans, scenario.world_size);
    if (!options.ranks_out.empty())
        if (std::string problem = write_rank_lines(options.ranks_out, records, plans); !problem.empty())
            result.problem = std::move(problem);

    result.summary = summary_json(scenario);
    nlohmann::json& s = result.summary;
    add_run_figures(s, scenario, options, processes, t);
    if (dashboards)
        s["dashboards"] =
            dashboards_json(*dashboards, t, std::chrono::duration<double>(origin - connect_at).count(), stop);
    // The run clock's origin on CLOCK_MONOTONIC, so that a benchmark can line up its own samples.
    s["clock_origin_s"] = std::chrono::duration<double>(origin.time_since_epoch()).count();
    s["run_s"] = rounded(std::chrono::duration<double>(Clock::now() - origin).count(), 0.001);

    result.all_ready = result.problem.empty() && worker_problem.empty() && t.never_ready.empty();
    if (!result.all_ready && result.problem.empty()) {
        result.problem =
            std::to_string(t.acked_ready) + " of " + std::to_string(t.expected) + " ranks got their ready acknowledged";
        if (!worker_problem.empty()) result.problem += "; " + worker_problem;
        if (!t.last_error.empty()) result.problem += "; last error: " + t.last_error;
    }
    return result;
}

}  // namespace meshscope::sim
