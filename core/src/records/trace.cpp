#include "meshscope/records/trace.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <map>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "records/diagnose_internal.h"

namespace meshscope::records {

namespace {
std::string json_text(const std::string& text) {
    return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Microseconds after t0, to the nanosecond: the format's unit, relative so that a double holds it exactly.
std::string micros(std::int64_t ns, std::int64_t t0) {
    char text[40];
    const std::int64_t d = ns - t0;
    std::snprintf(text, sizeof text, "%s%lld.%03lld", d < 0 ? "-" : "", static_cast<long long>((d < 0 ? -d : d) / 1000),
                  static_cast<long long>((d < 0 ? -d : d) % 1000));
    return text;
}

// A plan's dims in its meshes' order (model, data, expert), for the processes' order in the viewer.
int dim_order(const std::string& mesh, const std::string& dim) {
    static const char* const dims[] = {"mp_replicate", "mp_shard", "dp", "cp", "edp", "efsdp", "ep", "expert_cp"};
    if (mesh == "world") return 0;
    for (int i = 0; i < 8; ++i)
        if (dim == dims[i]) return 1 + i;
    return 100;
}

struct Track {
    int pid = 0;
    std::string mesh, dim, label;
};
}  // namespace

// long: writes the whole Trace Event Format document in one pass (processes, threads, slices, the stragglers), its
// parts sharing the stream and the first-event flag; not yet split into stages
void write_trace(const RecordSet& records, const Diagnosis& d, std::ostream& out) {
    // Every Flight Recorder group's process: one per (mesh, dim), or per group not in the plan.
    std::map<std::string, Track> by_name;  // by Flight Recorder's process group name
    std::map<std::pair<int, std::string>, int> processes;
    std::map<std::string, int> pid_of_label;
    std::vector<std::pair<std::string, std::string>> keys;  // process key -> name
    for (const auto& g : d.groups) {
        if (g.source != "Flight Recorder" || g.record_name.empty()) continue;
        Track t;
        t.label = g.label();
        std::string key, name;
        if (g.place) {
            t.mesh = g.place->mesh;
            t.dim = g.place->dim;
            key = t.mesh + "/" + t.dim;
            name = t.mesh == "world" ? "world" : t.mesh + " mesh, " + t.dim;
        } else {
            t.mesh = "";
            t.dim = g.id;
            key = "/" + g.id;
            name = g.id + (d.topology ? " (not in the plan)" : "");
        }
        const auto [it, added] =
            processes.emplace(std::pair{dim_order(t.mesh, t.dim), key}, static_cast<int>(processes.size()));
        if (added) keys.emplace_back(key, name);
        by_name[g.record_name] = t;
    }
    // pids in the viewer's order: world, then the meshes' dims in plan order, then the rest.
    std::map<std::string, int> pid_of_key;
    std::map<std::string, std::string> name_of_key(keys.begin(), keys.end());
    int pid = 1;
    for (const auto& [order_key, unused] : processes) pid_of_key[order_key.second] = pid++;
    for (auto& [name, t] : by_name) {
        t.pid = pid_of_key.at(t.mesh.empty() ? "/" + t.dim : t.mesh + "/" + t.dim);
        pid_of_label[t.label] = t.pid;
    }

    // Per group and sequence id, the last member's arrival; and the earliest time of all, t0.
    std::unordered_map<std::string, std::unordered_map<std::int64_t, std::int64_t>> last;
    std::int64_t t0 = INT64_MAX;
    std::vector<const FrDump*> dumps;
    for (const auto& dump : records.dumps)
        if (dump.rank >= 0) dumps.push_back(&dump);
    std::stable_sort(dumps.begin(), dumps.end(), [](const FrDump* a, const FrDump* b) { return a->rank < b->rank; });
    for (const FrDump* dump : dumps)
        for (const auto& e : dump->entries) {
            if (e.time_created_ns > 0) t0 = std::min(t0, e.time_created_ns);
            if (e.is_p2p || e.collective_seq_id <= 0) continue;
            auto& at = last[e.pg_name()][e.collective_seq_id];
            at = std::max(at, e.time_created_ns);
        }
    if (t0 == INT64_MAX) t0 = 0;

    out << "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"meshscope diagnose\",\"t0_ns\":" << t0;
    if (d.topology) out << ",\"layout\":" << json_text(d.topology->tuple_string());
    out << "},\"traceEvents\":[";
    bool first = true;
    const auto event = [&](const std::string& body) {
        out << (first ? "\n" : ",\n") << body;
        first = false;
    };
    for (const auto& [key, p] : pid_of_key) {
        event("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + std::to_string(p) +
              ",\"tid\":0,\"args\":{\"name\":" + json_text(name_of_key.at(key)) + "}}");
        event("{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" + std::to_string(p) +
              ",\"tid\":0,\"args\":{\"sort_index\":" + std::to_string(p) + "}}");
    }
    // A thread per rank in each process it has entries in, named before its first slice.
    std::map<std::pair<int, std::int64_t>, bool> named;
    const auto thread = [&](int p, std::int64_t rank) {
        if (!named.emplace(std::pair{p, rank}, true).second) return;
        const std::string ids = "\"pid\":" + std::to_string(p) + ",\"tid\":" + std::to_string(rank);
        event("{\"ph\":\"M\",\"name\":\"thread_name\"," + ids + ",\"args\":{\"name\":\"rank " + std::to_string(rank) +
              "\"}}");
        event("{\"ph\":\"M\",\"name\":\"thread_sort_index\"," + ids +
              ",\"args\":{\"sort_index\":" + std::to_string(rank) + "}}");
    };
    std::map<std::int64_t, std::int64_t> last_entry;  // by rank: when it entered its last collective
    std::string body;
    for (const FrDump* dump : dumps)
        for (const auto& e : dump->entries) {
            if (e.is_p2p || e.collective_seq_id <= 0) continue;
            const auto t = by_name.find(e.pg_name());
            if (t == by_name.end()) continue;
            const Track& track = t->second;
            thread(track.pid, dump->rank);
            auto& latest = last_entry[dump->rank];
            latest = std::max(latest, e.time_created_ns);
            const bool completed = e.time_discovered_completed_ns > 0;
            const std::int64_t end =
                completed ? e.time_discovered_completed_ns : last[e.pg_name()][e.collective_seq_id];
            body = "{\"ph\":\"X\",\"name\":";
            body += json_text(std::string(e.collective()));
            body += ",\"cat\":" + json_text(track.dim);
            body += ",\"pid\":" + std::to_string(track.pid) + ",\"tid\":" + std::to_string(dump->rank);
            body += ",\"ts\":" + micros(e.time_created_ns, t0);
            body += ",\"dur\":" + micros(std::max(end, e.time_created_ns), e.time_created_ns);
            body += ",\"args\":{\"mesh\":" + json_text(track.mesh) + ",\"dim\":" + json_text(track.dim) +
                    ",\"group\":" + json_text(track.label) + ",\"seq\":" + std::to_string(e.collective_seq_id) +
                    ",\"state\":" + json_text(e.state()) + ",\"until\":\"" +
                    (completed ? "completed" : "the last member entered") + "\"}}";
            event(body);
        }
    // The stragglers at the collective each was late into; the ranks a stuck group waits for at their last entry.
    for (const RankLag* r : d.stragglers.late()) {
        const auto p = pid_of_label.find(r->worst.group);
        if (p == pid_of_label.end()) continue;
        thread(p->second, r->rank);
        event("{\"ph\":\"i\",\"s\":\"t\",\"name\":" +
              json_text("straggler: " + detail::ms_text(r->worst.lag_ns) + " late") +
              ",\"cat\":\"straggler\",\"pid\":" + std::to_string(p->second) + ",\"tid\":" + std::to_string(r->rank) +
              ",\"ts\":" + micros(r->worst.time_ns, t0) + ",\"args\":{\"dim\":" + json_text(r->dim) +
              ",\"group\":" + json_text(r->worst.group) + ",\"seq\":" + std::to_string(r->worst.seq) +
              ",\"late_ms\":" + std::to_string(static_cast<double>(r->worst.lag_ns) / 1e6) +
              ",\"typical_ms\":" + std::to_string(static_cast<double>(r->typical_ns) / 1e6) + "}}");
    }
    for (const auto& g : d.groups) {
        if (g.source != "Flight Recorder" || g.record_name.empty()) continue;
        const std::string id =
            "collective_stuck/" + (g.place ? g.place->dim + "/" + std::to_string(g.place->index) : g.id);
        const auto f = std::find_if(d.findings.begin(), d.findings.end(),
                                    [&](const SourcedFinding& s) { return s.finding.id == id; });
        if (f == d.findings.end()) continue;
        const int p = by_name.at(g.record_name).pid;
        for (const std::int64_t rank : f->finding.ranks) {
            const auto at = last_entry.find(rank);
            if (at == last_entry.end()) continue;
            thread(p, rank);
            event(
                "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"collective_stuck: never entered\",\"cat\":\"root_cause\","
                "\"pid\":" +
                std::to_string(p) + ",\"tid\":" + std::to_string(rank) + ",\"ts\":" + micros(at->second, t0) +
                ",\"args\":{\"message\":" + json_text(f->finding.message) + "}}");
        }
    }
    // The verdict: on each root-cause rank's thread in every group that waits on it, at its last entry (or, for a
    // rank with no record, when the job's last collective was entered: where the hang begins).
    std::int64_t stopped = t0;
    for (const auto& [rank, time] : last_entry) stopped = std::max(stopped, time);
    for (const Verdict& v : d.verdicts)
        for (const WaitingGroup& w : v.waiting) {
            const auto p = pid_of_label.find(w.at.label);
            if (p == pid_of_label.end()) continue;
            for (const std::int64_t rank : v.ranks) {
                thread(p->second, rank);
                const auto at = last_entry.find(rank);
                event("{\"ph\":\"i\",\"s\":\"t\",\"name\":" + json_text("verdict: " + v.sentence) +
                      ",\"cat\":\"verdict\",\"pid\":" + std::to_string(p->second) + ",\"tid\":" + std::to_string(rank) +
                      ",\"ts\":" + micros(at != last_entry.end() ? at->second : stopped, t0) + ",\"args\":{\"cause\":" +
                      json_text(std::string(to_string(v.cause))) + ",\"waiting\":" + json_text(w.at.label) + "}}");
            }
        }
    out << "\n]}\n";
}

}  // namespace meshscope::records
