// Flight Recorder dumps -> process groups: who entered which collective, where ranks disagree, where a group is
// stuck and which of its members never entered, rolled up by mesh dim.
#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdio>
#include <map>
#include <set>
#include <thread>

#include "meshscope/mesh/parallel_for.h"
#include "records/diagnose_internal.h"

namespace meshscope::records::detail {

namespace {
// The default group is every rank of the world; a world read from a record is listed only up to this size.
constexpr std::int64_t max_listed_world = 1 << 20;

struct PgInfo {
    std::string name, desc;
    std::set<std::int64_t> seen;
};

std::string shapes_text(const std::vector<Shape>& shapes) {
    std::string out = "[";
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        out += i ? ", [" : "[";
        for (std::size_t k = 0; k < shapes[i].size(); ++k) out += (k ? ", " : "") + std::to_string(shapes[i][k]);
        out += "]";
    }
    return out + "]";
}

std::string strings_text(const std::vector<std::string>& values) {
    std::string out = "[";
    for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + values[i];
    return out + "]";
}

// An entry as a reader names it: "ep group 1 seq 2 (all_reduce)" on the plan, else "process group 5 (mesh_ep)
// seq 2 (all_reduce)"; labels holds the groups' names by pg name.
std::string entry_text(const FrEntry& e, const std::map<std::string, std::string>& labels) {
    const auto it = labels.find(e.pg_name());
    const std::string group =
        it != labels.end() ? it->second : "process group " + e.pg_name() + " (" + e.pg_desc() + ")";
    return group + " seq " + std::to_string(e.collective_seq_id) + " (" + std::string(e.collective()) + ")";
}

struct Signature {
    std::string collective, sizes, dtypes;
    friend auto operator<=>(const Signature&, const Signature&) = default;
};

Signature signature(const FrOp& op) {
    const std::string_view name = op.profiling_name;
    const std::size_t colon = name.find(':');
    return {std::string(colon == std::string_view::npos ? name : name.substr(colon + 1)),
            shapes_text(op.input_sizes) + " -> " + shapes_text(op.output_sizes),
            strings_text(op.input_dtypes) + " -> " + strings_text(op.output_dtypes)};
}
Signature signature(const FrEntry& e) {
    return signature(*e.op);
}

// For each of a dump's groups (by FrGroupName::index), the first and last entry that names it.
std::vector<std::pair<std::size_t, std::size_t>> group_spans(const FrDump& dump) {
    std::vector<std::pair<std::size_t, std::size_t>> spans(dump.groups().size(), {SIZE_MAX, 0});
    for (std::size_t i = 0; i < dump.entries.size(); ++i) {
        auto& [first, last] = spans[dump.entries[i].group->index];
        first = std::min(first, i);
        last = i;
    }
    return spans;
}

const FrEntry* last_record(const FrDump& dump) {
    const FrEntry* last = nullptr;
    for (const auto& e : dump.entries)
        if (!last || e.record_id > last->record_id) last = &e;
    return last;
}
}  // namespace

std::vector<std::vector<std::int64_t>> complete_fr_groups(const Context& context) {
    // Without a plan, a group is known completely only from pg_config (NCCL's process groups write it).
    std::vector<std::vector<std::int64_t>> out;
    std::set<std::vector<std::int64_t>> unique;
    std::set<std::pair<bool, const std::vector<std::int64_t>*>> done;  // lists shared by dumps: each looked at once
    for (const auto& dump : context.records.dumps)
        for (const auto& [name, config] : dump.pg_config) {
            if (!done.emplace(name.empty(), config.ranks.get()).second) continue;
            std::vector<std::int64_t> ranks = *config.ranks;
            std::sort(ranks.begin(), ranks.end());
            if (ranks.size() > 1 && !name.empty() && unique.insert(ranks).second) out.push_back(ranks);
        }
    return out;
}

