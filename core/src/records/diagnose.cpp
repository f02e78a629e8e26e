#include "meshscope/records/diagnose.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "records/diagnose_internal.h"

namespace meshscope::records {

namespace {
nlohmann::json place_json(const PlanPlace& p) {
    return {{"mesh", p.mesh}, {"dim", p.dim}, {"index", p.index}, {"members", p.members}};
}

nlohmann::json topology_json(const Topology& t) {
    return {{"dp", t.dp}, {"cp", t.cp}, {"ep", t.ep}, {"efsdp", t.efsdp}, {"edp", t.edp}};
}

double ms(std::int64_t ns) {
    return static_cast<double>(ns) / 1e6;
}

// The straggler rule's figures: per dim, per late rank, and every rank's score with its lags per dim.
nlohmann::json stragglers_json(const Stragglers& s) {
    nlohmann::json j;
    j["rule"] = {{"k", s.rule.k}, {"mad_scale", StragglerRule::mad_scale}, {"floor_ms", ms(s.rule.floor_ns)}};
    j["dims"] = nlohmann::json::array();
    for (const auto& d : s.dims)
        j["dims"].push_back({{"dim", d.dim},
                             {"arrivals", d.arrivals},
                             {"median_ms", ms(d.median_ns)},
                             {"mad_ms", ms(d.mad_ns)},
                             {"threshold_ms", ms(d.threshold_ns)}});
    const auto lag_json = [](const RankLag& r) {
        return nlohmann::json{{"dim", r.dim},
                              {"arrivals", r.arrivals},
                              {"typical_ms", ms(r.typical_ns)},
                              {"worst_ms", ms(r.worst.lag_ns)},
                              {"worst_raw_ms", ms(r.worst.raw_ns)},
                              {"seq", r.worst.seq},
                              {"collective", r.worst.collective},
                              {"group", r.worst.group},
                              {"late", r.late},
                              {"score", r.score}};
    };
    j["late"] = nlohmann::json::array();
    for (const RankLag* r : s.late()) {
        nlohmann::json o = lag_json(*r);
        o["rank"] = r->rank;
        j["late"].push_back(std::move(o));
    }
    j["ranks"] = nlohmann::json::array();
    std::size_t k = 0;
    for (const auto& [rank, score] : s.scores) {
        nlohmann::json o = {{"rank", rank}, {"score", score}, {"dims", nlohmann::json::array()}};
        for (; k < s.ranks.size() && s.ranks[k].rank == rank; ++k) o["dims"].push_back(lag_json(s.ranks[k]));
        j["ranks"].push_back(std::move(o));
    }
    return j;
}

nlohmann::json position_json(const Position& p) {
    nlohmann::json j = {
        {"state", to_string(p.state)}, {"source", p.source}, {"label", p.label}, {"seq", p.seq}, {"op", p.op}};
    if (!p.mesh.empty()) {
        j["mesh"] = p.mesh;
        j["dim"] = p.dim;
        j["group"] = p.index;
    }
    if (!p.waits_on.empty()) j["waits_on"] = p.waits_on;
    return j;
}

const RecordsRank* process_of(const Diagnosis& d, std::int64_t rank) {
    const auto it = std::lower_bound(d.ranks.begin(), d.ranks.end(), rank,
                                     [](const RecordsRank& r, std::int64_t v) { return r.rank < v; });
    return it != d.ranks.end() && it->rank == rank ? &*it : nullptr;
}

const HangPosition* position_of(const Diagnosis& d, std::int64_t rank) {
    const auto it = std::lower_bound(d.positions.begin(), d.positions.end(), rank,
                                     [](const auto& p, std::int64_t v) { return p.first < v; });
    return it != d.positions.end() && it->first == rank ? &it->second : nullptr;
}

nlohmann::json verdict_json(const Verdict& v, const Diagnosis& d) {
    nlohmann::json j = {{"id", v.id}, {"cause", to_string(v.cause)}, {"ranks", v.ranks}, {"sentence", v.sentence}};
    if (v.host) j["host"] = *v.host;
    if (v.pid) j["pid"] = *v.pid;
    j["processes"] = nlohmann::json::array();
    for (const std::int64_t r : v.ranks) {
        nlohmann::json p = {{"rank", r}};
        if (const RecordsRank* known = process_of(d, r)) {
            if (known->host) p["host"] = *known->host;
            if (known->pid) p["pid"] = *known->pid;
        }
        j["processes"].push_back(std::move(p));
    }
    if (v.where) j["where"] = position_json(*v.where);
    if (v.instead) j["instead"] = position_json(*v.instead);
    j["waiting"] = nlohmann::json::array();
    for (const auto& w : v.waiting) {
        nlohmann::json o = position_json(w.at);
        o.erase("state");
        o["waiting"] = w.waiting;
        o["waits_on"] = w.waits_on;
        j["waiting"].push_back(std::move(o));
    }
    for (const auto& f : d.findings)
        if (f.finding.kind == FindingKind::verdict && f.finding.id == v.id) {
            j["message"] = f.finding.message;
            j["fix"] = f.finding.fix;
        }
    j["consequences"] = nlohmann::json::array();
    for (const auto& f : d.findings)
        if (f.consequence_of == v.id) j["consequences"].push_back(f.finding.id);
    j["sources"] = v.sources;
    return j;
}
}  // namespace

// Text from the records (host names, group descriptions, file names) reaches a terminal: control characters,
// escape sequences and line breaks among them, are shown as '?' so that a record cannot move the cursor or fake
// a line of the report.
std::string printable(std::string text) {
    for (char& c : text)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    return text;
}

namespace {
// Records that name ranks the plan has not: the job runs with another world than the plan given, so every group
// placed on the plan is suspect. Sources: the dumps of those ranks and every RAS status (NCCL's logs name a rank
// per process, not per file).
void note_ranks_beyond_plan(const RecordSet& records, const Plan& plan, Diagnosis& out) {
    const std::int64_t world = plan.topology().world();
    std::vector<std::int64_t> beyond;
    for (const auto& r : out.ranks)
        if (r.rank >= world) beyond.push_back(r.rank);
    if (beyond.empty()) return;
    const Topology& t = plan.topology();
    Finding f;
    f.kind = FindingKind::topology_mismatch;
    f.id = "topology_mismatch/world";
    f.ranks = beyond;
    f.message = "the records name " + detail::ranks_words(beyond) + ", beyond the plan's world of " +
                std::to_string(world) + " (dp " + std::to_string(t.dp) + ", cp " + std::to_string(t.cp) + ", ep " +
                std::to_string(t.ep) + "): the job runs another layout than the plan";
    f.fix =
        "Give the layout the job was launched with (--plan, or --dp --cp --ep with dp x cp = the job's world "
        "size), or check the launcher's world size (nnodes x nproc-per-node).";
    std::vector<std::string> sources;
    for (const auto& d : records.dumps)
        if (d.rank >= world && sources.size() < 8) sources.push_back(d.file);
    for (const auto& s : records.ras)
        if (sources.size() < 8) sources.push_back(s.file);
    out.findings.push_back({std::move(f), std::move(sources)});
}

// Where to look: a fix that says "py-spy dump --pid" gets the pid and host of its one rank, and a fix of ranks
// whose processes the records give names them ("rank 4: node1 pid 41004").
void name_processes(Diagnosis& out) {
    const auto process = [&](std::int64_t rank) -> const RecordsRank* {
        const auto it = std::lower_bound(out.ranks.begin(), out.ranks.end(), rank,
                                         [](const RecordsRank& r, std::int64_t v) { return r.rank < v; });
        return it != out.ranks.end() && it->rank == rank && (it->host || it->pid) ? &*it : nullptr;
    };
    const auto words = [](const RecordsRank& r) {
        std::string text = r.host ? *r.host : std::string();
        if (r.pid) text += (text.empty() ? "pid " : " pid ") + std::to_string(*r.pid);
        return text;
    };
    for (auto& sf : out.findings) {
        Finding& f = sf.finding;
        if (f.kind == FindingKind::verdict || f.ranks.empty()) continue;
        const std::string spy = "py-spy dump --pid,";
        if (const std::size_t at = f.fix.find(spy); at != std::string::npos && f.ranks.size() == 1) {
            if (const RecordsRank* r = process(f.ranks.front()); r && r->pid)
                f.fix.replace(
                    at, spy.size(),
                    "py-spy dump --pid " + std::to_string(*r->pid) + (r->host ? " on " + *r->host : "") + ",");
            continue;
        }
        std::string known;
        std::size_t named = 0;
        for (const std::int64_t rank : f.ranks)
            if (const RecordsRank* r = process(rank); r && named < 8) {
                known += (named++ ? ", " : "") + ("rank " + std::to_string(rank) + ": " + words(*r));
            }
        if (named == 0 || f.fix.find(known) != std::string::npos) continue;
        f.fix += " Processes: " + known + (f.ranks.size() > named ? ", ..." : "") + ".";
    }
}

// Without a plan: the layouts of the world that have every complete group the records show, and the plan of the one
// layout when only one does; else the note that says why none is proposed.
std::optional<Plan> propose_layout(const RecordSet& records, detail::Context& context, Diagnosis& out) {
    for (const auto& s : records.ras)
        for (const auto& c : s.communicators) context.world = std::max(context.world, c.size);
    auto groups = detail::complete_nccl_groups(context);
    const auto fr = detail::complete_fr_groups(context);
    groups.insert(groups.end(), fr.begin(), fr.end());
    const auto named = detail::named_fr_groups(context);
    if (context.world <= 0) {
        out.plan_note = "no rank found in the records, so no layout is proposed";
        return std::nullopt;
    }
    if (groups.empty() && named.empty()) {
        out.plan_note =
            "no complete group found in the records, so no layout is proposed (give --plan or --dp --cp --ep)";
        return std::nullopt;
    }
    out.candidates = detail::explaining_layouts(context.world, groups, named);
    if (out.candidates.empty())
        out.plan_note =
            "no (dp, cp, ep) of world " + std::to_string(context.world) + " has every group found in the records";
    else if (out.candidates.size() > 1)
        out.plan_note = std::to_string(out.candidates.size()) + " layouts of world " + std::to_string(context.world) +
                        " have every group found; give --plan or --dp --cp --ep";
    else if (auto made = Plan::make(out.candidates.front(), 8)) {
        out.topology = out.candidates.front();
        out.proposed = true;
        return std::move(made).value();
    }
    return std::nullopt;
}

// Every rank the records name (the NCCL log's processes, the dumps), and with a plan the ranks beyond it.
void note_every_rank(const RecordSet& records, const Plan* plan, const detail::Context& context, Diagnosis& out) {
    for (const auto& [process, rank] : context.process_ranks)
        detail::note_rank(out, rank, process.host, process.pid ? std::optional(process.pid) : std::nullopt);
    // The dumps by rank (file order among a rank's dumps kept), so that each rank noted goes at the end of the list:
    // a job's dumps come in the order of their names ("rank_10" before "rank_2").
    std::vector<const FrDump*> dumps;
    for (const auto& d : records.dumps)
        if (d.rank >= 0) dumps.push_back(&d);
    std::stable_sort(dumps.begin(), dumps.end(), [](const FrDump* a, const FrDump* b) { return a->rank < b->rank; });
    for (const FrDump* d : dumps) detail::note_rank(out, d->rank, d->host, std::nullopt);
    if (plan) note_ranks_beyond_plan(records, *plan, out);
}

// The collector's order (kind, then first rank, then id), then the verdicts first in their own order (the one most
// groups wait on first), each followed by its consequences.
void order_findings(Diagnosis& out) {
    std::stable_sort(out.findings.begin(), out.findings.end(), [](const SourcedFinding& a, const SourcedFinding& b) {
        if (a.finding.kind != b.finding.kind) return a.finding.kind < b.finding.kind;
        const std::int64_t ra = a.finding.ranks.empty() ? -1 : a.finding.ranks.front();
        const std::int64_t rb = b.finding.ranks.empty() ? -1 : b.finding.ranks.front();
        if (ra != rb) return ra < rb;
        return a.finding.id < b.finding.id;
    });
    std::vector<SourcedFinding> ordered;
    ordered.reserve(out.findings.size());
    std::vector<bool> taken(out.findings.size(), false);
    const auto take = [&](const auto& wanted) {
        for (std::size_t i = 0; i < out.findings.size(); ++i)
            if (!taken[i] && wanted(out.findings[i])) {
                taken[i] = true;
                ordered.push_back(std::move(out.findings[i]));
            }
    };
    for (const Verdict& v : out.verdicts) {
        take([&](const SourcedFinding& f) { return f.finding.kind == FindingKind::verdict && f.finding.id == v.id; });
        take([&](const SourcedFinding& f) { return f.consequence_of == v.id; });
    }
    take([](const SourcedFinding&) { return true; });
    out.findings = std::move(ordered);
}

// The stages: the processes' ranks, the plan (given, or proposed from the complete groups), the three sources
// placed on it, every rank noted, the verdicts, then the processes named and the findings ordered.
Diagnosis diagnose_with(const RecordSet& records, const Plan* plan, const std::vector<RasStall>* ras_stalls) {
    Diagnosis out;
    out.problems = records.problems;
    out.problems.insert(out.problems.end(), records.nccl.problems.begin(), records.nccl.problems.end());
    detail::Context context{records, nullptr, 0, {}, out, ras_stalls, {}, {}};
    detail::find_process_ranks(context);
    for (const auto& d : records.dumps) context.world = std::max(context.world, d.rank + 1);

    std::optional<Plan> proposed;
    if (plan) {
        out.topology = plan->topology();
        context.world = plan->topology().world();
    } else {
        proposed = propose_layout(records, context, out);
    }
    const Plan* used = plan ? plan : proposed ? &*proposed : nullptr;
    std::optional<detail::PlanIndex> index;
    if (used) index.emplace(*used);
    context.plan = index ? &*index : nullptr;
    out.world = context.world;

    detail::diagnose_nccl(context);
    detail::diagnose_flight_recorder(context);
    detail::diagnose_ras(context);
    out.world = context.world;
    note_every_rank(records, plan, context, out);
    detail::find_verdicts(context);
    name_processes(out);
    order_findings(out);
    return out;
}
}  // namespace

Diagnosis diagnose(const RecordSet& records, const Plan* plan) {
    return diagnose_with(records, plan, nullptr);
}

Diagnosis RasPollDiagnosis::next(const RasStatus& status, const Plan* plan, bool in_turn) {
    const auto stalls = in_turn ? watch_.observe(status) : watch_.still(status);
    RecordSet set;
    set.ras.push_back(status);
    return diagnose_with(set, plan, &stalls);
}

std::optional<HangSummary> hang_summary(const Diagnosis& d) {
    if (d.positions.empty()) return std::nullopt;
    std::vector<RankedPosition> ranks;
    ranks.reserve(d.positions.size());
    for (const auto& [rank, position] : d.positions) ranks.push_back({rank, &position});
    return summarize_hang(ranks);
}

namespace {
// A commHash as NCCL Inspector spells it ("0x" and lowercase hex without leading zeros), from an observed group's id
// ("commId 0x5ae77eb5ea4ec1ee" from NCCL's INFO lines, "commId 5ae77eb5ea4ec1ee" from RAS); none for an id that is
// not one hash ("commId 0x.. split 1 color 0", "process group 5 (mesh_ep)").
std::optional<std::string> inspector_comm_id(const std::string& id) {
    if (!id.starts_with("commId ")) return std::nullopt;
    std::string digits = id.substr(7);
    if (digits.starts_with("0x")) digits.erase(0, 2);
    std::transform(digits.begin(), digits.end(), digits.begin(),
                   [](char c) { return static_cast<char>(c >= 'A' && c <= 'F' ? c - 'A' + 'a' : c); });
    if (digits.empty() || digits.size() > 16 || digits.find_first_not_of("0123456789abcdef") != std::string::npos)
        return std::nullopt;
    const auto first = digits.find_first_not_of('0');
    return "0x" + (first == std::string::npos ? std::string("0") : digits.substr(first));
}

// The state the diagnosis's findings give a group: the first of failed, not_formed and stuck whose finding names it
// (by the plan's place, "ep/1", or by its id or hash as the finding ids of unplaced groups do), else formed.
std::string group_state(const Diagnosis& d, const ObservedGroup& g) {
    std::vector<std::string> keys = {g.id};
    if (g.place) keys.push_back(g.place->dim + "/" + std::to_string(g.place->index));
    if (g.id.starts_with("commId ")) keys.push_back(g.id.substr(7));
    const auto names = [&](std::string_view prefix) {
        return std::any_of(d.findings.begin(), d.findings.end(), [&](const SourcedFinding& f) {
            const std::string& id = f.finding.id;
            return id.starts_with(prefix) &&
                   std::find(keys.begin(), keys.end(), std::string_view(id).substr(prefix.size())) != keys.end();
        });
    };
    if (names("rank_error/ras/")) return "failed";
    if (names("communicator_not_formed/")) return "not_formed";
    if (names("collective_stuck/")) return "stuck";
    return "formed";
}

// The order in which one state overrides another: a member's error is the cause, and a communicator that never
// formed comes before one that formed and stopped.
int state_rank(const std::string& state) {
    static constexpr std::string_view order[] = {"formed", "stuck", "not_formed", "failed"};
    const auto* found = std::find(std::begin(order), std::end(order), state);
    return found == std::end(order) ? 0 : static_cast<int>(found - order);
}

// One communicator per plan group (or per hash, or per id when neither): the sources that saw it merged, its worst
// state kept (failed, not_formed, stuck, formed in that order).
std::vector<RecordsCommunicator> records_communicators(const Diagnosis& d) {
    std::vector<RecordsCommunicator> out;
    std::map<std::string, std::size_t> at;
    for (const ObservedGroup& g : d.groups) {
        const auto comm_id = inspector_comm_id(g.id);
        const std::string key = g.place   ? "place " + g.place->dim + "/" + std::to_string(g.place->index)
                                : comm_id ? "hash " + *comm_id
                                          : "id " + g.id;
        const std::string state = group_state(d, g);
        const auto found = at.find(key);
        if (found == at.end()) {
            if (out.size() >= RecordsLimits{}.max_communicators) continue;
            RecordsCommunicator c;
            c.name = comm_id ? *comm_id : g.id;
            c.comm_id = comm_id;
            c.nranks = std::max<std::int64_t>(g.size, 1);
            c.seen = static_cast<std::int64_t>(g.seen.size());
            c.state = state;
            c.source = g.source;
            if (g.place) {
                c.dim = g.place->dim;
                c.index = g.place->index;
            }
            at.emplace(key, out.size());
            out.push_back(std::move(c));
            continue;
        }
        RecordsCommunicator& c = out[found->second];
        if (!c.comm_id && comm_id) c.name = *(c.comm_id = comm_id);
        c.nranks = std::max(c.nranks, g.size);
        c.seen = std::max(c.seen, static_cast<std::int64_t>(g.seen.size()));
        if (state_rank(state) > state_rank(c.state)) c.state = state;
        if (c.source.find(g.source) == std::string::npos) c.source += ", " + g.source;
    }
    return out;
}
}  // namespace

RecordsImport to_records_import(const Diagnosis& d) {
    RecordsImport out;
    for (const auto& f : d.findings) {
        Finding finding = f.finding;
        finding.id.clear();
        finding.sources = f.sources;
        out.findings.push_back(std::move(finding));
    }
    // The ranks the records name, each with its position; then the ranks no record names, with theirs (no_record).
    out.ranks.reserve(std::max(d.ranks.size(), d.positions.size()));
    auto position = d.positions.begin();
    for (const RecordsRank& r : d.ranks) {
        for (; position != d.positions.end() && position->first < r.rank; ++position)
            out.ranks.push_back({position->first, std::nullopt, std::nullopt, position->second});
        out.ranks.push_back(r);
        if (position != d.positions.end() && position->first == r.rank)
            out.ranks.back().position = (position++)->second;
    }
    for (; position != d.positions.end(); ++position)
        out.ranks.push_back({position->first, std::nullopt, std::nullopt, position->second});
    // A world the collector could not take (past its bound of a rank) is left unsaid.
    if (d.world > 0 && d.world <= static_cast<std::int64_t>(RecordsLimits{}.max_ranks)) out.world_size = d.world;
    if (d.topology) {
        out.topology = ReportedTopology{d.topology->dp, d.topology->cp, d.topology->ep};
        out.topology_proposed = d.proposed;
    }
    out.communicators = records_communicators(d);
    return out;
}

nlohmann::json to_json(const Diagnosis& d, const Plan* plan) {
    nlohmann::json j;
    j["schema"] = "meshscope.diagnosis/1";
    j["world_size"] = d.world;
    if (d.topology) j["topology"] = topology_json(*d.topology);
    j["proposed"] = d.proposed;
    if (!d.candidates.empty()) {
        j["candidates"] = nlohmann::json::array();
        for (const auto& t : d.candidates) j["candidates"].push_back(topology_json(t));
    }
    if (!d.plan_note.empty()) j["plan_note"] = d.plan_note;
    j["groups"] = nlohmann::json::array();
    for (const auto& g : d.groups) {
        nlohmann::json o = {{"source", g.source}, {"id", g.id},         {"size", g.size},
                            {"seen", g.seen},     {"label", g.label()}, {"sources", g.sources}};
        o["in_plan"] = g.place.has_value();
        if (g.place) o["place"] = place_json(*g.place);
        if (g.nearest) {
            o["nearest"] = place_json(*g.nearest);
            o["shared"] = g.shared;
        }
        j["groups"].push_back(std::move(o));
    }
    // Every rank's coordinates in each of the plan's meshes.
    j["ranks"] = nlohmann::json::array();
    Plan const* used = plan;
    std::optional<Plan> proposed;
    if (!used && d.topology)
        if (auto made = Plan::make(*d.topology, 8)) {
            proposed.emplace(std::move(made).value());
            used = &*proposed;
        }
    if (used && d.world <= (1 << 16))
        for (std::int64_t r = 0; r < used->topology().world(); ++r) {
            nlohmann::json coords = nlohmann::json::object();
            for (const auto& m : used->meshes()) {
                nlohmann::json c = nlohmann::json::object();
                const auto names = m.mesh.dim_names();
                for (std::size_t k = 0; k < names.size(); ++k) c[names[k]] = m.mesh.coordinate(r, k);
                coords[m.name] = std::move(c);
            }
            nlohmann::json o = {{"rank", r}, {"coordinates", std::move(coords)}};
            if (const RecordsRank* known = process_of(d, r)) {
                if (known->host) o["host"] = *known->host;
                if (known->pid) o["pid"] = *known->pid;
            }
            if (const HangPosition* p = position_of(d, r)) o["position"] = to_json(*p);
            j["ranks"].push_back(std::move(o));
        }
    else
        for (const auto& known : d.ranks) {  // no plan: the ranks the records name, with their processes
            nlohmann::json o = {{"rank", known.rank}};
            if (known.host) o["host"] = *known.host;
            if (known.pid) o["pid"] = *known.pid;
            if (const HangPosition* p = position_of(d, known.rank)) o["position"] = to_json(*p);
            j["ranks"].push_back(std::move(o));
        }
    if (const auto hang = hang_summary(d)) j["hang"] = to_json(*hang);
    j["verdict"] = d.verdicts.empty() ? nlohmann::json(nullptr) : verdict_json(d.verdicts.front(), d);
    j["verdicts"] = nlohmann::json::array();
    for (const auto& v : d.verdicts) j["verdicts"].push_back(verdict_json(v, d));
    j["progress"] = d.progress;
    j["arrivals"] = d.arrivals;
    j["stragglers"] = stragglers_json(d.stragglers);
    j["findings"] = nlohmann::json::array();
    for (const auto& f : d.findings) {
        nlohmann::json o = to_json(f.finding);
        o["sources"] = f.sources;
        if (!f.consequence_of.empty()) o["consequence_of"] = f.consequence_of;
        j["findings"].push_back(std::move(o));
    }
    j["problems"] = nlohmann::json::array();
    for (const auto& p : d.problems) j["problems"].push_back(p.message);
    return j;
}

// long: the text report's sections in the order a reader meets them, one block each
std::string to_text(const Diagnosis& d) {
    std::ostringstream out;
    out << "diagnosis: " << d.world << " ranks";
    if (d.topology)
        out << ", " << (d.proposed ? "proposed layout" : "plan") << " (dp, cp, ep) = " << d.topology->tuple_string();
    out << "\n";
    if (!d.plan_note.empty()) out << "  " << printable(d.plan_note) << "\n";
    if (d.candidates.size() > 1) {
        out << "  layouts that explain the groups:";
        for (const auto& t : d.candidates) out << " " << t.tuple_string();
        out << "\n";
    }
    // The root cause first, with what waits on it.
    for (const auto& v : d.verdicts) {
        const SourcedFinding* f = nullptr;
        for (const auto& x : d.findings)
            if (x.finding.kind == FindingKind::verdict && x.finding.id == v.id) f = &x;
        out << "\nverdict: " << printable(v.sentence) << "\n";
        for (const std::int64_t r : v.ranks)
            if (const RecordsRank* known = process_of(d, r); known && (known->host || known->pid)) {
                out << "  rank " << r << ":";
                if (known->host) out << " " << printable(*known->host);
                if (known->pid) out << " pid " << *known->pid;
                out << "\n";
            }
        out << "  " << v.waiting.size() << (v.waiting.size() == 1 ? " group waits" : " groups wait") << " on "
            << (v.ranks.size() == 1 ? "it" : "them") << ":\n";
        for (const auto& w : v.waiting)
            out << "    " << printable(w.at.label) << " at "
                << (w.at.op == "init" || w.at.op == "creation" || w.at.seq <= 0
                        ? w.at.op
                        : w.at.op + " " + std::to_string(w.at.seq))
                << ": " << detail::ranks_words(w.waiting) << " wait" << (w.waiting.size() == 1 ? "s" : "") << " for "
                << detail::ranks_words(w.waits_on) << " (" << w.at.source << ")\n";
        if (f) out << "  fix: " << printable(f->finding.fix) << "\n";
    }
    if (const auto hang = hang_summary(d)) out << "\nwhere the ranks stand: " << printable(hang->text) << "\n";
    out << "\ngroups (" << d.groups.size() << "):\n";
    for (const auto& g : d.groups) {
        out << "  " << g.source << " " << printable(g.id) << ": ";
        if (g.place)
            out << g.place->mesh << " mesh, " << printable(g.place->label());
        else if (!d.topology)
            out << "not placed (no plan)";
        else {
            out << "not in the plan";
            if (g.nearest) out << "; nearest " << printable(g.nearest->label()) << " (" << g.shared << " shared)";
        }
        if (g.seen.empty())
            out << "; no rank's own record\n";  // RAS's text form names only the ranks where something is wrong
        else
            out << "; seen on " << detail::ranks_words(g.seen) << "\n";
    }
    if (!d.progress.empty()) {
        out << "\nprogress:\n";
        for (const auto& p : d.progress) out << "  " << printable(p) << "\n";
    }
    if (!d.arrivals.empty()) {
        out << "\nlatest arrivals (Flight Recorder):\n";
        for (const auto& a : d.arrivals) out << "  " << printable(a) << "\n";
    }
    if (!d.stragglers.dims.empty()) {
        out << "\nstragglers (Flight Recorder, every common collective):\n";
        const auto late = d.stragglers.late();
        for (const auto& dim : d.stragglers.dims) {
            out << "  " << printable(dim.dim) << ": " << dim.arrivals << " arrivals, median "
                << detail::ms_text(dim.median_ns) << ", MAD " << detail::ms_text(dim.mad_ns) << ", threshold "
                << detail::ms_text(dim.threshold_ns) << "; ";
            std::size_t named = 0;
            for (const RankLag* r : late) {
                if (r->dim != dim.dim) continue;
                out << (named++ ? "; " : "late: ") << "rank " << r->rank << " " << detail::ms_text(r->worst.lag_ns)
                    << " at seq " << r->worst.seq << " (" << printable(r->worst.collective) << ") of the "
                    << printable(r->worst.group) << ", typically " << detail::ms_text(r->typical_ns);
            }
            out << (named ? "\n" : "no rank late\n");
        }
    }
    out << "\nfindings (" << d.findings.size() << "):\n";
    for (const auto& f : d.findings) {
        // A consequence of a verdict is folded under it, indented.
        const std::string indent = f.consequence_of.empty() ? "  " : "      ";
        out << indent << to_string(f.finding.kind) << ": " << printable(f.finding.message) << "\n";
        out << indent << "  fix: " << printable(f.finding.fix) << "\n";
        if (!f.sources.empty()) {
            out << indent << "  from:";
            for (const auto& s : f.sources) out << " " << printable(s);
            out << "\n";
        }
        if (f.finding.kind == FindingKind::verdict) {
            std::size_t n = 0;
            for (const auto& c : d.findings) n += c.consequence_of == f.finding.id;
            if (n) out << "    " << n << " finding" << (n == 1 ? "" : "s") << " that follow from it:\n";
        }
    }
    if (!d.problems.empty()) {
        out << "\nnot read (" << d.problems.size() << "):\n";
        for (const auto& p : d.problems) out << "  " << printable(p.message) << "\n";
    }
    return out.str();
}

}  // namespace meshscope::records