std::vector<NamedGroup> named_fr_groups(const Context& context) {
    std::map<std::string, NamedGroup> by_name;
    for (const auto& dump : context.records.dumps) {
        if (dump.rank < 0) continue;
        // A dump's groups in the order of their last entries: the dim a name keeps is its last entry's.
        const auto spans = group_spans(dump);
        std::vector<const FrGroupName*> groups = dump.groups();
        std::erase_if(groups, [&](const FrGroupName* g) { return spans[g->index].first == SIZE_MAX; });
        std::sort(groups.begin(), groups.end(), [&](const FrGroupName* a, const FrGroupName* b) {
            return spans[a->index].second < spans[b->index].second;
        });
        for (const FrGroupName* group : groups) {
            const std::string dim = dim_from_desc(group->desc);
            if (dim.empty()) continue;
            NamedGroup& g = by_name[group->name];
            g.dim = dim;
            if (!std::binary_search(g.seen.begin(), g.seen.end(), dump.rank))
                g.seen.insert(std::upper_bound(g.seen.begin(), g.seen.end(), dump.rank), dump.rank);
        }
    }
    std::vector<NamedGroup> out;
    for (auto& [name, g] : by_name) out.push_back(std::move(g));
    return out;
}

namespace {
// What the stages read, made once from the dumps: the dumps by rank, the process groups by name, and each dump's
// groups and ops as small integers, so that entries compare as integers and texts are made once per op.
struct FrIndex {
    std::map<std::int64_t, const FrDump*> by_rank;  // of two dumps of one rank, the first
    std::map<std::string, PgInfo> pgs;              // by pg name, the same on every rank
    std::map<std::string, std::size_t> pg_index;    // a pg name's index among pgs
    // Each dump's groups (by FrGroupName::index) as indices into pgs, and its ops (by FrOp::index) as the index of
    // what they run (collective, sizes, dtypes).
    std::map<const FrDump*, std::vector<std::size_t>> group_ids;
    std::map<const FrDump*, std::vector<std::size_t>> op_ids;
    // The first rank (by rank) whose pg_config lists a group's members.
    std::map<std::string, const std::vector<std::int64_t>*> config_ranks;
};

// A group on the plan (or not), with the members it is judged over.
struct Placed {
    const PgInfo* pg;
    ObservedGroup group;
    std::vector<std::int64_t> members;
};

// Every group placed, and what naming a rank's last record needs: a group's words by pg name.
struct Placement {
    std::vector<Placed> placed;                                       // in pgs' order: placed[i] has pg_index i
    std::map<std::string, std::string> labels;                        // "ep group 1", "default_pg", else the group's id
    std::map<std::string, std::set<std::int64_t>> dims_with_records;  // dim -> plan group indices seen
};

// How far one group got, for the roll-up by dim.
struct Outcome {
    std::string dim;  // for the roll-up: the plan's dim, or the group's desc
    std::string label;
    std::int64_t reached = 0;
    bool stuck = false;
    std::string stuck_text;
    // The last sequence id every member entered, and who entered it last, how long after the first
    // (time_created_ns: when the collective was called on that rank).
    std::int64_t common = 0;
    std::int64_t latest_rank = -1;
    std::int64_t spread_ns = 0;
    std::string collective;
    // Members without a dump: whether they reached `reached` no record says.
    std::vector<std::int64_t> without_dump;
};

// One group's verdict on its own, kept aside and taken in group order afterwards, so that the report is the same
// however the groups are shared out between threads.
struct GroupVerdict {
    std::vector<SourcedFinding> findings;
    std::optional<ReadProblem> problem;
    std::optional<Outcome> outcome;
    FrGroupArrivals arrivals;
};

// A member's entry on one group: its seq (first), the entry (second) and what it ran (op: the index of its
// signature, kept here so that walking the members side by side reads no entry).
struct SeqEntry {
    std::int64_t first;
    const FrEntry* second;
    std::size_t op;
};
using Seqs = std::vector<SeqEntry>;
// Each member with a dump and its entries on the group, by member, ascending.
using MemberSeqs = std::vector<std::pair<std::int64_t, Seqs>>;

const FrEntry* find_seq(const Seqs& seqs, std::int64_t s) {
    const auto it =
        std::lower_bound(seqs.begin(), seqs.end(), s, [](const auto& a, std::int64_t v) { return a.first < v; });
    return it != seqs.end() && it->first == s ? it->second : nullptr;
}

std::string group_key(const ObservedGroup& group) {
    return group.place ? group.place->dim + "/" + std::to_string(group.place->index) : group.id;
}

// --- index: the dumps by rank, their groups and ops numbered ---

std::map<std::int64_t, const FrDump*> dumps_by_rank(Context& context) {
    std::map<std::int64_t, const FrDump*> by_rank;
    for (const auto& d : context.records.dumps) {
        if (d.rank < 0) continue;
        const auto [it, added] = by_rank.emplace(d.rank, &d);
        if (!added)
            context.out.problems.push_back(read_problem(d.file, 0,
                                                        "two Flight Recorder dumps of rank " + std::to_string(d.rank) +
                                                            ": " + it->second->file + " and " + d.file +
                                                            "; the first is read"));
    }
    return by_rank;
}

// A group's desc is the first one recorded that says something (neither empty nor "undefined"), else the last one
// recorded; a dump's entries are read through its groups, each once.
std::map<std::string, PgInfo> process_groups(const std::map<std::int64_t, const FrDump*>& by_rank) {
    std::map<std::string, PgInfo> pgs;
    for (const auto& [rank, dump] : by_rank) {
        const auto spans = group_spans(*dump);
        std::map<std::string_view, std::pair<const FrGroupName*, const FrGroupName*>> named;  // first good, last
        for (const FrGroupName* g : dump->groups()) {
            if (spans[g->index].first == SIZE_MAX) continue;
            auto& [good, last] = named[g->name];
            if (g->desc != "" && g->desc != "undefined" && (!good || spans[g->index].first < spans[good->index].first))
                good = g;
            if (!last || spans[g->index].second > spans[last->index].second) last = g;
        }
        for (const auto& [name, found] : named) {
            PgInfo& pg = pgs[std::string(name)];
            pg.name = name;
            if (pg.desc.empty() || pg.desc == "undefined") pg.desc = (found.first ? found.first : found.second)->desc;
            pg.seen.insert(rank);
        }
    }
    return pgs;
}

FrIndex index_dumps(Context& context) {
    FrIndex index;
    index.by_rank = dumps_by_rank(context);
    index.pgs = process_groups(index.by_rank);
    for (const auto& [name, pg] : index.pgs) index.pg_index.emplace(name, index.pg_index.size());
    std::map<Signature, std::size_t> signatures;
    for (const auto& [rank, dump] : index.by_rank) {
        auto& ids = index.group_ids[dump];
        for (const FrGroupName* g : dump->groups()) ids.push_back(index.pg_index.at(g->name));
        auto& ops = index.op_ids[dump];
        for (const FrOp* op : dump->ops())
            ops.push_back(signatures.emplace(signature(*op), signatures.size()).first->second);
    }
    for (const auto& [rank, dump] : index.by_rank)
        for (const auto& [name, config] : dump->pg_config)
            if (!config.ranks->empty()) index.config_ranks.emplace(name, config.ranks.get());
    return index;
}

// --- place: every group on the plan first, so that a rank's last record can be named by its group's place ---

Placed place_one_group(const Context& context, const FrIndex& index, const PgInfo& pg) {
    const std::string& name = pg.name;
    ObservedGroup group;
    group.source = "Flight Recorder";
    group.record_name = name;
    group.id = pg.desc == "default_pg" ? "default_pg" : "process group " + name + " (" + pg.desc + ")";
    group.seen.assign(pg.seen.begin(), pg.seen.end());
    std::vector<std::int64_t> members = group.seen;
    if (const auto it = index.config_ranks.find(name); it != index.config_ranks.end()) {
        members = *it->second;
        std::sort(members.begin(), members.end());
    }
    const std::string hint = pg.desc == "default_pg" ? std::string() : dim_from_desc(pg.desc);
    group.size = static_cast<std::int64_t>(members.size());
    if (pg.desc == "default_pg" && context.world <= max_listed_world) {
        group.size = std::max<std::int64_t>(context.world, static_cast<std::int64_t>(index.by_rank.size()));
        members.clear();
        for (std::int64_t r = 0; r < group.size; ++r) members.push_back(r);
    }
    if (context.plan) {
        if (pg.desc == "default_pg" && group.size == context.plan->world())
            group.place = PlanPlace{"world", "world", 0, members};
        else
            place_group(context, group, {}, hint);
        if (group.place) members = group.place->members;
    }
    group.size = static_cast<std::int64_t>(members.size());
    for (const std::int64_t r : group.seen)
        if (group.sources.size() < 8) group.sources.push_back(index.by_rank.at(r)->file);
    return {&pg, std::move(group), std::move(members)};
}

Placement place_groups(const Context& context, const FrIndex& index) {
    Placement placement;
    for (const auto& [name, pg] : index.pgs) {
        Placed placed = place_one_group(context, index, pg);
        const ObservedGroup& group = placed.group;
        if (group.place) placement.dims_with_records[group.place->dim].insert(group.place->index);
        placement.labels[name] = group.place ? (group.place->mesh == "world"
                                                    ? "default_pg"
                                                    : group.place->dim + " group " + std::to_string(group.place->index))
                                             : group.id;
        placement.placed.push_back(std::move(placed));
    }
    return placement;
}

// --- judge: each group on its own, from its members' entries ---

// Each member's entries on group `id` by seq, ascending; of entries with the same seq the last counts. Members
// without a dump go to without_dump.
MemberSeqs member_entries(const FrIndex& index, std::size_t id, const std::vector<std::int64_t>& members,
                          std::vector<std::int64_t>& without_dump) {
    MemberSeqs by_member;
    Seqs seqs;  // one member's, its capacity kept from member to member
    for (const std::int64_t m : members) {
        const auto d = index.by_rank.find(m);
        if (d == index.by_rank.end()) {
            without_dump.push_back(m);
            continue;
        }
        const auto& ids = index.group_ids.at(d->second);
        const auto& ops = index.op_ids.at(d->second);
        seqs.clear();
        for (const auto& e : d->second->entries)
            if (ids[e.group->index] == id && !e.is_p2p && e.collective_seq_id > 0)
                seqs.push_back({e.collective_seq_id, &e, ops[e.op->index]});
        const auto by_seq = [](const auto& a, const auto& b) { return a.first < b.first; };
        if (!std::is_sorted(seqs.begin(), seqs.end(), by_seq))  // a ring buffer's entries mostly are
            std::stable_sort(seqs.begin(), seqs.end(), by_seq);
        Seqs unique;
        unique.reserve(seqs.size());
        for (std::size_t i = 0; i < seqs.size(); ++i)
            if (i + 1 == seqs.size() || seqs[i + 1].first != seqs[i].first) unique.push_back(seqs[i]);
        by_member.emplace_back(m, std::move(unique));
    }
    std::sort(by_member.begin(), by_member.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    by_member.erase(std::unique(by_member.begin(), by_member.end(),
                                [](const auto& a, const auto& b) { return a.first == b.first; }),
                    by_member.end());
    return by_member;
}

// Every sequence id a member recorded, once, in order (a dump's ids can be anything): when the members entered
// each, for the straggler rule, and the first id at which members that entered it disagree on what they run. The
// members are read one after the other, each list once from its start (a list of 16,384 members read side by
// side touches 16,384 places per id): the ids merged into one list, then each member's entries added to its ids.
void walk_members(const MemberSeqs& by_member, FrGroupArrivals& arrivals, std::optional<std::int64_t>& disagreement) {
    arrivals.with_dump = static_cast<std::int64_t>(by_member.size());
    std::vector<std::int64_t> ids, merged;
    for (const auto& [m, seqs] : by_member) {
        // Most members recorded the ids already listed: checked in one pass before anything is merged.
        std::size_t i = 0;
        bool inside = true;
        for (const SeqEntry& e : seqs) {
            while (i < ids.size() && ids[i] < e.first) ++i;
            if (i == ids.size() || ids[i] != e.first) {
                inside = false;
                break;
            }
        }
        if (inside) continue;
        merged.clear();
        std::size_t a = 0, b = 0;
        while (a < ids.size() || b < seqs.size()) {
            if (b == seqs.size() || (a < ids.size() && ids[a] < seqs[b].first))
                merged.push_back(ids[a++]);
            else {
                if (a < ids.size() && ids[a] == seqs[b].first) ++a;
                merged.push_back(seqs[b++].first);
            }
        }
        ids.swap(merged);
    }
    arrivals.seqs.assign(ids.size(), SeqArrival{});
    constexpr std::size_t no_op = SIZE_MAX;
    std::vector<std::size_t> first_op(ids.size(), no_op);
    std::vector<char> differ(ids.size(), 0);
    for (std::size_t i = 0; i < ids.size(); ++i) arrivals.seqs[i] = {ids[i], INT64_MAX, INT64_MIN, 0};
    for (const auto& [m, seqs] : by_member) {
        std::size_t i = 0;
        for (const SeqEntry& e : seqs) {
            while (ids[i] < e.first) ++i;  // every id of a member is listed
            SeqArrival& a = arrivals.seqs[i];
            const std::int64_t t = e.second->time_created_ns;
            a.first_ns = std::min(a.first_ns, t);
            a.last_ns = std::max(a.last_ns, t);
            ++a.entered;
            if (first_op[i] == no_op)
                first_op[i] = e.op;
            else if (e.op != first_op[i])
                differ[i] = 1;
        }
    }
    for (std::size_t i = 0; i < ids.size(); ++i)
        if (differ[i]) {
            disagreement = ids[i];
            break;
        }
}

// collective_mismatch at seq s, in Flight Recorder's classes: the members that differ from what most members did.
SourcedFinding mismatch_finding(const FrIndex& index, const ObservedGroup& group, const MemberSeqs& by_member,
                                std::int64_t s) {
    std::map<Signature, std::vector<std::int64_t>> votes;
    for (const auto& [m, seqs] : by_member)
        if (const FrEntry* e = find_seq(seqs, s)) votes[signature(*e)].push_back(m);
    // The reference is what most members did; a tie goes to the lowest rank's.
    const auto reference = std::max_element(votes.begin(), votes.end(), [](const auto& a, const auto& b) {
        if (a.second.size() != b.second.size()) return a.second.size() < b.second.size();
        return a.second.front() > b.second.front();
    });
    std::vector<std::int64_t> faulty;
    for (const auto& [sig, ranks] : votes)
        if (&sig != &reference->first) faulty.insert(faulty.end(), ranks.begin(), ranks.end());
    std::sort(faulty.begin(), faulty.end());
    const auto entry_of = [&](std::int64_t m) -> const FrEntry& {
        const auto it = std::lower_bound(by_member.begin(), by_member.end(), m,
                                         [](const auto& a, std::int64_t v) { return a.first < v; });
        return *find_seq(it->second, s);
    };
    const FrEntry& ref = entry_of(reference->second.front());
    const FrEntry& bad = entry_of(faulty.front());
    const Signature a = signature(ref), b = signature(bad);
    const std::vector<std::int64_t>& agree = reference->second;
    std::string what, cls;
    if (a.collective != b.collective) {
        cls = "COLLECTIVE_TYPE_MISMATCH";
        what = "runs " + b.collective + " where " + ranks_words(agree) + " run" + (agree.size() == 1 ? "s " : " ") +
               a.collective;
    } else if (a.sizes != b.sizes) {
        cls = "SIZE_OR_SYNTAX_MISMATCH";
        what = "has sizes " + b.sizes + " where " + ranks_words(agree) + (agree.size() == 1 ? " has " : " have ") +
               a.sizes;
    } else {
        cls = "COLLECTIVE_DTYPE_MISMATCH";
        what = "has dtypes " + b.dtypes + " where " + ranks_words(agree) + (agree.size() == 1 ? " has " : " have ") +
               a.dtypes;
    }
    Finding f;
    f.kind = FindingKind::collective_mismatch;
    f.id = "collective_mismatch/" + group_key(group);
    f.ranks = faulty;
    f.message = "the " + group.label() + " disagrees at seq " + std::to_string(s) + " (" +
                std::string(ref.collective()) + "): " + ranks_words(faulty) + " " + what + " (" + cls +
                ", Flight Recorder)";
    f.fix =
        "Make every member of this group call the same collective with the same shapes and dtypes at this "
        "point (the same code path and batch shapes on every rank); ranks that disagree hang NCCL or "
        "corrupt the result.";
    std::vector<std::string> sources;
    for (const std::int64_t r : {agree.front(), faulty.front()}) sources.push_back(index.by_rank.at(r)->file);
    return {std::move(f), sources};
}

// How far the group got: the highest seq a member reached, the last seq every member reached (common), and who
// called that one last, how long after the first.
Outcome group_progress(const Placed& placed, const MemberSeqs& by_member, std::vector<std::int64_t> without_dump) {
    std::int64_t hi = 0, lo = INT64_MAX;
    for (const auto& [m, seqs] : by_member) {
        const std::int64_t last = seqs.empty() ? 0 : seqs.back().first;
        hi = std::max(hi, last);
        lo = std::min(lo, last);
    }
    const ObservedGroup& group = placed.group;
    Outcome outcome{group.place ? group.place->dim : placed.pg->desc,
                    group.label(),
                    hi,
                    false,
                    {},
                    lo,
                    -1,
                    0,
                    {},
                    std::move(without_dump)};
    if (lo >= 1 && by_member.size() > 1) {
        std::int64_t first = INT64_MAX, last = INT64_MIN;
        for (const auto& [m, seqs] : by_member) {
            const FrEntry* e = find_seq(seqs, lo);
            if (!e) continue;  // a member whose ids skip lo
            first = std::min(first, e->time_created_ns);
            if (e->time_created_ns > last) {
                last = e->time_created_ns;
                outcome.latest_rank = m;
                outcome.collective = std::string(e->collective());
            }
        }
        outcome.spread_ns = last - first;
    }
    return outcome;
}

// collective_stuck at the seq after the common one: who never entered it and where those ranks are instead. Marks
// the outcome stuck.
SourcedFinding stuck_finding(const FrIndex& index, const std::map<std::string, std::string>& labels,
                             const ObservedGroup& group, const MemberSeqs& by_member, Outcome& outcome) {
    const std::int64_t s = outcome.common + 1;
    std::vector<std::int64_t> never, entered;
    const FrEntry* at = nullptr;
    for (const auto& [m, seqs] : by_member) {
        const std::int64_t last = seqs.empty() ? 0 : seqs.back().first;
        (last < s ? never : entered).push_back(m);
        if (const FrEntry* e = find_seq(seqs, s); e && !at) at = e;
    }
    const std::string collective = at ? std::string(at->collective()) : "a collective";
    outcome.stuck = true;
    outcome.stuck_text = group.label() + " is stuck at seq " + std::to_string(s) + " (" + collective +
                         "): " + ranks_words(never) + " never entered";
    // Where the ranks that never entered are instead: their last record, grouped by what it is.
    std::map<std::string, std::vector<std::int64_t>> elsewhere;
    for (const std::int64_t r : never)
        if (const FrEntry* last = last_record(*index.by_rank.at(r))) elsewhere[entry_text(*last, labels)].push_back(r);
    Finding f;
    f.kind = FindingKind::collective_stuck;
    f.id = "collective_stuck/" + group_key(group);
    f.ranks = never;
    f.message = "the " + outcome.stuck_text + " it; " + ranks_words(entered) + " entered it";
    for (const auto& [where, ranks] : elsewhere) f.message += "; " + ranks_words(ranks) + " last recorded " + where;
    f.message += " (Flight Recorder)";
    f.fix = "Look at what " + ranks_words(never) + (never.size() == 1 ? " is" : " are") +
            " doing instead (py-spy dump --pid, its log, the collective it last recorded): every member of "
            "the group waits for the ranks that never entered.";
    std::vector<std::string> sources;
    for (const std::int64_t r : never)
        if (sources.size() < 8) sources.push_back(index.by_rank.at(r)->file);
    return {std::move(f), sources};
}

// A group reads only its members' entries: its arrivals, its first disagreement, how far it got and where it is
// stuck, and the members that left no dump.
GroupVerdict judge_group(const FrIndex& index, const std::map<std::string, std::string>& labels, const Placed& placed) {
    GroupVerdict verdict;
    const ObservedGroup& group = placed.group;
    std::vector<std::int64_t> without_dump;
    const MemberSeqs by_member =
        member_entries(index, index.pg_index.at(placed.pg->name), placed.members, without_dump);
    verdict.arrivals.dim = group.place ? group.place->dim : placed.pg->desc;
    verdict.arrivals.label = group.label();
    if (by_member.empty()) return verdict;
    std::optional<std::int64_t> disagreement;
    walk_members(by_member, verdict.arrivals, disagreement);
    if (disagreement) verdict.findings.push_back(mismatch_finding(index, group, by_member, *disagreement));
    Outcome outcome = group_progress(placed, by_member, without_dump);
    if (outcome.common < outcome.reached)
        verdict.findings.push_back(stuck_finding(index, labels, group, by_member, outcome));
    if (!without_dump.empty())
        verdict.problem = read_problem(
            {}, 0, "no Flight Recorder dump from " + ranks_words(without_dump) + " of the " + group.label());
    verdict.outcome = std::move(outcome);
    return verdict;
}

// The groups are judged on a few threads, each taking the next group: a 16,384-rank job's groups read 2.4 GB of
// entries (docs/benchmarks.md, "Flight Recorder"). The stragglers over the whole window come first, then each
// group's findings, problem and group in group order; the outcomes are returned for the roll-up.
std::vector<Outcome> judge_groups(Context& context, const FrIndex& index, Placement& placement) {
    std::vector<Placed>& placed = placement.placed;
    std::vector<GroupVerdict> verdicts(placed.size());
    parallel_for(placed.size(), parallel_threads(placed.size(), 8),
                 [&](std::size_t i) { verdicts[i] = judge_group(index, placement.labels, placed[i]); });
    // placed[i] is the group of pg_index i (both in pgs' order), as find_stragglers reads them.
    std::vector<FrGroupArrivals> arrivals;
    arrivals.reserve(verdicts.size());
    for (auto& verdict : verdicts) arrivals.push_back(std::move(verdict.arrivals));
    context.out.stragglers = find_stragglers(index.by_rank, index.group_ids, arrivals, StragglerRule{});
    for (auto& finding : straggler_findings(context.out.stragglers, index.by_rank))
        context.out.findings.push_back(std::move(finding));
    std::vector<Outcome> outcomes;
    for (std::size_t i = 0; i < placed.size(); ++i) {
        GroupVerdict& verdict = verdicts[i];
        for (auto& finding : verdict.findings) context.out.findings.push_back(std::move(finding));
        if (verdict.problem) context.out.problems.push_back(std::move(*verdict.problem));
        if (verdict.outcome) outcomes.push_back(std::move(*verdict.outcome));
        context.out.groups.push_back(std::move(placed[i].group));
    }
    return outcomes;
}

// --- groups that never formed: a plan group of a dim that recorded nothing while others of the dim did ---

// The members of `p` that are blocked in its creation wait for the ranks that went on (verdict.cpp follows the
// chain).
void note_waits_in_creation(Context& context, const FrIndex& index, const PlanPlace& p, const std::string& dim,
                            const std::vector<std::int64_t>& waiting, const std::vector<std::int64_t>& went_on) {
    for (const std::int64_t m : waiting) {
        Position wait;
        wait.rank = m;
        wait.state = Position::State::blocked;
        wait.source = "Flight Recorder";
        wait.mesh = p.mesh;
        wait.dim = p.dim;
        wait.index = p.index;
        wait.label = p.label();
        wait.name = dim + " group " + std::to_string(p.index);
        wait.key = dim + "/" + std::to_string(p.index);
        wait.op = "creation";
        wait.waits_on = went_on;
        wait.files = {index.by_rank.at(m)->file};
        context.positions.push_back(std::move(wait));
    }
}

void unformed_group_finding(Context& context, const FrIndex& index, const Placement& placement, const std::string& dim,
                            std::size_t groups_with_records, const PlanPlace& p) {
    // every member's progress: how many records its dump holds
    std::map<std::size_t, std::vector<std::int64_t>> by_progress;
    for (const std::int64_t m : p.members)
        if (const auto d = index.by_rank.find(m); d != index.by_rank.end())
            by_progress[d->second->entries.size()].push_back(m);
    if (by_progress.empty()) return;
    Finding f;
    f.kind = FindingKind::communicator_not_formed;
    f.id = "communicator_not_formed/" + dim + "/" + std::to_string(p.index);
    f.message = "the " + p.label() +
                " communicator never ran a collective (no member recorded one) "
                "while " +
                std::to_string(groups_with_records) + " other " + dim + " group" +
                (groups_with_records == 1 ? "" : "s") + " did";
    std::vector<std::string> sources;
    for (const auto& [count, ranks] : by_progress) {
        const FrEntry* last = last_record(*index.by_rank.at(ranks.front()));
        f.message += "; " + ranks_words(ranks) + " stopped after " +
                     (last ? entry_text(*last, placement.labels) : std::string("no record"));
        sources.push_back(index.by_rank.at(ranks.front())->file);
    }
    if (by_progress.size() > 1) {
        // The members that went further did not wait in this group's creation: they skipped it.
        f.ranks = by_progress.rbegin()->second;
        f.message += ": " + ranks_words(f.ranks) + " went on without creating it";
        // The others wait in its creation for them.
        for (auto it = by_progress.begin(); std::next(it) != by_progress.end(); ++it)
            note_waits_in_creation(context, index, p, dim, it->second, f.ranks);
    } else
        f.ranks = p.members;
    f.message += " (Flight Recorder)";
    f.fix =
        "Make every member create this group (the same new_group / DeviceMesh calls in the same order "
        "on every rank); its members wait in its creation for " +
        ranks_words(f.ranks) + ".";
    context.out.findings.push_back({std::move(f), sources});
}

void find_unformed_groups(Context& context, const FrIndex& index, const Placement& placement) {
    if (!context.plan) return;
    for (const auto& [dim, indices] : placement.dims_with_records) {
        if (dim == "world") continue;
        for (std::int64_t r = 0; r < context.plan->world(); ++r) {
            const auto p = context.plan->along(dim, r);
            if (!p || p->members.size() < 2 || p->members.front() != r || indices.count(p->index)) continue;
            unformed_group_finding(context, index, placement, dim, indices.size(), *p);
        }
    }
}

// --- report: the progress and the latest arrival, by dim ---

// The roll-up by dim: "every efsdp group (4) reached seq 2", and each stuck group.
void report_progress(Context& context, const std::map<std::string, std::vector<const Outcome*>>& by_dim) {
    for (const auto& [dim, list] : by_dim) {
        const bool any_stuck = std::any_of(list.begin(), list.end(), [](const Outcome* o) { return o->stuck; });
        const auto first_reached = list.front()->reached;  // a local: clang 14 cannot capture a structured binding
        const bool same = std::all_of(list.begin(), list.end(), [&](const Outcome* o) {
            return o->reached == first_reached && o->without_dump.empty();
        });
        if (!any_stuck && same) {
            context.out.progress.push_back(list.size() == 1
                                               ? "the " + list.front()->label + " reached seq " +
                                                     std::to_string(list.front()->reached)
                                               : "every " + dim + " group (" + std::to_string(list.size()) +
                                                     ") reached seq " + std::to_string(list.front()->reached));
            continue;
        }
        for (const Outcome* o : list) {
            std::string line =
                o->stuck ? "the " + o->stuck_text : "the " + o->label + " reached seq " + std::to_string(o->reached);
            // A member without a dump may not have reached it: said, never assumed.
            if (!o->without_dump.empty())
                line += (o->stuck ? "; " : " on the members with a dump; ") + ranks_words(o->without_dump) +
                        " left no Flight Recorder dump";
            context.out.progress.push_back(std::move(line));
        }
    }
}

// The latest arrival per dim: of the dim's groups, the one whose members called their last common collective
// furthest apart, and the member that called it last.
void report_latest_arrivals(Context& context, const std::map<std::string, std::vector<const Outcome*>>& by_dim) {
    for (const auto& [dim, list] : by_dim) {
        const Outcome* widest = nullptr;
        for (const Outcome* o : list)
            if (o->latest_rank >= 0 && (!widest || o->spread_ns > widest->spread_ns)) widest = o;
        if (!widest) continue;
        char ms[32];
        std::snprintf(ms, sizeof ms, "%.1f", static_cast<double>(widest->spread_ns) / 1e6);
        context.out.arrivals.push_back(dim + ": rank " + std::to_string(widest->latest_rank) + " arrived last at seq " +
                                       std::to_string(widest->common) + " (" + widest->collective + ") of the " +
                                       widest->label + ", " + ms + " ms after the first member");
    }
}
}  // namespace

// The stages: index the dumps, place their groups on the plan, judge each group (mismatch, stuck, stragglers), find
// the plan's groups that never formed, and report the progress by dim.
void diagnose_flight_recorder(Context& context) {
    if (context.records.dumps.empty()) return;
    const FrIndex index = index_dumps(context);
    Placement placement = place_groups(context, index);
    const std::vector<Outcome> outcomes = judge_groups(context, index, placement);
    find_unformed_groups(context, index, placement);
    std::map<std::string, std::vector<const Outcome*>> by_dim;
    for (const auto& o : outcomes) by_dim[o.dim].push_back(&o);
    report_progress(context, by_dim);
    report_latest_arrivals(context, by_dim);
}

}  // namespace meshscope::records::detail
